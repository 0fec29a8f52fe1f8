#include "store_access.h"

#include <filesystem>

#include "braid/status_context.h"
#include "field_flags.h"

namespace braid::cli {

// The library names its field; the command prints the flag.
Status CheckStoreWritable(const std::string& path) {
  const Status s = braid::CheckStoreWritable(path);
  return s.ok() ? s : StatusOf(s.code(), FlagWorded(s.message()));
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
