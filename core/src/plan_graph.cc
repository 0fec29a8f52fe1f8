// Building the plan graph: step checks, send/recv pairing, collective groups
// and the dependents lists. The order lives in plan_graph_order.cc.
#include "braid/plan_graph.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "plan_text.h"

namespace braid {

Result<PlanGraph> PlanGraph::Build(const Plan& plan, PlanGraphOptions options) {
  PlanGraph g;
  BRAID_RETURN_IF_ERROR(g.Rebuild(plan, options));
  return g;
}

Status PlanGraph::Rebuild(const Plan& plan, PlanGraphOptions options) {
  Status st = Scan(plan);
  if (st.ok()) st = PairTransfers(plan);
  if (st.ok()) st = GroupCollectives(plan);
  if (st.ok()) FillDependents();
  if (st.ok() && options.order) st = Order(plan);
  if (!options.order) order_.clear();
  if (!st.ok()) Clear();
  return st;
}

void PlanGraph::Clear() {
  first_.clear();
  rank_of_.clear();
  partner_.clear();
  group_of_.clear();
  group_off_.clear();
  group_steps_.clear();
  dep_off_.clear();
  dependents_.clear();
  in_degree_.clear();
  cross_lane_deps_.clear();
  order_.clear();
}

namespace {

// The first per-step rule that `s` breaks, in the rules' fixed order.
Status StepError(const Plan& plan, int rank, size_t index, const Step& s) {
  if (!StepIdValid(index, s)) return StepIdError(rank, index, s);
  if (!StepDepsValid(s)) return StepDepsError(rank, s);
  if (!StepLaneValid(plan, s)) return StepLaneError(plan, rank, s);
  if (!StepPeerValid(plan, s)) return StepPeerError(plan, rank, s);
  return Status::Internal("plan graph: " + StepRef(rank, s) + " refused for no reason found");
}

}  // namespace

// One pass over the steps, tight because the sim loads a plan per
// evaluation: the per-step rules (their worded errors only on failure),
// in-degrees, cross-lane deps, dependency edges (counted in dep_off_), and
// the ends that pairing and grouping need. Arrays are sized first and written
// through local pointers: the loop makes no calls but on its error paths.
Status PlanGraph::Scan(const Plan& plan) {
  const int p = plan.tp();
  if (p < 1) return Status::Invalid("plan has no ranks");
  first_.resize(size_t(p) + 1);
  first_[0] = 0;
  size_t max_edges = 0;  // every dep, and a lane predecessor
  for (int r = 0; r < p; ++r) {
    const std::vector<Step>& steps = plan.ranks[size_t(r)].steps;
    first_[size_t(r) + 1] = first_[size_t(r)] + int(steps.size());
    for (const Step& s : steps) max_edges += s.deps.size() + 1;
  }
  const size_t n = size_t(first_.back());
  const unsigned lanes = unsigned(plan.lanes.size());
  rank_of_.resize(n);
  in_degree_.resize(n);
  cross_lane_deps_.resize(n);
  lane_of_.resize(n);
  dep_off_.assign(n + 1, 0);
  if (edges_.size() < max_edges) edges_.resize(max_edges);
  if (sends_.size() < n) sends_.resize(n);
  if (recvs_.size() < n) recvs_.resize(n);
  if (colls_.size() < n) colls_.resize(n);
  int* rank_of = rank_of_.data();
  int* in_degree = in_degree_.data();
  int* cross_lane = cross_lane_deps_.data();
  int* lane_of = lane_of_.data();
  int* count = dep_off_.data() + 1;  // step g's count at g + 1: summed, the lists' starts
  std::pair<int, int>* edges = edges_.data();
  Endpoint *sends = sends_.data(), *recvs = recvs_.data(), *colls = colls_.data();
  size_t edge_n = 0, send_n = 0, recv_n = 0, coll_n = 0;
  for (int r = 0; r < p; ++r) {
    const std::vector<Step>& steps = plan.ranks[size_t(r)].steps;
    const int base = first_[size_t(r)];
    std::fill(rank_of + base, rank_of + base + int(steps.size()), r);
    lane_last_.assign(lanes, -1);
    int* lane_last = lane_last_.data();
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      const int id = s.id, lane = s.lane, deps = int(s.deps.size());
      if (id != int(i) || unsigned(lane) >= lanes) return StepError(plan, r, i, s);
      const int g = base + id;
      int cross = 0;
      for (int d : s.deps) {
        if (unsigned(d) >= unsigned(id)) return StepError(plan, r, i, s);
        edges[edge_n++] = {base + d, g};
        ++count[base + d];
        cross += lane_of[base + d] != lane;
      }
      const int prev = lane_last[lane];
      if (prev >= 0) {
        edges[edge_n++] = {prev, g};
        ++count[prev];
      }
      lane_last[lane] = g;
      lane_of[g] = lane;
      in_degree[g] = deps + (prev >= 0 ? 1 : 0);
      cross_lane[g] = cross;
      if (s.kind == StepKind::kSend) {
        if (unsigned(s.peer) >= unsigned(p)) return StepError(plan, r, i, s);
        sends[send_n++] = {s.match, r, s.peer, g};
      } else if (s.kind == StepKind::kRecv) {
        if (unsigned(s.peer) >= unsigned(p)) return StepError(plan, r, i, s);
        recvs[recv_n++] = {s.match, s.peer, r, g};
      } else if (s.kind == StepKind::kCollective || s.kind == StepKind::kFused) {
        colls[coll_n++] = {s.match, r, r, g};
      }
    }
  }
  edge_n_ = edge_n;
  send_n_ = send_n;
  recv_n_ = recv_n;
  coll_n_ = coll_n;
  return Status::Ok();
}

