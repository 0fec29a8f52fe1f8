// PresetTable: presets indexed at load time by (gpu, topology, tp, op, dtype,
// backend), with log sizes precomputed: an exact lookup is two hash probes, a nearest
// one a pruned scan of one group.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

#include "braid/backend_kind.h"
#include "braid/presets.h"

namespace braid {

std::string_view PresetMatchName(PresetMatch m) {
  switch (m) {
    case PresetMatch::kExact:
      return "exact";
    case PresetMatch::kNearest:
      return "nearest";
    case PresetMatch::kNone:
      return "none";
  }
  return "none";
}

namespace {

struct Shape {
  int64_t m, n, k;
  bool operator==(const Shape& o) const { return m == o.m && n == o.n && k == o.k; }
};

struct ShapeHash {
  size_t operator()(const Shape& s) const {
    uint64_t h = uint64_t(s.m) * 0x9E3779B97F4A7C15ull;
    h ^= uint64_t(s.n) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
    h ^= uint64_t(s.k) + 0x94D049BB133111EBull + (h << 6) + (h >> 2);
    return size_t(h);
  }
};

// The entries of one (gpu, topology, tp, op, dtype, backend), sorted by (ln M, file
// order) so that the nearest-shape search can start at the query's ln M and
// stop once ln M alone is farther than the best distance found.
struct Entries {
  std::vector<double> lm, ln, lk;                        // natural logs of M, N, K
  std::vector<uint32_t> index;                           // into presets
  std::unordered_map<Shape, uint32_t, ShapeHash> exact;  // shape -> first index
};

// Key of a group: "gpu\0topology\0tp\0" + op + dtype + pass; its backends are
// slots inside it, so a lookup is one hash probe whatever it asks for.
void GroupKey(std::string& out, std::string_view gpu, std::string_view topology, const Workload& w, Pass pass) {
  out.clear();
  out.append(gpu).push_back('\0');
  out.append(topology).push_back('\0');
  out.append(std::to_string(w.tp)).push_back('\0');
  out.push_back(char('0' + int(w.op)));
  out.push_back(char('0' + int(w.dtype)));
  out.push_back(char('0' + int(pass)));
}

// Slot of a backend in a group (its BackendKind); -1 for a name no entry can have.
int BackendSlot(std::string_view backend) {
  const std::optional<BackendKind> kind = BackendKindNamed(backend);
  return kind ? static_cast<int>(*kind) : -1;
}

// Orders `e` by (ln M, file order) and fills ln N, ln K to match.
void SortByLogM(Entries& e, const std::vector<Preset>& presets) {
  std::vector<size_t> order(e.index.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return e.lm[a] != e.lm[b] ? e.lm[a] < e.lm[b] : e.index[a] < e.index[b]; });
  std::vector<double> lm;
  std::vector<uint32_t> index;
  for (size_t o : order) {
    const Workload& w = presets[e.index[o]].key.workload;
    lm.push_back(e.lm[o]);
    e.ln.push_back(std::log(double(w.n)));
    e.lk.push_back(std::log(double(w.k)));
    index.push_back(e.index[o]);
  }
  e.lm = std::move(lm);
  e.index = std::move(index);
}

}  // namespace

struct PresetTable::Index {
  std::vector<Preset> presets;
  std::vector<DpPreset> dp_presets;  // few: looked up by a scan
  struct Group {
    Entries by_backend[3];  // BackendSlot order, BackendKind's: sim, cpu, cuda
  };
  std::unordered_map<std::string, Group> groups;
};

PresetTable::PresetTable() : index_(std::make_unique<Index>()) {}
PresetTable::PresetTable(PresetTable&&) noexcept = default;
PresetTable& PresetTable::operator=(PresetTable&&) noexcept = default;
PresetTable::~PresetTable() = default;

PresetTable PresetTable::FromFile(PresetFile file) {
  PresetTable t;
  t.index_->presets = std::move(file.presets);
  t.index_->dp_presets = std::move(file.dp_presets);
  std::string key;
  for (size_t i = 0; i < t.index_->presets.size(); ++i) {
    const Preset& p = t.index_->presets[i];
    const Workload& w = p.key.workload;
    const int slot = BackendSlot(p.backend);
    if (slot < 0) continue;  // the parser admits none; an in-memory file might
    GroupKey(key, p.key.gpu, p.key.topology, w, p.key.pass);
    Entries& e = t.index_->groups[key].by_backend[slot];
    e.lm.push_back(std::log(double(w.m)));
    e.index.push_back(uint32_t(i));
    e.exact.emplace(Shape{w.m, w.n, w.k}, uint32_t(i));  // keeps the first
  }
  for (auto& [name, group] : t.index_->groups) {
    for (Entries& e : group.by_backend) SortByLogM(e, t.index_->presets);
  }
  return t;
}

