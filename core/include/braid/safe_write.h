// Safe writes: every file Braid writes (presets, exports, TE YAML) goes
// through here, so a reader sees the old file or the new one, never a part,
// and a write never replaces what is not a regular file.
//
// Rules for a path given as an output:
//   - "-" is standard output where the caller allows it (allow_stdout);
//   - a symlink is followed (its final target is written; the link stays);
//   - an existing target that is not a regular file (directory, device,
//     FIFO, socket) is refused with Status::Invalid naming what it is;
//   - the target's directory must exist (it is never created).
// The bytes go to a temporary file beside the target, are fsynced and the
// temporary is renamed over the target; the new file keeps an existing
// target's permission bits. On any failure the target is untouched and the
// temporary removed.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "braid/status.h"

namespace braid {

// The regular file (existing or to be created) that writing `path` replaces,
// after following symlinks; Invalid for the cases above. "-" is returned
// unchanged.
Result<std::string> ResolveWriteTarget(const std::string& path);

// Writes `bytes` to `path` atomically. "-" writes standard output when
// allow_stdout, and is otherwise a file named "-" in the working directory.
Status WriteFileAtomically(const std::string& path, std::string_view bytes, bool allow_stdout = false);

// A file written in pieces, with WriteFileAtomically's guarantees, for
// outputs too large to hold (an export of millions of events): the pieces go
// to a temporary beside the target, which Commit() fsyncs and renames over
// it. Destroyed without a Commit (an error part-way), the temporary is
// removed and the target is untouched. "-" with allow_stdout streams to
// standard output, where nothing can be taken back.
class AtomicFileWriter {
 public:
  static Result<std::unique_ptr<AtomicFileWriter>> Open(const std::string& path, bool allow_stdout = false);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  Status Append(std::string_view bytes);
  // Once: after it (either way) the writer takes no more bytes.
  Status Commit();
  int64_t bytes_written() const { return written_; }

 private:
  AtomicFileWriter(int fd, std::string target, std::string temporary)
      : fd_(fd), target_(std::move(target)), temporary_(std::move(temporary)) {}
  Status Fail(const std::string& why);

  int fd_;                 // -1 once closed
  std::string target_;     // "" for standard output
  std::string temporary_;  // removed unless committed
  int64_t written_ = 0;
  bool done_ = false;
};

// Read-merge-write. While holding an exclusive lock (flock on the sidecar
// "<target>.lock", removed on release), reads the target (nullopt when it
// does not exist), calls `merge` with its bytes and writes what it returns
// atomically. Concurrent updaters of one file in any process take turns, so
// none loses another's changes. Waits at most `lock_wait_s` for the lock,
// then fails with Unavailable.
using FileMerge = std::function<Result<std::string>(const std::optional<std::string>& current)>;
Status UpdateFileAtomically(const std::string& path, const FileMerge& merge, int lock_wait_s = 60);

// Invalid when the target or its sidecar lock is one UpdateFileAtomically
// would refuse (a symlink or another non-regular file at "<path>.lock", a
// special file or directory at the path): for a command to check before
// it spends anything (tune measures for minutes before it merges).
Status CheckUpdatableTarget(const std::string& path);

}  // namespace braid
