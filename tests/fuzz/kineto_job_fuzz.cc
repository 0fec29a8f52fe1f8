// libFuzzer target: the bytes are a Kineto job, one to eight rank files
// (plain JSON or gzip) separated by a line "@@rank@@". They are written to
// a folder of their own and imported as braid import reads a job: the
// folder, or the files listed, on one worker thread or several. What must
// hold across files: the first bad file in order is the error (one line,
// naming it), whatever the threads; an imported job has one world size,
// each rank once and below it, and the same ranks and events on any number
// of threads.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "braid/trace_import.h"
#include "fuzz_checks.h"

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSeparator = "\n@@rank@@\n";
constexpr size_t kMaxFiles = 8;

// A folder of this process's own, emptied for each input and removed when
// the fuzzer exits.
std::string& JobDirStorage() {
  static std::string dir;
  return dir;
}

const std::string& JobDir() {
  std::string& dir = JobDirStorage();
  if (dir.empty()) {
    char tmpl[] = "/tmp/braid_kineto_job_fuzz.XXXXXX";
    const char* made = ::mkdtemp(tmpl);
    if (made == nullptr) std::abort();
    dir = made;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(JobDirStorage(), ec);
    });
  }
  return dir;
}

std::vector<std::string> WriteJob(std::string_view bytes) {
  const std::string& dir = JobDir();
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) fs::remove(e.path(), ec);
  std::vector<std::string> paths;
  while (paths.size() < kMaxFiles) {
    const size_t cut = bytes.find(kSeparator);
    const std::string_view part = bytes.substr(0, cut);
    // rank00.json, rank01.json...: the folder lists them in this order.
    const std::string path = dir + "/rank0" + std::to_string(paths.size()) + ".json";
    std::ofstream(path, std::ios::binary).write(part.data(), std::streamsize(part.size()));
    paths.push_back(path);
    if (cut == std::string_view::npos) break;
    bytes.remove_prefix(cut + kSeparator.size());
  }
  return paths;
}

bool SameTrace(const braid::ImportedTrace& a, const braid::ImportedTrace& b) {
  if (a.ranks.size() != b.ranks.size() || a.files != b.files) return false;
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    const braid::ImportedRank &x = a.ranks[i], &y = b.ranks[i];
    if (x.rank != y.rank || x.world != y.world || x.events.size() != y.events.size() ||
        x.lanes.size() != y.lanes.size()) {
      return false;
    }
    for (size_t e = 0; e < x.events.size(); ++e) {
      if (x.events[e].start_ns != y.events[e].start_ns || x.events[e].end_ns != y.events[e].end_ns ||
          x.events[e].name != y.events[e].name) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte: the folder or the files listed, and the threads.
  const uint8_t how = data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::vector<std::string> files = WriteJob(bytes);
  const std::vector<std::string> given = (how & 1) != 0 ? std::vector<std::string>{JobDir()} : files;
  braid::KinetoImportOptions one, several;
  one.threads = 1;
  several.threads = 2 + (how >> 1) % 3;
  const braid::Result<braid::ImportedTrace> a = braid::ImportKineto(given, one);
  const braid::Result<braid::ImportedTrace> b = braid::ImportKineto(given, several);
  braid::fuzz::Require(a.ok() == b.ok(), "one thread and several agree on whether the job imports");
  if (!a.ok()) {
    const std::string& msg = a.status().message();
    braid::fuzz::Require(msg == b.status().message(), "the same error on any number of threads");
    braid::fuzz::Require(msg.find('\n') == std::string::npos, ("one-line error: " + msg).c_str());
    braid::fuzz::Require(msg.find(JobDir()) != std::string::npos, ("the error names a file: " + msg).c_str());
    return 0;
  }
  braid::fuzz::Require(SameTrace(*a, *b), "the same ranks and events on any number of threads");
  braid::fuzz::Require(a->ranks.size() == files.size(), "one rank per file");
  std::vector<char> seen;
  for (const braid::ImportedRank& r : a->ranks) {
    braid::fuzz::Require(r.world == a->ranks.front().world, "one world size");
    if (seen.size() <= size_t(r.rank)) seen.resize(size_t(r.rank) + 1, 0);
    braid::fuzz::Require(seen[size_t(r.rank)] == 0, "each rank once");
    seen[size_t(r.rank)] = 1;
  }
  braid::fuzz::CheckTrace(*a);
  return 0;
}