Result<PresetTable> PresetTable::Parse(std::string_view text, std::string_view origin) {
  BRAID_ASSIGN_OR_RETURN(auto f, ParsePresetFile(text, origin));
  return FromFile(std::move(f));
}

Result<PresetTable> PresetTable::Load(const std::string& path) {
  BRAID_ASSIGN_OR_RETURN(auto f, LoadPresetFile(path));
  return FromFile(std::move(f));
}

size_t PresetTable::size() const { return index_->presets.size(); }
const std::vector<Preset>& PresetTable::presets() const { return index_->presets; }
const std::vector<DpPreset>& PresetTable::dp_presets() const { return index_->dp_presets; }

const DpPreset* PresetTable::LookupDp(const DpPresetKey& key, std::string_view backend) const {
  const DpPreset* best = nullptr;
  for (const DpPreset& p : index_->dp_presets) {
    if (!(p.key == key)) continue;
    if (backend.empty() ? IsBackend(p.backend, BackendKind::kCpu) : p.backend != backend) continue;
    if (best == nullptr ||
        (IsBackend(p.backend, BackendKind::kCuda) && !IsBackend(best->backend, BackendKind::kCuda))) {
      best = &p;
    }
  }
  return best;
}

namespace {

// The entry of `e` exactly at (m, n, k), or else the nearest in log space;
// kNone when `e` is empty.
LookupResult LookupIn(const Entries& e, const std::vector<Preset>& presets, const Workload& w) {
  LookupResult r;
  auto hit = e.exact.find(Shape{w.m, w.n, w.k});
  if (hit != e.exact.end()) {
    r.match = PresetMatch::kExact;
    r.preset = &presets[hit->second];
    return r;
  }
  const double lm = std::log(double(w.m)), ln = std::log(double(w.n)), lk = std::log(double(w.k));
  long best = -1;
  double best_d2 = std::numeric_limits<double>::infinity();
  auto consider = [&](size_t i) {
    const double dm = e.lm[i] - lm, dn = e.ln[i] - ln, dk = e.lk[i] - lk;
    const double d2 = dm * dm + dn * dn + dk * dk;
    if (d2 < best_d2 || (d2 == best_d2 && e.index[i] < e.index[size_t(best)])) {
      best_d2 = d2;
      best = long(i);
    }
  };
  // Equal distances go to the earlier entry in the file.
  const size_t start = size_t(std::lower_bound(e.lm.begin(), e.lm.end(), lm) - e.lm.begin());
  for (size_t i = start; i < e.lm.size() && (e.lm[i] - lm) * (e.lm[i] - lm) <= best_d2; ++i) consider(i);
  for (size_t i = start; i > 0 && (lm - e.lm[i - 1]) * (lm - e.lm[i - 1]) <= best_d2; --i) consider(i - 1);
  if (best < 0) return r;
  r.match = PresetMatch::kNearest;
  r.preset = &presets[e.index[size_t(best)]];
  r.distance = std::sqrt(best_d2);
  return r;
}

}  // namespace

LookupResult PresetTable::Lookup(const Workload& w, std::string_view gpu, std::string_view topology,
                                 std::string_view backend, Pass pass) const {
  LookupResult best;
  if (w.m < 1 || w.n < 1 || w.k < 1) return best;
  // In order of preference at equal match: a real measurement first.
  static constexpr int kGpuSlots[] = {static_cast<int>(BackendKind::kCuda), static_cast<int>(BackendKind::kSim)};
  const int asked[] = {BackendSlot(backend)};
  if (!backend.empty() && asked[0] < 0) return best;
  const auto slots = backend.empty() ? std::span<const int>(kGpuSlots) : std::span<const int>(asked);
  thread_local std::string key;  // reused: no allocation per lookup
  GroupKey(key, gpu, topology, w, pass);
  auto it = index_->groups.find(key);
  if (it == index_->groups.end()) return best;
  for (int slot : slots) {
    const LookupResult r = LookupIn(it->second.by_backend[slot], index_->presets, w);
    if (r.match == PresetMatch::kNone) continue;
    const bool better = best.match == PresetMatch::kNone ||
                        (r.match == PresetMatch::kExact && best.match != PresetMatch::kExact) ||
                        (r.match == best.match && r.distance < best.distance);
    if (better) best = r;
  }
  return best;
}

}  // namespace braid