// Pairs through an open-addressing table of the sends keyed on (match,
// sender, receiver): linear in the steps, which the sim's per-evaluation load
// needs. Any problem is then explained by ExplainPairingError.
Status PlanGraph::PairTransfers(const Plan& plan) {
  partner_.assign(rank_of_.size(), -1);
  size_t cap = 16;
  while (cap < 2 * send_n_) cap *= 2;
  table_.assign(cap, -1);
  int* table = table_.data();
  int* partner = partner_.data();
  const Endpoint* sends = sends_.data();
  const auto slot = [cap](const Endpoint& k) {
    uint64_t h = uint64_t(k.match) * 0x9E3779B97F4A7C15ull ^ (uint64_t(uint32_t(k.src)) << 32 | uint32_t(k.dst));
    h ^= h >> 29;
    return size_t(h * 0xBF58476D1CE4E5B9ull >> 7) & (cap - 1);
  };
  const auto same = [](const Endpoint& x, const Endpoint& y) {
    return x.match == y.match && x.src == y.src && x.dst == y.dst;
  };
  for (size_t i = 0; i < send_n_; ++i) {
    size_t at = slot(sends[i]);
    for (; table[at] >= 0; at = (at + 1) & (cap - 1)) {
      if (same(sends[table[at]], sends[i])) return ExplainPairingError(plan);
    }
    table[at] = int(i);
  }
  for (size_t i = 0; i < recv_n_; ++i) {
    const Endpoint& k = recvs_[i];
    int send = -1;
    for (size_t at = slot(k); table[at] >= 0; at = (at + 1) & (cap - 1)) {
      if (same(sends[table[at]], k)) {
        send = sends[table[at]].g;
        break;
      }
    }
    if (send < 0 || partner[send] >= 0) return ExplainPairingError(plan);
    partner[send] = k.g;
    partner[k.g] = send;
  }
  // Sends are distinct and each recv took its own: equal counts leave no
  // send alone.
  if (recv_n_ != send_n_) return ExplainPairingError(plan);
  return Status::Ok();
}

// The first pairing problem in a fixed order, whatever order the table met
// them in: a second send with one key, a second recv, then (in key order) a
// send without its recv, a recv without its send.
Status PlanGraph::ExplainPairingError(const Plan& plan) const {
  struct End {
    int from, to;
    int64_t match;
    int id;  // step id on its own rank
    bool KeyLess(const End& o) const { return std::tie(from, to, match) < std::tie(o.from, o.to, o.match); }
    bool SameKey(const End& o) const { return from == o.from && to == o.to && match == o.match; }
  };
  std::vector<End> sends, recvs;
  for (int r = 0; r < ranks(); ++r) {
    for (const Step& s : plan.ranks[size_t(r)].steps) {
      if (s.kind == StepKind::kSend) sends.push_back({r, s.peer, s.match, s.id});
      if (s.kind == StepKind::kRecv) recvs.push_back({s.peer, r, s.match, s.id});
    }
  }
  auto less = [](const End& x, const End& y) { return x.KeyLess(y) || (x.SameKey(y) && x.id < y.id); };
  std::sort(sends.begin(), sends.end(), less);
  std::sort(recvs.begin(), recvs.end(), less);
  auto step = [&](int rank, int id) -> const Step& { return plan.ranks[size_t(rank)].steps[size_t(id)]; };
  for (size_t i = 1; i < sends.size(); ++i) {
    if (sends[i].SameKey(sends[i - 1])) {
      const End& x = sends[i];
      return Status::Invalid(StepRef(x.from, step(x.from, x.id)) + ": a second send to rank " + std::to_string(x.to) +
                             " with match " + std::to_string(x.match));
    }
  }
  for (size_t i = 1; i < recvs.size(); ++i) {
    if (recvs[i].SameKey(recvs[i - 1])) {
      const End& x = recvs[i];
      return Status::Invalid(StepRef(x.to, step(x.to, x.id)) + ": a second recv from rank " + std::to_string(x.from) +
                             " with match " + std::to_string(x.match));
    }
  }
  // Merge the two sorted lists: every key must appear in both.
  const End* lone_recv = nullptr;
  size_t i = 0, j = 0;
  while (i < sends.size() || j < recvs.size()) {
    const bool send_alone = j == recvs.size() || (i < sends.size() && sends[i].KeyLess(recvs[j]));
    const bool recv_alone = !send_alone && (i == sends.size() || recvs[j].KeyLess(sends[i]));
    if (send_alone) {
      const End& x = sends[i++];
      std::string hint;
      for (const End& y : recvs) {
        if (y.to == x.to && y.match == x.match) {
          hint = "; " + StepRef(y.to, step(y.to, y.id)) + " has that match but names peer " + std::to_string(y.from);
          break;
        }
      }
      return Status::Invalid(StepRef(x.from, step(x.from, x.id)) + ": no matching recv on rank " +
                             std::to_string(x.to) + " (match " + std::to_string(x.match) + ")" + hint);
    }
    if (recv_alone) {
      if (lone_recv == nullptr) lone_recv = &recvs[j];
      ++j;
    } else {
      ++i;
      ++j;
    }
  }
  if (lone_recv != nullptr) {
    const End& y = *lone_recv;
    return Status::Invalid(StepRef(y.to, step(y.to, y.id)) + ": no matching send on rank " + std::to_string(y.from) +
                           " (match " + std::to_string(y.match) + ")");
  }
  return Status::Internal("plan graph: send/recv pairing failed for no reason found");
}

