// Data files (topologies, GPUs, models) are compiled in by name and can also
// be given as a path; this finds the text either way.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/status.h"

namespace braid {

// One compiled-in file (cmake/BraidEmbed.cmake writes arrays of these).
struct EmbeddedFile {
  std::string_view name;
  std::string_view text;
};

struct DataFileText {
  std::string text;
  std::string origin;  // "h100-sxm.toml" or the path, for error messages
};

// A name with '/' or ending in ".toml" is a path; anything else must be a
// built-in name. `what` names the kind in messages ("topology", "GPU").
Result<DataFileText> FindDataFile(std::string_view name_or_path, std::span<const EmbeddedFile> builtins,
                                  std::string_view what);

std::vector<std::string> NamesOf(std::span<const EmbeddedFile> builtins);

}  // namespace braid
