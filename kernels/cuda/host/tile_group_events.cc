#include "braid/tile_group_events.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "braid/cuda_step_events.h"

namespace braid::cuda {

bool IsCoreGemmKernel(std::string_view record_name) {
  return record_name.find("GemmSm80Kernel") != std::string_view::npos ||
         record_name.find("GemmSm90Kernel") != std::string_view::npos;
}

bool IsTileGroupEvent(const Event& e) { return e.name.find("/tiles.") != std::string::npos; }

namespace {

// %globaltimer counts nanoseconds since the epoch: 2^62 is 146 years away,
// and below it every sum here fits int64_t. Past it a stamp is garbage.
constexpr uint64_t kStampLimit = uint64_t(1) << 62;

bool Stamped(const TileGroupReading& g) { return g.first_start_ns <= g.last_end_ns && g.last_end_ns < kStampLimit; }

using LaunchKey = std::tuple<int, int, int>;  // (iteration, rank, step)

std::string GroupName(const Step& s, const TileGroupReading& g) {
  if (g.reduce_scatter) return s.name + "/tiles.to" + std::to_string(g.group);
  std::string name = s.name + "/tiles.s" + std::to_string(g.group);
  if (g.source >= 0) name += ".r" + std::to_string(g.source);
  return name;
}

}  // namespace

void AddTileGroupEvents(const Plan& plan, const std::vector<Event>& records,
                        const std::vector<TileGroupReading>& readings, std::vector<Event>& events) {
  if (readings.empty()) return;
  std::map<LaunchKey, const Event*> kernel;
  for (const Event& rec : records) {
    if (rec.correlation < 0 || !IsCoreGemmKernel(rec.name)) continue;
    const StepKey key = DecodeCorrelation(uint64_t(rec.correlation));
    if (key.iteration < 0) continue;
    // A step issues one core launch; a second record would be a replay: keep the first.
    kernel.try_emplace({key.iteration, key.rank, key.step}, &rec);
  }
  // Each launch's stamps span [first, last] on the GPU's clock.
  std::map<LaunchKey, std::pair<uint64_t, uint64_t>> span;
  for (const TileGroupReading& g : readings) {
    if (!Stamped(g)) continue;
    auto [at, fresh] = span.try_emplace({g.iteration, g.rank, g.step}, g.first_start_ns, g.last_end_ns);
    if (!fresh) {
      at->second.first = std::min(at->second.first, g.first_start_ns);
      at->second.second = std::max(at->second.second, g.last_end_ns);
    }
  }
  for (const TileGroupReading& g : readings) {
    if (!Stamped(g) || g.rank < 0 || g.rank >= plan.tp()) continue;
    const RankPlan& rp = plan.ranks[size_t(g.rank)];
    if (g.step < 0 || size_t(g.step) >= rp.steps.size()) continue;
    const LaunchKey key{g.iteration, g.rank, g.step};
    auto k = kernel.find(key);
    if (k == kernel.end()) continue;
    const Event& rec = *k->second;
    const auto [first, last] = span.at(key);
    // The stamps are %globaltimer, the record the tracer's clock: the
    // offset that leaves equal gaps before the first tile and after the last.
    const int64_t stamped = int64_t(last - first), ran = rec.end_ns - rec.start_ns;
    const int64_t offset = rec.start_ns + (ran - stamped) / 2 - int64_t(first);
    Event e;
    const Step& s = rp.steps[size_t(g.step)];
    e.iteration = g.iteration;
    e.rank = g.rank;
    e.lane = s.lane;
    e.kind = EventKind::kCompute;
    e.name = GroupName(s, g);
    e.start_ns = std::clamp(int64_t(g.first_start_ns) + offset, rec.start_ns, rec.end_ns);
    e.end_ns = std::clamp(int64_t(g.last_end_ns) + offset, e.start_ns, rec.end_ns);
    e.chunk = g.group;
    e.peer = g.reduce_scatter ? g.group : g.source;
    events.push_back(std::move(e));
  }
  // A step's event before its groups' where they start together.
  std::stable_sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return std::tie(x.iteration, x.rank, x.start_ns, x.lane) < std::tie(y.iteration, y.rank, y.start_ns, y.lane);
  });
}

}  // namespace braid::cuda
