#include "braid/status_context.h"

#include <utility>

namespace braid {

Status StatusOf(StatusCode code, std::string message) {
  switch (code) {
    case StatusCode::kOk:
      return Status::Ok();
    case StatusCode::kInvalidArgument:
      return Status::Invalid(std::move(message));
    case StatusCode::kNotFound:
      return Status::NotFound(std::move(message));
    case StatusCode::kUnavailable:
      return Status::Unavailable(std::move(message));
    case StatusCode::kInternal:
      break;
  }
  return Status::Internal(std::move(message));
}

Status WithContext(const Status& s, const std::string& context) {
  return s.ok() ? s : StatusOf(s.code(), context + ": " + s.message());
}

}  // namespace braid
