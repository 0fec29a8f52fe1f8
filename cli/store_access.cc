#include "store_access.h"

#include <unistd.h>

#include <filesystem>

namespace braid::cli {

Status CheckStoreWritable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    auto store = Store::Open(path);  // validates an existing store; creates nothing
    return store.ok() ? Status::Ok() : store.status();
  }
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::Invalid("--db '" + OneLine(path) + "': directory '" + OneLine(dir.string()) + "' does not exist");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return Status::Invalid("--db '" + OneLine(path) + "': directory '" + OneLine(dir.string()) + "' is not writable");
  }
  return Status::Ok();
}

Result<std::unique_ptr<Store>> OpenStoreForWrite(const std::string& path) { return Store::Open(path); }

Result<std::unique_ptr<Store>> OpenStoreForRead(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::NotFound("no store at '" + OneLine(path) + "'");
  return Store::Open(path, /*read_only=*/true);
}

void RemoveCreatedStore(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

}  // namespace braid::cli
