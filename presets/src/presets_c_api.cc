// The C API: a thin wrapper over PresetTable that never lets an exception
// or a C++ type cross the boundary.
#include <algorithm>
#include <cstring>
#include <new>

#include "braid/presets.h"
#include "braid_presets.h"

struct braid_presets {
  braid::PresetTable table;
};

namespace {

void CopyOut(std::string_view msg, char* err, size_t err_len) {
  if (err == nullptr || err_len == 0) return;
  const size_t n = std::min(msg.size(), err_len - 1);
  std::memcpy(err, msg.data(), n);
  err[n] = '\0';
}

}  // namespace

extern "C" int braid_presets_load(const char* path, braid_presets** out, char* err, size_t err_len) {
  if (out == nullptr) {
    CopyOut("braid_presets_load: out is NULL", err, err_len);
    return -1;
  }
  *out = nullptr;
  if (path == nullptr) {
    CopyOut("braid_presets_load: path is NULL", err, err_len);
    return -1;
  }
  try {
    auto t = braid::PresetTable::Load(path);
    if (!t.ok()) {
      CopyOut(t.status().message(), err, err_len);
      return 1;
    }
    *out = new braid_presets{std::move(*t)};
  } catch (const std::bad_alloc&) {
    CopyOut("braid_presets_load: out of memory", err, err_len);
    return 1;
  }
  CopyOut("", err, err_len);
  return 0;
}

extern "C" void braid_presets_free(braid_presets* presets) { delete presets; }

extern "C" int braid_preset_lookup(const braid_presets* presets, const char* gpu, const char* topology,
                                   const char* op, const char* dtype, int64_t m, int64_t n, int64_t k, int tp,
                                   braid_preset_config* out) {
  if (out == nullptr) return -1;
  *out = braid_preset_config{};
  out->match = BRAID_PRESET_NONE;
  if (presets == nullptr || gpu == nullptr || topology == nullptr || op == nullptr || dtype == nullptr) return -1;
  auto o = braid::ParseOp(op);
  auto d = braid::ParseDType(dtype);
  if (!o.ok() || !d.ok()) return -1;
  braid::Workload w;
  w.op = *o;
  w.dtype = *d;
  w.m = m;
  w.n = n;
  w.k = k;
  w.tp = tp;
  const braid::LookupResult r = presets->table.Lookup(w, gpu, topology);
  if (r.preset == nullptr) return 1;
  const braid::OverlapConfig& c = r.preset->config;
  CopyOut(braid::AlgorithmName(c.algorithm), out->algorithm, sizeof out->algorithm);
  out->chunks = c.chunks;
  out->streams = c.comm_lanes;
  out->comm_sms = c.comm_sms;
  out->comm_engine = c.comm_engine == braid::CommEngine::kCopyEngine ? 1 : 0;
  out->comm_high_priority = c.comm_high_priority ? 1 : 0;
  out->time_ns = r.preset->time_ns;
  out->match = r.match == braid::PresetMatch::kExact ? BRAID_PRESET_EXACT : BRAID_PRESET_NEAREST;
  return 0;
}
