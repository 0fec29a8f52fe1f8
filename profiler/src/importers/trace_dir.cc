#include "trace_dir.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace braid::importers {

namespace fs = std::filesystem;

namespace {

bool NamesKinetoTrace(const std::string& name) { return name.ends_with(".json") || name.ends_with(".json.gz"); }

}  // namespace

Result<std::vector<std::string>> ListKinetoTraces(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::Invalid(OneLine(dir) + ": cannot list the directory (" + ec.message() + ")");
  std::vector<std::string> found;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Status::Invalid(OneLine(dir) + ": cannot list the directory (" + ec.message() + ")");
    // Not followed: a link to a directory is not entered; a link to a file is
    // the reader's to check like any file.
    if (it->is_directory(ec) && !it->is_symlink(ec)) continue;
    if (!NamesKinetoTrace(it->path().filename().string())) continue;
    if (found.size() == kMaxTraceFiles) {
      return Status::Invalid(OneLine(dir) + ": more than " + std::to_string(kMaxTraceFiles) +
                             " trace files; give the job's directory or its files");
    }
    found.push_back(it->path().string());
  }
  if (ec) return Status::Invalid(OneLine(dir) + ": cannot list the directory (" + ec.message() + ")");
  if (found.empty()) return Status::Invalid(OneLine(dir) + ": holds no Kineto traces (*.json, *.json.gz)");
  std::sort(found.begin(), found.end());
  return found;
}

Result<std::vector<std::string>> ExpandTraceDirs(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    BRAID_ASSIGN_OR_RETURN(std::vector<std::string> listed, ListKinetoTraces(p));
    out.insert(out.end(), listed.begin(), listed.end());
  }
  if (out.size() > kMaxTraceFiles) {
    return Status::Invalid("kineto import: " + std::to_string(out.size()) + " trace files, more than " +
                           std::to_string(kMaxTraceFiles));
  }
  return out;
}

}  // namespace braid::importers
