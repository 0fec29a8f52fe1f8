// libFuzzer target: the bytes are a Kineto trace file (plain JSON or gzip).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.h"
#include "kineto_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  braid::Result<braid::ImportedRank> rank = braid::importers::ParseKinetoBytes(bytes, "fuzz.json", 0, 1);
  if (!rank.ok()) {
    const std::string& msg = rank.status().message();
    braid::fuzz::Require(msg.rfind("fuzz.json: ", 0) == 0, "error names the file");
    braid::fuzz::Require(msg.find('\n') == std::string::npos, ("one-line error: " + msg).c_str());
    return 0;
  }
  braid::ImportedTrace trace;
  trace.ranks.push_back(std::move(rank).value());
  braid::fuzz::CheckTrace(trace);
  return 0;
}
