#include "data_file_lookup.h"

#include <utility>

#include "braid/safe_read.h"

namespace braid {

std::vector<std::string> NamesOf(std::span<const EmbeddedFile> builtins) {
  std::vector<std::string> names;
  for (const EmbeddedFile& f : builtins) names.emplace_back(f.name);
  return names;
}

Result<DataFileText> FindDataFile(std::string_view name_or_path, std::span<const EmbeddedFile> builtins,
                                  std::string_view what) {
  const bool is_path = name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".toml");
  if (!is_path) {
    for (const EmbeddedFile& f : builtins) {
      if (f.name == name_or_path) return DataFileText{std::string(f.text), std::string(f.name) + ".toml"};
    }
    std::string known;
    for (const std::string& n : NamesOf(builtins)) known += (known.empty() ? "" : ", ") + n;
    return Status::NotFound("unknown " + std::string(what) + " '" + OneLine(name_or_path) + "' (known: " + known +
                            "; or give a path to a .toml file)");
  }
  BRAID_ASSIGN_OR_RETURN(auto text, ReadUserFile(std::string(name_or_path), std::string(what) + " file"));
  return DataFileText{std::move(text), std::string(name_or_path)};
}

}  // namespace braid