Status PlanGraph::GroupCollectives(const Plan& plan) {
  group_of_.assign(rank_of_.size(), -1);
  group_off_.clear();
  group_steps_.clear();
  const std::span<Endpoint> colls(colls_.data(), coll_n_);
  std::sort(colls.begin(), colls.end(), [](const Endpoint& a, const Endpoint& b) {
    return std::tie(a.match, a.src, a.g) < std::tie(b.match, b.src, b.g);
  });
  auto step = [&](const Endpoint& e) -> const Step& { return plan.ranks[size_t(e.src)].steps[size_t(id_of(e.g))]; };
  // A match twice on one rank: the first such step in rank and id order.
  size_t dup = 0;
  for (size_t i = 1; i < colls.size(); ++i) {
    if (colls[i].match == colls[i - 1].match && colls[i].src == colls[i - 1].src &&
        (dup == 0 || colls[i].g < colls[dup].g)) {
      dup = i;
    }
  }
  if (dup > 0) {
    const Endpoint& e = colls[dup];
    return Status::Invalid(StepRef(e.src, step(e)) + ": collective match " + std::to_string(e.match) +
                           " appears twice on the rank (also step " + std::to_string(id_of(colls[dup - 1].g)) + ")");
  }
  for (size_t lo = 0, hi = 0; lo < colls.size(); lo = hi) {
    const int64_t match = colls[lo].match;
    while (hi < colls.size() && colls[hi].match == match) ++hi;
    const int first = colls[lo].src;
    const Step& s0 = step(colls[lo]);
    for (int r = 0; r < ranks(); ++r) {
      const size_t at = lo + size_t(r);
      if (at >= hi || colls[at].src != r) {
        return Status::Invalid("collective " + s0.name + " match " + std::to_string(match) + " (" + StepRef(first, s0) +
                               ") is missing on rank " + std::to_string(r));
      }
      const Step& s = step(colls[at]);
      if (s.kind != s0.kind) {
        return Status::Invalid(StepRef(r, s) + ": match " + std::to_string(match) + " is a " +
                               std::string(StepKindName(s.kind)) + " step here but a " +
                               std::string(StepKindName(s0.kind)) + " step on " + StepRef(first, s0));
      }
      if (s.collective != s0.collective) {
        return Status::Invalid(StepRef(r, s) + ": collective match " + std::to_string(match) + " is " +
                               std::string(CollectiveName(s.collective)) + " here but " +
                               std::string(CollectiveName(s0.collective)) + " on " + StepRef(first, s0));
      }
    }
    // Ranks 0..P-1 each once, so hi == lo + P.
    const int c = int(group_off_.size());  // groups() counts closed groups only
    group_off_.push_back(int(group_steps_.size()));
    for (size_t i = lo; i < hi; ++i) {
      group_steps_.push_back(colls[i].g);
      group_of_[size_t(colls[i].g)] = c;
    }
  }
  group_off_.push_back(int(group_steps_.size()));
  return Status::Ok();
}

// Dependents in CSR form from the edge list, which runs in the order each
// list must keep (step by step: its deps, then its lane edge).
void PlanGraph::FillDependents() {
  const size_t n = rank_of_.size();
  int* off = dep_off_.data();
  for (size_t g = 1; g <= n; ++g) off[g] += off[g - 1];
  dependents_.resize(edge_n_);
  cursor_.assign(dep_off_.begin(), dep_off_.end() - 1);
  int* cursor = cursor_.data();
  int* dependents = dependents_.data();
  const std::pair<int, int>* edges = edges_.data();
  for (size_t e = 0; e < edge_n_; ++e) dependents[cursor[edges[e].first]++] = edges[e].second;
}

}  // namespace braid
