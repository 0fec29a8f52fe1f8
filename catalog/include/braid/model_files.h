// Model files (TOML, catalog/models/*.toml): the shapes of one transformer
// block of a model, each number with its public source. The shipped files are
// compiled in, so `--model llama3-70b` works from any directory; a path loads
// a user's own file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "braid/model_spec.h"
#include "braid/status.h"

namespace braid {

// Errors say where: "my.toml:4:9: heads must be an integer between 1 and 65536".
// Also checks heads % kv_heads == 0.
Result<ModelSpec> ParseModelToml(std::string_view text, std::string_view origin);

// A built-in name, or a path to a .toml file (anything with '/' or ".toml").
// An unknown name lists the known ones.
Result<ModelSpec> LoadModel(std::string_view name_or_path);

std::vector<std::string> BuiltinModelNames();

}  // namespace braid
