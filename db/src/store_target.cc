// CheckStoreWritable (braid/store.h): whether a path can take a new run.
#include <unistd.h>

#include <filesystem>

#include "braid/store.h"

namespace braid {

Status CheckStoreWritable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    auto store = Store::Open(path);  // validates an existing store; creates nothing
    return store.ok() ? Status::Ok() : store.status();
  }
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::Invalid("`db` '" + OneLine(path) + "': directory '" + OneLine(dir.string()) + "' does not exist");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid("`db` '" + OneLine(path) + "': directory '" + OneLine(dir.string()) + "' is not writable");
  }
  return Status::Ok();
}

}  // namespace braid
