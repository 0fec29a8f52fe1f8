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
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  // @pre !status.ok(). An OK status carries no value, so a Result built from
  // one is itself an error (as abseil's StatusOr does) rather than an "ok"
  // Result whose value() would throw.
  Result(Status status)  // NOLINT(google-explicit-constructor)
      : v_(status.ok() ? Status::Internal("Result built from an OK status") : std::move(status)) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  // By value, not T&&: `for (auto& x : Load().value())` keeps the value
  // alive, where a reference into the temporary Result would dangle.
  T value() && { return std::get<T>(std::move(v_)); }
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

// BRAID_ASSIGN_OR_RETURN(lhs, expr): evaluates expr (a Result<T>); on error
// returns its status from the enclosing function (which returns a Status or
// a Result), else moves the value into lhs, a declaration (`auto plan`,
// `const Plan plan`) or an existing variable. Like abseil's ASSIGN_OR_RETURN.
// It expands to three statements: never the unbraced body of an if or a
// loop. lhs must have no top-level comma (say `auto m`, not
// `std::map<K, V> m`); wrap an expr that has one in parentheses.
#define BRAID_ASSIGN_OR_RETURN(lhs, expr) \
  BRAID_ASSIGN_OR_RETURN_IMPL_(BRAID_STATUS_CONCAT_(braid_result_, __COUNTER__), lhs, expr)
#define BRAID_ASSIGN_OR_RETURN_IMPL_(result, lhs, expr) \
  auto result = (expr);                                 \
  if (!result.ok()) return result.status();             \
  lhs = std::move(result).value()
#define BRAID_STATUS_CONCAT_(a, b) BRAID_STATUS_CONCAT_INNER_(a, b)
#define BRAID_STATUS_CONCAT_INNER_(a, b) a##b
