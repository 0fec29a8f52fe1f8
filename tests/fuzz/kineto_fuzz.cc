// libFuzzer target: the bytes are a Kineto trace file (plain JSON or gzip);
// an imported one is also analysed GEMM by GEMM (braid/gemm_overlap.h).
// Also differential: read in parts as small as 64 bytes (so that guessed
// part ends fall everywhere), from memory or from gzip as it inflates, on
// one thread or two, the records and errors must be those of one whole read.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "file_bytes.h"
#include "fuzz_checks.h"
#include "kineto_parse.h"
#include "kineto_records.h"

namespace {

// Parts on two threads; kept from input to input, as a worker keeps it.
braid::importers::KinetoParser& TwoThreads() {
  static braid::importers::KinetoParser parser(2);
  return parser;
}

bool SameRecords(const braid::importers::KinetoRecords& a, const braid::importers::KinetoRecords& b) {
  if (a.events_seen != b.events_seen || a.rank != b.rank || a.world != b.world || a.events.size() != b.events.size()) {
    return false;
  }
  for (size_t i = 0; i < a.events.size(); ++i) {
    const braid::importers::KinetoRecord &x = a.events[i], &y = b.events[i];
    // Bit-equal doubles: NaN never gets this far (ts and dur are checked).
    if (x.cat != y.cat || x.name != y.name || x.ts != y.ts || x.dur != y.dur || x.stream != y.stream ||
        x.correlation != y.correlation || x.device != y.device || x.bytes != y.bytes ||
        x.has_correlation != y.has_correlation) {
      return false;
    }
  }
  return true;
}

void CheckPartsReadAsWhole(std::string_view bytes) {
  braid::importers::PaddedBytes json;
  if (!braid::importers::BytesMaybeGzip(bytes, "fuzz.json", &json).ok()) {
    // Gzip that Gunzip refuses: the inflating read must refuse it too.
    braid::importers::KinetoRecords none;
    braid::fuzz::Require(!braid::importers::ReadKinetoRecordsInflating(bytes, "fuzz.json", &none, nullptr, 64),
                         "an inflating read refuses gzip that Gunzip refuses");
    return;
  }
  braid::importers::KinetoRecords whole, parts, parts2, inflating, inflating2;
  const braid::Status a = braid::importers::ReadKinetoRecords(json, "fuzz.json", &whole, nullptr, 0);
  const braid::Status b = braid::importers::ReadKinetoRecords(json, "fuzz.json", &parts, nullptr, 64);
  braid::fuzz::Require(a.ok() == b.ok() && a.message() == b.message(), "a read in parts fails as a whole read does");
  if (a.ok()) braid::fuzz::Require(SameRecords(whole, parts), "a read in parts gives the whole read's records");
  const braid::Status c = braid::importers::ReadKinetoRecords(json, "fuzz.json", &parts2, &TwoThreads(), 64);
  braid::fuzz::Require(a.ok() == c.ok() && a.message() == c.message(), "parts on two threads fail as a whole read");
  if (a.ok()) braid::fuzz::Require(SameRecords(whole, parts2), "parts on two threads give the whole read's records");
  // Gzip read as it inflates: only what a whole read takes, and its records.
  if (braid::importers::ReadKinetoRecordsInflating(bytes, "fuzz.json", &inflating, nullptr, 64)) {
    braid::fuzz::Require(a.ok() && SameRecords(whole, inflating), "an inflating read gives the whole read's records");
  }
  if (braid::importers::ReadKinetoRecordsInflating(bytes, "fuzz.json", &inflating2, &TwoThreads(), 64)) {
    braid::fuzz::Require(a.ok() && SameRecords(whole, inflating2),
                         "inflating on two threads: the whole read's records");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  CheckPartsReadAsWhole(bytes);
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
  braid::fuzz::CheckGemmOverlap(trace);
  return 0;
}
