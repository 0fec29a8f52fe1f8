// The C API: a thin wrapper over PresetTable that never lets an exception
// or a C++ type cross the boundary.
#include <algorithm>
#include <cstring>
#include <new>

#include "braid/backend_kind.h"
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

namespace {

// The workload of a C query; false for a null or unknown op or dtype.
bool QueryWorkload(const char* op, const char* dtype, int64_t m, int64_t n, int64_t k, int tp, braid::Workload* w) {
  if (op == nullptr || dtype == nullptr) return false;
  auto o = braid::ParseOp(op);
  auto d = braid::ParseDType(dtype);
  if (!o.ok() || !d.ok()) return false;
  w->op = *o;
  w->dtype = *d;
  w->m = m;
  w->n = n;
  w->k = k;
  w->tp = tp;
  return true;
}

// The size of braid_preset_entry's first version: the smallest a caller may pass.
constexpr size_t kEntryV1Size = sizeof(braid_preset_entry);

}  // namespace

extern "C" int braid_preset_find(const braid_presets* presets, const char* gpu, const char* topology,
                                 const char* backend, const char* op, const char* dtype, int64_t m, int64_t n,
                                 int64_t k, int tp, braid_preset_entry* out) {
  return braid_preset_find_pass(presets, gpu, topology, backend, "fprop", op, dtype, m, n, k, tp, out);
}

extern "C" int braid_preset_find_pass(const braid_presets* presets, const char* gpu, const char* topology,
                                      const char* backend, const char* pass, const char* op, const char* dtype,
                                      int64_t m, int64_t n, int64_t k, int tp, braid_preset_entry* out) {
  if (out == nullptr || out->struct_size < kEntryV1Size) return -1;
  const size_t caller_size = out->struct_size;
  braid_preset_entry e{};
  e.struct_size = uint32_t(std::min(caller_size, sizeof e));
  e.match = BRAID_PRESET_NONE;
  auto finish = [&](int rc) {
    std::memcpy(out, &e, std::min(caller_size, sizeof e));
    return rc;
  };
  braid::Workload w;
  if (presets == nullptr || gpu == nullptr || topology == nullptr || !QueryWorkload(op, dtype, m, n, k, tp, &w)) {
    return finish(-1);
  }
  const std::string_view b = backend == nullptr ? "" : backend;
  if (!b.empty() && !braid::BackendKindNamed(b)) return finish(-1);
  const auto parsed_pass = braid::ParsePass(pass == nullptr || *pass == '\0' ? "fprop" : pass);
  if (!parsed_pass.ok()) return finish(-1);
  const braid::LookupResult r = presets->table.Lookup(w, gpu, topology, b, *parsed_pass);
  if (r.preset == nullptr) return finish(1);
  const braid::OverlapConfig& c = r.preset->config;
  CopyOut(braid::AlgorithmName(c.algorithm), e.algorithm, sizeof e.algorithm);
  e.chunks = c.chunks;
  e.num_splits = int(c.splits.size());
  for (size_t i = 0; i < c.splits.size() && i < BRAID_PRESET_MAX_SPLITS; ++i) e.splits[i] = c.splits[i];
  e.streams = c.comm_lanes;
  e.comm_sms = c.comm_sms;
  e.comm_engine = c.comm_engine == braid::CommEngine::kCopyEngine ? 1 : 0;
  e.comm_high_priority = c.comm_high_priority ? 1 : 0;
  e.time_ns = r.preset->time_ns;
  e.distance = r.distance;
  CopyOut(r.preset->backend, e.backend, sizeof e.backend);
  CopyOut(braid::DTypeName(braid::CommDType(r.preset->key.workload, c)), e.comm_dtype, sizeof e.comm_dtype);
  e.sm_margin = c.sm_margin ? 1 : 0;
  e.wgrad_comm_sms = c.wgrad_comm_sms;
  e.match = r.match == braid::PresetMatch::kExact ? BRAID_PRESET_EXACT : BRAID_PRESET_NEAREST;
  return finish(0);
}

extern "C" int braid_preset_lookup(const braid_presets* presets, const char* gpu, const char* topology, const char* op,
                                   const char* dtype, int64_t m, int64_t n, int64_t k, int tp,
                                   braid_preset_config* out) {
  if (out == nullptr) return -1;
  *out = braid_preset_config{};
  out->match = BRAID_PRESET_NONE;
  braid::Workload w;
  if (presets == nullptr || gpu == nullptr || topology == nullptr || !QueryWorkload(op, dtype, m, n, k, tp, &w)) {
    return -1;
  }
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

extern "C" int braid_dp_preset_find(const braid_presets* presets, const char* gpu, const char* topology,
                                    const char* backend, const char* model, int64_t tokens, int tp, int dp,
                                    const char* zero, const char* dtype, braid_dp_preset_entry* out) {
  if (out == nullptr || out->struct_size < sizeof(braid_dp_preset_entry)) return -1;
  braid_dp_preset_entry e{};
  e.struct_size = uint32_t(sizeof e);
  auto finish = [&](int rc) {
    *out = e;
    return rc;
  };
  if (presets == nullptr || gpu == nullptr || topology == nullptr || model == nullptr || zero == nullptr ||
      dtype == nullptr) {
    return finish(-1);
  }
  const std::string_view b = backend == nullptr ? "" : backend;
  if (!b.empty() && !braid::BackendKindNamed(b)) return finish(-1);
  const auto z = braid::ParseZeroStage(zero);
  const auto d = braid::ParseDType(dtype);
  if (!z.ok() || !d.ok()) return finish(-1);
  const braid::DpPresetKey key{gpu, topology, model, tokens, tp, dp, *z, *d};
  const braid::DpPreset* p = presets->table.LookupDp(key, b);
  if (p == nullptr) return finish(1);
  CopyOut(braid::DpScheduleName(p->schedule), e.schedule, sizeof e.schedule);
  e.bucket_params = p->bucket_params;
  e.decomposed_layers = p->decomposed_layers;
  CopyOut(braid::AlgorithmName(p->decomposition), e.decomposition, sizeof e.decomposition);
  e.decomposition_chunks = p->decomposition_chunks;
  e.prefetch = p->prefetch;
  e.comm_sms = p->comm_sms;
  e.step_ns = p->step_ns;
  e.speedup_vs_megatron = p->speedup_vs_megatron;
  CopyOut(p->backend, e.backend, sizeof e.backend);
  return finish(0);
}
