// Errors are values: a Status names what went wrong; Result<T> carries a
// value or a Status. No exception crosses a module boundary.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

// The file name (no directories) that error messages cite next to a line
// number: users see "real_nccl.cc:16", not the build tree's relative path.
#if defined(__FILE_NAME__)
#define BRAID_SOURCE_FILE __FILE_NAME__
#else
#define BRAID_SOURCE_FILE __FILE__
#endif

namespace braid {

enum class StatusCode {
  kOk = 0,
  // The caller gave something wrong (a field out of range, a bad config or
  // data file): fix the input; retrying it unchanged fails the same way.
  kInvalidArgument,
  // A named thing (model, topology, run, file) does not exist: fix the name.
  kNotFound,
  // A feature or hardware is not present here (no GPU, built without CUDA):
  // the input may be fine; run it where that is present, or pick another backend.
  kUnavailable,
  // A failure while running (a library call, a timeout, a damaged store): not
  // the input's fault as far as we can tell; the message says where it came from.
  kInternal,
};

// [[nodiscard]]: a Status or Result dropped on the floor is an error lost; say
// (void) where dropping one is meant.
class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Invalid(std::string msg) { return Status(StatusCode::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
  static Status Unavailable(std::string msg) { return Status(StatusCode::kUnavailable, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // True for errors caused by what the caller gave us (kInvalidArgument,
  // kNotFound): the input must change before a retry can succeed.
  bool is_user_error() const { return code_ == StatusCode::kInvalidArgument || code_ == StatusCode::kNotFound; }

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Quotes outside text (a file's bytes, a parser's message) for a one-line
// error: control characters become \n, \t or \xNN.
std::string OneLine(std::string_view text);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace braid

#define BRAID_RETURN_IF_ERROR(expr)      \
  do {                                   \
    ::braid::Status braid_s_ = (expr);   \
    if (!braid_s_.ok()) return braid_s_; \
  } while (0)
