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

#include "braid/status.h"

namespace braid {

// Text data files (TOML, CSV): far above any real one.
inline constexpr int64_t kMaxDataFileBytes = int64_t(256) << 20;

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
