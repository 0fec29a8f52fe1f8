// Safe reads: every file Braid reads from a user (preset, topology, model and
// GPU files, calibration CSVs, traces) comes through here, so that a FIFO, a
// device or a directory given as a file is refused with one line before any
// read (a read of /dev/zero never ends; opening a FIFO blocks until a writer
// comes), and a file larger than its kind allows is refused by its size
// rather than read until memory runs out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "braid/budgets.h"
#include "braid/status.h"

namespace braid {

// A regular file opened for reading (symlinks followed), at most
// `max_bytes` when opened: ReadUserFile's first half, for readers that take
// the bytes in their own way (a trace inflated from gzip as it is read, a
// database SQLite opens itself). Refusals as ReadUserFile's. Closed with
// the object.
class UserFile {
 public:
  static Result<UserFile> Open(const std::string& path, std::string_view what, int64_t max_bytes);
  UserFile(UserFile&& o) noexcept;
  UserFile& operator=(UserFile&&) = delete;
  ~UserFile();

  int64_t size() const { return size_; }  // when opened
  // Up to `n` bytes at the current offset; 0 at the end. Never blocks.
  Result<size_t> Read(char* buf, size_t n);
  // Invalid: the file grew past `max_bytes` while it was read.
  Status GrewPastCap() const;

 private:
  UserFile() = default;
  int fd_ = -1;
  int64_t size_ = 0, max_bytes_ = 0;
  std::string name_, what_;
};

// The whole of the regular file at `path` (symlinks followed), at most
// `max_bytes`. `what` names the file's kind in messages ("preset file").
// NotFound when it does not exist or cannot be opened; Invalid when it is not
// a regular file (naming what it is) or is larger than `max_bytes` (naming
// both sizes). The open never blocks (O_NONBLOCK), so a FIFO is refused, not
// waited on.
Result<std::string> ReadUserFile(const std::string& path, std::string_view what, int64_t max_bytes = kMaxDataFileBytes);

// What a file of mode `st_mode` (stat's) is when it is not a regular file
// ("a directory", "a FIFO", ...); empty for a regular file. The safe writer
// names what it refuses to replace the same way.
std::string NonRegularKindOfMode(unsigned st_mode);

// What the file at `path` is when it is not a regular file ("a directory",
// "a FIFO", "a character device", ...); empty for a regular file or when it
// cannot be examined.
std::string NonRegularKind(const std::string& path);

}  // namespace braid
