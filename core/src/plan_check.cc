#include "braid/plan_check.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace braid {

namespace {

std::string StepRef(int rank, const Step& s) {
  return "rank " + std::to_string(rank) + " step " + std::to_string(s.id) + " (" + s.name + ")";
}

std::string RegionText(const RankPlan& rp, const Region& g) {
  std::string out = "'" + rp.buffers[size_t(g.buffer)].name + "' rows " + std::to_string(g.row) +
                    "+" + std::to_string(g.rows);
  if (g.pieces != 1) {
    out += " x" + std::to_string(g.pieces) + " stride " + std::to_string(g.stride);
  }
  return out;
}

// Which regions a step reads and writes. A gemm also reads `b`, the whole B
// buffer.
bool Reads(StepKind k, char which) {
  switch (k) {
    case StepKind::kGemm: return which == 'a' || which == 'b';
    case StepKind::kSend: return which == 'a';
    case StepKind::kRecv: return false;
    case StepKind::kReduce: return which == 'a' || which == 'b';
    case StepKind::kCopy: return which == 'a';
    case StepKind::kCollective: return which == 'a';
    case StepKind::kCompute: return false;
    case StepKind::kFused: return which == 'a' || which == 'b';
  }
  return false;
}
bool Writes(StepKind k, char which) {
  return which == 'c' && k != StepKind::kSend && k != StepKind::kCompute;
}
bool Uses(StepKind k, char which) { return Reads(k, which) || Writes(k, which); }

const Region& RegionOf(const Step& s, char which) {
  return which == 'a' ? s.a : which == 'b' ? s.b : s.c;
}

int64_t Cols(const RankPlan& rp, const Region& g) { return rp.buffers[size_t(g.buffer)].cols; }
int64_t Elements(const RankPlan& rp, const Region& g) { return g.total_rows() * Cols(rp, g); }

// Calls f(i, row) for the i-th row of the region, in piece order.
template <typename F>
void ForRows(const Region& g, F&& f) {
  int64_t i = 0;
  for (int p = 0; p < g.pieces; ++p) {
    const int64_t base = g.piece_row(p);
    for (int64_t k = 0; k < g.rows; ++k) f(i++, base + k);
  }
}

Status CheckRegion(const RankPlan& rp, int r, const Step& s, char which) {
  const Region& g = RegionOf(s, which);
  auto what = [&] { return StepRef(r, s) + ": region " + std::string(1, which); };
  if (g.buffer < 0 || g.buffer >= int(rp.buffers.size())) {
    return Status::Invalid(what() + " names buffer " + std::to_string(g.buffer) + ", which rank " +
                           std::to_string(r) + " does not declare");
  }
  const BufferDecl& buf = rp.buffers[size_t(g.buffer)];
  if (g.rows < 1 || g.pieces < 1) {
    return Status::Invalid(what() + " " + RegionText(rp, g) + " is empty");
  }
  if (g.pieces > 1 && g.stride < g.rows) {
    return Status::Invalid(what() + " " + RegionText(rp, g) +
                           " has overlapping or descending pieces");
  }
  // Room after the first piece; later pieces need (pieces - 1) strides of it
  // (divided rather than multiplied, so that no size can overflow).
  const int64_t room = g.row < 0 || g.row > buf.rows ? -1 : buf.rows - g.row - g.rows;
  if (room < 0 || (g.pieces > 1 && int64_t(g.pieces - 1) > room / g.stride)) {
    return Status::Invalid(what() + " " + RegionText(rp, g) + " lies outside the buffer (" +
                           std::to_string(buf.rows) + " rows)");
  }
  return Status::Ok();
}

Status CheckShapes(const Plan& plan, const RankPlan& rp, int r, const Step& s) {
  auto who = [&] { return StepRef(r, s); };
  auto same = [&](const Region& x, const Region& y, const char* xn, const char* yn) -> Status {
    if (x.total_rows() != y.total_rows() || Cols(rp, x) != Cols(rp, y)) {
      return Status::Invalid(who() + ": " + xn + " is " + std::to_string(x.total_rows()) + "x" +
                             std::to_string(Cols(rp, x)) + " but " + yn + " is " +
                             std::to_string(y.total_rows()) + "x" + std::to_string(Cols(rp, y)));
    }
    return Status::Ok();
  };
  switch (s.kind) {
    case StepKind::kGemm: {
      const BufferDecl& b = rp.buffers[size_t(s.b.buffer)];
      if (s.b.row != 0 || s.b.pieces != 1 || s.b.rows != b.rows) {
        return Status::Invalid(who() + ": b must be the whole B buffer '" + b.name + "'");
      }
      if (s.a.total_rows() != s.c.total_rows()) {
        return Status::Invalid(who() + ": a has " + std::to_string(s.a.total_rows()) +
                               " rows but c has " + std::to_string(s.c.total_rows()));
      }
      if (Cols(rp, s.a) != b.rows) {
        return Status::Invalid(who() + ": a has " + std::to_string(Cols(rp, s.a)) +
                               " columns but B has " + std::to_string(b.rows) + " rows");
      }
      if (Cols(rp, s.c) != b.cols) {
        return Status::Invalid(who() + ": c has " + std::to_string(Cols(rp, s.c)) +
                               " columns but B has " + std::to_string(b.cols));
      }
      return Status::Ok();
    }
    case StepKind::kReduce:
      BRAID_RETURN_IF_ERROR(same(s.a, s.c, "a", "c"));
      return same(s.b, s.c, "b", "c");
    case StepKind::kCopy: return same(s.a, s.c, "a", "c");
    case StepKind::kCollective: {
      const int p = plan.tp();
      if (Cols(rp, s.a) != Cols(rp, s.c)) {
        return Status::Invalid(who() + ": a has " + std::to_string(Cols(rp, s.a)) +
                               " columns but c has " + std::to_string(Cols(rp, s.c)));
      }
      switch (s.collective) {
        case CollectiveKind::kAllGather:
          if (s.c.pieces != p || s.c.rows != s.a.total_rows()) {
            return Status::Invalid(who() + ": all_gather needs c = " + std::to_string(p) +
                                   " pieces of a's " + std::to_string(s.a.total_rows()) +
                                   " rows, got " + RegionText(rp, s.c));
          }
          break;
        case CollectiveKind::kReduceScatter:
          if (s.a.pieces != p || s.a.rows != s.c.total_rows()) {
            return Status::Invalid(who() + ": reduce_scatter needs a = " + std::to_string(p) +
                                   " pieces of c's " + std::to_string(s.c.total_rows()) +
                                   " rows, got " + RegionText(rp, s.a));
          }
          break;
        case CollectiveKind::kAllReduce: return same(s.a, s.c, "a", "c");
      }
      return Status::Ok();
    }
    case StepKind::kFused: {
      const int p = plan.tp();
      const BufferDecl& b = rp.buffers[size_t(s.b.buffer)];
      if (s.b.row != 0 || s.b.pieces != 1 || s.b.rows != b.rows) {
        return Status::Invalid(who() + ": b must be the whole B buffer '" + b.name + "'");
      }
      if (Cols(rp, s.a) != b.rows || Cols(rp, s.c) != b.cols) {
        return Status::Invalid(who() + ": a has " + std::to_string(Cols(rp, s.a)) + " columns and c " +
                               std::to_string(Cols(rp, s.c)) + " but B is " + std::to_string(b.rows) +
                               "x" + std::to_string(b.cols));
      }
      if (s.collective == CollectiveKind::kAllGather) {
        if (s.c.total_rows() != int64_t(p) * s.a.total_rows()) {
          return Status::Invalid(who() + ": a fused all_gather GEMM needs c = " + std::to_string(p) +
                                 " x a's " + std::to_string(s.a.total_rows()) + " rows, got " +
                                 RegionText(rp, s.c));
        }
      } else if (s.collective == CollectiveKind::kReduceScatter) {
        if (s.a.total_rows() != int64_t(p) * s.c.total_rows()) {
          return Status::Invalid(who() + ": a fused reduce_scatter GEMM needs a = " + std::to_string(p) +
                                 " x c's " + std::to_string(s.c.total_rows()) + " rows, got " +
                                 RegionText(rp, s.a));
        }
      } else {
        return Status::Invalid(who() + ": a fused step is all_gather or reduce_scatter, not " +
                               std::string(CollectiveName(s.collective)));
      }
      return Status::Ok();
    }
    case StepKind::kSend:
    case StepKind::kRecv:
    case StepKind::kCompute: return Status::Ok();
  }
  return Status::Ok();
}

// The global graph: one node per step, except that all instances of one
// collective (same match, one per rank) form a single node.
struct Graph {
  std::vector<size_t> offset;            // rank -> first global step index
  std::vector<int> node_of;              // global step index -> node
  std::vector<std::pair<int, int>> rep;  // node -> (rank, step id) of its first member
  std::vector<int> coll_of;              // node -> index into colls, or -1
  std::vector<std::vector<int>> colls;   // collective -> its step id on every rank
  std::vector<int> partner;              // global index of a recv -> global index of its send
  std::vector<int> order;                // nodes in a topological order
};

std::string NodeText(const Plan& plan, const Graph& g, int node) {
  const auto [r, id] = g.rep[size_t(node)];
  const Step& s = plan.ranks[size_t(r)].steps[size_t(id)];
  if (g.coll_of[size_t(node)] >= 0) {
    return "collective " + s.name + " match " + std::to_string(s.match) + " (all ranks)";
  }
  return StepRef(r, s);
}

// One end of a point-to-point transfer, keyed by (sender, receiver, match).
struct P2p {
  int from, to;
  int64_t match;
  int id;  // step id on its own rank
  bool KeyLess(const P2p& o) const {
    return std::tie(from, to, match) < std::tie(o.from, o.to, o.match);
  }
  bool SameKey(const P2p& o) const { return from == o.from && to == o.to && match == o.match; }
};

Status CheckP2p(const Plan& plan, Graph* graph) {
  const int p = plan.tp();
  std::vector<P2p> sends, recvs;
  for (int r = 0; r < p; ++r) {
    for (const Step& s : plan.ranks[size_t(r)].steps) {
      if (s.kind == StepKind::kSend) sends.push_back({r, s.peer, s.match, s.id});
      if (s.kind == StepKind::kRecv) recvs.push_back({s.peer, r, s.match, s.id});
    }
  }
  auto less = [](const P2p& x, const P2p& y) {
    return x.KeyLess(y) || (x.SameKey(y) && x.id < y.id);
  };
  std::sort(sends.begin(), sends.end(), less);
  std::sort(recvs.begin(), recvs.end(), less);
  for (size_t i = 1; i < sends.size(); ++i) {
    if (sends[i].SameKey(sends[i - 1])) {
      const P2p& x = sends[i];
      return Status::Invalid(StepRef(x.from, plan.ranks[size_t(x.from)].steps[size_t(x.id)]) +
                             ": a second send to rank " + std::to_string(x.to) + " with match " +
                             std::to_string(x.match));
    }
  }
  for (size_t i = 1; i < recvs.size(); ++i) {
    if (recvs[i].SameKey(recvs[i - 1])) {
      const P2p& x = recvs[i];
      return Status::Invalid(StepRef(x.to, plan.ranks[size_t(x.to)].steps[size_t(x.id)]) +
                             ": a second recv from rank " + std::to_string(x.from) +
                             " with match " + std::to_string(x.match));
    }
  }
  // Merge the two sorted lists: every key must appear in both.
  graph->partner.assign(graph->offset.back(), -1);
  Status send_error, recv_error;
  size_t i = 0, j = 0;
  while (i < sends.size() || j < recvs.size()) {
    const bool send_alone = j == recvs.size() || (i < sends.size() && sends[i].KeyLess(recvs[j]));
    const bool recv_alone = !send_alone && (i == sends.size() || recvs[j].KeyLess(sends[i]));
    if (send_alone) {
      const P2p& x = sends[i++];
      if (!send_error.ok()) continue;
      std::string hint;
      for (const P2p& y : recvs) {
        if (y.to == x.to && y.match == x.match) {
          hint = "; " + StepRef(y.to, plan.ranks[size_t(y.to)].steps[size_t(y.id)]) +
                 " has that match but names peer " + std::to_string(y.from);
          break;
        }
      }
      send_error = Status::Invalid(StepRef(x.from, plan.ranks[size_t(x.from)].steps[size_t(x.id)]) +
                                   ": no matching recv on rank " + std::to_string(x.to) +
                                   " (match " + std::to_string(x.match) + ")" + hint);
    } else if (recv_alone) {
      const P2p& y = recvs[j++];
      if (!recv_error.ok()) continue;
      recv_error = Status::Invalid(StepRef(y.to, plan.ranks[size_t(y.to)].steps[size_t(y.id)]) +
                                   ": no matching send on rank " + std::to_string(y.from) +
                                   " (match " + std::to_string(y.match) + ")");
    } else {
      const P2p& x = sends[i++];
      const P2p& y = recvs[j++];
      const RankPlan& rx = plan.ranks[size_t(x.from)];
      const RankPlan& ry = plan.ranks[size_t(y.to)];
      const Step& sd = rx.steps[size_t(x.id)];
      const Step& rv = ry.steps[size_t(y.id)];
      const int64_t sent = Elements(rx, sd.a), got = Elements(ry, rv.c);
      if (sent != got && send_error.ok()) {
        send_error = Status::Invalid(StepRef(x.from, sd) + " sends " + std::to_string(sent) +
                                     " elements but its recv " + StepRef(y.to, rv) + " takes " +
                                     std::to_string(got) + " elements");
      }
      graph->partner[graph->offset[size_t(y.to)] + size_t(y.id)] =
          int(graph->offset[size_t(x.from)] + size_t(x.id));
    }
  }
  BRAID_RETURN_IF_ERROR(send_error);
  return recv_error;
}

Status CheckCollectives(const Plan& plan, Graph* graph) {
  const int p = plan.tp();
  std::map<int64_t, size_t> index;  // match -> index into graph->colls
  auto& colls = graph->colls;
  colls.clear();
  for (int r = 0; r < p; ++r) {
    for (const Step& s : plan.ranks[size_t(r)].steps) {
      if (s.kind != StepKind::kCollective && s.kind != StepKind::kFused) continue;
      auto [it, fresh] = index.emplace(s.match, colls.size());
      if (fresh) colls.emplace_back(size_t(p), -1);
      auto& ids = colls[it->second];
      if (ids[size_t(r)] >= 0) {
        return Status::Invalid(StepRef(r, s) + ": collective match " + std::to_string(s.match) +
                               " appears twice on the rank (also step " +
                               std::to_string(ids[size_t(r)]) + ")");
      }
      ids[size_t(r)] = s.id;
    }
  }
  for (const auto& [match, at] : index) {
    const auto& ids = colls[at];
    int first = 0;
    while (ids[size_t(first)] < 0) ++first;
    const RankPlan& rp0 = plan.ranks[size_t(first)];
    const Step& s0 = rp0.steps[size_t(ids[size_t(first)])];
    for (int r = 0; r < p; ++r) {
      if (ids[size_t(r)] < 0) {
        return Status::Invalid("collective " + s0.name + " match " + std::to_string(match) + " (" +
                               StepRef(first, s0) + ") is missing on rank " + std::to_string(r));
      }
      const RankPlan& rp = plan.ranks[size_t(r)];
      const Step& s = rp.steps[size_t(ids[size_t(r)])];
      if (s.kind != s0.kind) {
        return Status::Invalid(StepRef(r, s) + ": match " + std::to_string(match) + " is a " +
                               std::string(StepKindName(s.kind)) + " step here but a " +
                               std::string(StepKindName(s0.kind)) + " step on " + StepRef(first, s0));
      }
      if (s.collective != s0.collective) {
        return Status::Invalid(StepRef(r, s) + ": collective match " + std::to_string(match) +
                               " is " + std::string(CollectiveName(s.collective)) + " here but " +
                               std::string(CollectiveName(s0.collective)) + " on " +
                               StepRef(first, s0));
      }
      if (s.a.total_rows() != s0.a.total_rows() || Cols(rp, s.a) != Cols(rp0, s0.a) ||
          s.c.total_rows() != s0.c.total_rows()) {
        return Status::Invalid(StepRef(r, s) + ": collective match " + std::to_string(match) +
                               " has other sizes than on " + StepRef(first, s0));
      }
    }
  }
  return Status::Ok();
}

// Builds the global graph and orders it; a cycle means the plan can deadlock.
Status OrderGraph(const Plan& plan, Graph* graph) {
  Graph& g = *graph;
  const int p = plan.tp();
  g.node_of.assign(g.offset.back(), -1);
  g.rep.clear();
  g.coll_of.clear();
  for (size_t c = 0; c < g.colls.size(); ++c) {
    const int node = int(g.rep.size());
    int first = 0;
    while (g.colls[c][size_t(first)] < 0) ++first;  // CheckCollectives: never true
    g.rep.emplace_back(first, g.colls[c][size_t(first)]);
    g.coll_of.push_back(int(c));
    for (int r = 0; r < p; ++r)
      g.node_of[g.offset[size_t(r)] + size_t(g.colls[c][size_t(r)])] = node;
  }
  for (int r = 0; r < p; ++r) {
    for (const Step& s : plan.ranks[size_t(r)].steps) {
      int& node = g.node_of[g.offset[size_t(r)] + size_t(s.id)];
      if (node >= 0) continue;
      node = int(g.rep.size());
      g.rep.emplace_back(r, s.id);
      g.coll_of.push_back(-1);
    }
  }
  const size_t nodes = g.rep.size();
  std::vector<std::pair<int, int>> edges;  // (from, to)
  for (int r = 0; r < p; ++r) {
    const RankPlan& rp = plan.ranks[size_t(r)];
    const size_t base = g.offset[size_t(r)];
    std::vector<int> last(plan.lanes.size(), -1);
    for (const Step& s : rp.steps) {
      const int me = g.node_of[base + size_t(s.id)];
      for (int d : s.deps) edges.emplace_back(g.node_of[base + size_t(d)], me);
      int& prev = last[size_t(s.lane)];
      if (prev >= 0) edges.emplace_back(g.node_of[base + size_t(prev)], me);
      prev = s.id;
      if (s.kind == StepKind::kRecv) {
        edges.emplace_back(g.node_of[size_t(g.partner[base + size_t(s.id)])], me);
      }
    }
  }
  // Successor lists in one array (counting sort by source).
  std::vector<size_t> start(nodes + 1, 0), indeg(nodes, 0);
  for (const auto& [from, to] : edges) {
    ++start[size_t(from) + 1];
    ++indeg[size_t(to)];
  }
  for (size_t n = 0; n < nodes; ++n) start[n + 1] += start[n];
  std::vector<int> succ(edges.size());
  {
    std::vector<size_t> at(start.begin(), start.end() - 1);
    for (const auto& [from, to] : edges) succ[at[size_t(from)]++] = to;
  }
  g.order.clear();
  g.order.reserve(nodes);
  for (size_t n = 0; n < nodes; ++n) {
    if (indeg[n] == 0) g.order.push_back(int(n));
  }
  for (size_t head = 0; head < g.order.size(); ++head) {
    const size_t n = size_t(g.order[head]);
    for (size_t e = start[n]; e < start[n + 1]; ++e) {
      if (--indeg[size_t(succ[e])] == 0) g.order.push_back(succ[e]);
    }
  }
  if (g.order.size() == nodes) return Status::Ok();

  // Every node left has a predecessor that is left too: walking back from
  // any of them must come round to a cycle.
  std::vector<std::vector<int>> pred(nodes);
  for (const auto& [from, to] : edges) pred[size_t(to)].push_back(from);
  int at = 0;
  while (indeg[size_t(at)] == 0) ++at;
  std::vector<int> seen_at(nodes, -1), walk;
  while (seen_at[size_t(at)] < 0) {
    seen_at[size_t(at)] = int(walk.size());
    walk.push_back(at);
    for (int q : pred[size_t(at)]) {
      if (indeg[size_t(q)] > 0) {
        at = q;
        break;
      }
    }
  }
  std::vector<int> cycle(walk.begin() + seen_at[size_t(at)], walk.end());
  std::reverse(cycle.begin(), cycle.end());  // walked backwards; print forwards
  std::string text;
  const size_t shown = std::min<size_t>(cycle.size(), 12);
  for (size_t i = 0; i < shown; ++i) text += NodeText(plan, g, cycle[i]) + " -> ";
  text +=
      shown < cycle.size() ? "... -> " + NodeText(plan, g, cycle[0]) : NodeText(plan, g, cycle[0]);
  return Status::Invalid("plan can deadlock: " + std::to_string(nodes - g.order.size()) +
                         " steps never become ready; cycle: " + text);
}

Status CheckStructure(const Plan& plan, Graph* graph) {
  const int p = plan.tp();
  if (p < 1) return Status::Invalid("plan has no ranks");
  if (p != plan.workload.tp) {
    return Status::Invalid("plan has " + std::to_string(p) +
                           " ranks but its workload has P=" + std::to_string(plan.workload.tp));
  }
  if (plan.lanes.empty()) return Status::Invalid("plan has no lanes");

  // Per rank: ids, deps, lanes, buffers, regions, shapes.
  for (int r = 0; r < p; ++r) {
    const RankPlan& rp = plan.ranks[size_t(r)];
    for (size_t b = 0; b < rp.buffers.size(); ++b) {
      const BufferDecl& buf = rp.buffers[b];
      if (buf.rows < 1 || buf.cols < 1) {
        return Status::Invalid("rank " + std::to_string(r) + " buffer '" + buf.name +
                               "' is empty (" + std::to_string(buf.rows) + "x" +
                               std::to_string(buf.cols) + ")");
      }
      if (buf.role == BufferRole::kInput &&
          (buf.input.rows < 0 || buf.input.dst_row < 0 || buf.input.dst_row > buf.rows ||
           buf.input.rows > buf.rows - buf.input.dst_row)) {
        return Status::Invalid("rank " + std::to_string(r) + " buffer '" + buf.name +
                               "': input window of " + std::to_string(buf.input.rows) +
                               " rows at row " + std::to_string(buf.input.dst_row) +
                               " does not fit its " + std::to_string(buf.rows) + " rows");
      }
    }
    const int ops = plan.is_layer() ? int(plan.ops.size()) : 1;
    for (const OpOutput& out : rp.Outputs()) {
      if (out.buffer < 0 || out.buffer >= int(rp.buffers.size())) {
        return Status::Invalid("rank " + std::to_string(r) + " has no output buffer");
      }
      if (out.op < 0 || out.op >= ops || (plan.is_layer() && !plan.ops[size_t(out.op)].gemm)) {
        return Status::Invalid("rank " + std::to_string(r) + " output '" +
                               rp.buffers[size_t(out.buffer)].name + "' names op " +
                               std::to_string(out.op) + ", which is not a GEMM op of the plan");
      }
      if (out.window.rows != rp.buffers[size_t(out.buffer)].rows) {
        return Status::Invalid("rank " + std::to_string(r) + " output window has " +
                               std::to_string(out.window.rows) + " rows but buffer '" +
                               rp.buffers[size_t(out.buffer)].name + "' has " +
                               std::to_string(rp.buffers[size_t(out.buffer)].rows));
      }
    }
    for (const BufferDecl& buf : rp.buffers) {
      if (buf.op < 0 || buf.op >= ops) {
        return Status::Invalid("rank " + std::to_string(r) + " buffer '" + buf.name + "' names op " +
                               std::to_string(buf.op) + " (plan has " + std::to_string(ops) + ")");
      }
    }
    for (size_t i = 0; i < rp.steps.size(); ++i) {
      const Step& s = rp.steps[i];
      if (s.id != int(i)) {
        return Status::Invalid("rank " + std::to_string(r) + " step at index " + std::to_string(i) +
                               " has id " + std::to_string(s.id));
      }
      for (int d : s.deps) {
        if (d < 0 || d >= s.id) {
          return Status::Invalid(StepRef(r, s) + ": dependency " + std::to_string(d) +
                                 " does not name an earlier step of the rank");
        }
      }
      if (s.op < 0 || s.op >= ops) {
        return Status::Invalid(StepRef(r, s) + ": op " + std::to_string(s.op) + " does not exist (" +
                               std::to_string(ops) + " ops)");
      }
      if (s.lane < 0 || s.lane >= int(plan.lanes.size())) {
        return Status::Invalid(StepRef(r, s) + ": lane " + std::to_string(s.lane) +
                               " does not exist (" + std::to_string(plan.lanes.size()) + " lanes)");
      }
      for (char which : {'a', 'b', 'c'}) {
        if (Uses(s.kind, which)) BRAID_RETURN_IF_ERROR(CheckRegion(rp, r, s, which));
      }
      BRAID_RETURN_IF_ERROR(CheckShapes(plan, rp, r, s));
      if ((s.kind == StepKind::kSend || s.kind == StepKind::kRecv) && (s.peer < 0 || s.peer >= p)) {
        return Status::Invalid(StepRef(r, s) + ": peer " + std::to_string(s.peer) +
                               " is not a rank (P=" + std::to_string(p) + ")");
      }
    }
  }
  graph->offset.assign(size_t(p) + 1, 0);
  for (int r = 0; r < p; ++r) {
    graph->offset[size_t(r) + 1] = graph->offset[size_t(r)] + plan.ranks[size_t(r)].steps.size();
  }
  BRAID_RETURN_IF_ERROR(CheckP2p(plan, graph));
  BRAID_RETURN_IF_ERROR(CheckCollectives(plan, graph));
  return OrderGraph(plan, graph);
}

// ---- abstract execution ----

enum class Tag : uint8_t { kEmpty, kARow, kProduct, kPartial };

// `op`: layer plans give every GEMM op its own A and C, so contents name the
// op (Plan::ops index) they belong to; single-op plans use 0.
struct Content {
  Tag tag = Tag::kEmpty;
  int64_t row = 0;
  uint64_t mask = 0;
  int op = 0;
};

std::string MaskText(uint64_t mask) {
  std::string out = "{";
  for (int i = 0; i < 64; ++i) {
    if ((mask >> i & 1) == 0) continue;
    if (out.size() > 1) out += ',';
    out += std::to_string(i);
  }
  return out + "}";
}

std::string ContentText(const Content& c) {
  switch (c.tag) {
    case Tag::kEmpty: return "nothing (empty)";
    case Tag::kARow: return "row " + std::to_string(c.row) + " of A";
    case Tag::kProduct: return "the product for row " + std::to_string(c.row);
    case Tag::kPartial:
      return "the partial for row " + std::to_string(c.row) + " over ranks " + MaskText(c.mask);
  }
  return "?";
}

// x + y for two partials of one row over disjoint rank sets; otherwise an
// error text.
bool AddContent(const Content& x, const Content& y, Content* out, std::string* why) {
  if (x.tag != Tag::kPartial || y.tag != Tag::kPartial) {
    *why = "adds " + ContentText(x) + " and " + ContentText(y) + "; only partials add";
    return false;
  }
  if (x.op != y.op) {
    *why = "adds a partial of op " + std::to_string(x.op) + " to one of op " + std::to_string(y.op);
    return false;
  }
  if (x.row != y.row) {
    *why = "adds the partial for row " + std::to_string(x.row) + " to the partial for row " +
           std::to_string(y.row);
    return false;
  }
  if (x.mask & y.mask) {
    *why = "partial for row " + std::to_string(x.row) + " counted twice (ranks " +
           MaskText(x.mask & y.mask) + " on both sides)";
    return false;
  }
  *out = {Tag::kPartial, x.row, x.mask | y.mask, x.op};
  return true;
}

class Executor {
 public:
  Executor(const Plan& plan, const Graph& g) : plan_(plan), g_(g) {
    const int p = plan.tp();
    state_.resize(size_t(p));
    for (int r = 0; r < p; ++r) {
      const RankPlan& rp = plan.ranks[size_t(r)];
      auto& bufs = state_[size_t(r)];
      bufs.resize(rp.buffers.size());
      for (size_t b = 0; b < rp.buffers.size(); ++b) {
        const BufferDecl& d = rp.buffers[b];
        bufs[b].assign(size_t(d.rows), Content{});
        if (d.role == BufferRole::kInput && d.input.matrix == Matrix::kA) {
          for (int64_t i = 0; i < d.input.rows; ++i) {
            bufs[b][size_t(d.input.dst_row + i)] = {Tag::kARow, d.input.row0 + i, 0, d.op};
          }
        }
      }
    }
  }

  Status Run() {
    in_flight_.resize(g_.offset.back());
    for (int node : g_.order) {
      const int coll = g_.coll_of[size_t(node)];
      if (coll >= 0) {
        BRAID_RETURN_IF_ERROR(RunCollective(g_.colls[size_t(coll)]));
      } else {
        const auto [r, id] = g_.rep[size_t(node)];
        BRAID_RETURN_IF_ERROR(RunStep(r, plan_.ranks[size_t(r)].steps[size_t(id)]));
      }
    }
    return CheckOutputs();
  }

 private:
  // The contents of a region, in row order; reading an empty row is an error.
  Status Read(int r, const Step& s, const Region& g, std::vector<Content>* out) {
    const auto& buf = state_[size_t(r)][size_t(g.buffer)];
    out->resize(size_t(g.total_rows()));
    int64_t empty_row = -1;
    ForRows(g, [&](int64_t i, int64_t row) {
      const Content& c = buf[size_t(row)];
      if (c.tag == Tag::kEmpty && empty_row < 0) empty_row = row;
      (*out)[size_t(i)] = c;
    });
    if (empty_row >= 0) {
      return Status::Invalid(
          StepRef(r, s) + ": reads empty row " + std::to_string(empty_row) + " of buffer '" +
          plan_.ranks[size_t(r)].buffers[size_t(g.buffer)].name + "' (nothing has written it yet)");
    }
    return Status::Ok();
  }

  void Write(int r, const Region& g, const std::vector<Content>& v) {
    auto& buf = state_[size_t(r)][size_t(g.buffer)];
    ForRows(g, [&](int64_t i, int64_t row) { buf[size_t(row)] = v[size_t(i)]; });
  }

  Status RowError(int r, const Step& s, const Region& g, int64_t i, const std::string& why) {
    int64_t row = -1;
    ForRows(g, [&](int64_t k, int64_t rr) {
      if (k == i) row = rr;
    });
    return Status::Invalid(StepRef(r, s) + ": " + why + " (row " + std::to_string(row) +
                           " of buffer '" + plan_.ranks[size_t(r)].buffers[size_t(g.buffer)].name +
                           "')");
  }

  Status RunStep(int r, const Step& s) {
    std::vector<Content>& a = a_;
    std::vector<Content>& b = b_;
    switch (s.kind) {
      case StepKind::kGemm: {
        BRAID_RETURN_IF_ERROR(Read(r, s, s.a, &a));
        const bool product = plan_.op_products(s.op);
        for (size_t i = 0; i < a.size(); ++i) {
          if (a[i].tag != Tag::kARow) {
            return RowError(r, s, s.a, int64_t(i),
                            "multiplies " + ContentText(a[i]) + ", expected a row of A");
          }
          if (a[i].op != s.op) {
            return RowError(r, s, s.a, int64_t(i),
                            "multiplies a row of op " + std::to_string(a[i].op) + "'s A in op " +
                                std::to_string(s.op));
          }
          a[i] = product ? Content{Tag::kProduct, a[i].row, 0, s.op}
                         : Content{Tag::kPartial, a[i].row, uint64_t{1} << r, s.op};
        }
        Write(r, s.c, a);
        return Status::Ok();
      }
      case StepKind::kSend:
        BRAID_RETURN_IF_ERROR(Read(r, s, s.a, &a));
        in_flight_[g_.offset[size_t(r)] + size_t(s.id)] = a;
        return Status::Ok();
      case StepKind::kRecv: {
        // The graph orders the send first; its contents wait here.
        std::vector<Content>& sent =
            in_flight_[size_t(g_.partner[g_.offset[size_t(r)] + size_t(s.id)])];
        if (sent.empty()) return Status::Internal(StepRef(r, s) + ": ran before its send");
        Write(r, s.c, sent);
        sent = {};
        return Status::Ok();
      }
      case StepKind::kReduce: {
        BRAID_RETURN_IF_ERROR(Read(r, s, s.a, &a));
        BRAID_RETURN_IF_ERROR(Read(r, s, s.b, &b));
        std::string why;
        for (size_t i = 0; i < a.size(); ++i) {
          if (!AddContent(a[i], b[i], &a[i], &why)) return RowError(r, s, s.c, int64_t(i), why);
        }
        Write(r, s.c, a);
        return Status::Ok();
      }
      case StepKind::kCopy:
        BRAID_RETURN_IF_ERROR(Read(r, s, s.a, &a));
        Write(r, s.c, a);
        return Status::Ok();
      case StepKind::kCompute: return Status::Ok();  // no buffers
      case StepKind::kCollective:
      case StepKind::kFused: break;
    }
    return Status::Internal(StepRef(r, s) + ": unexpected step kind");
  }

  Status RunCollective(const std::vector<int>& ids) {
    const int p = plan_.tp();
    std::vector<const Step*> steps(static_cast<size_t>(p), nullptr);
    for (int r = 0; r < p; ++r)
      steps[size_t(r)] = &plan_.ranks[size_t(r)].steps[size_t(ids[size_t(r)])];
    // Everyone's contribution first, then everyone's result.
    std::vector<std::vector<Content>> in(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r)
      BRAID_RETURN_IF_ERROR(Read(r, *steps[size_t(r)], steps[size_t(r)]->a, &in[size_t(r)]));
    const Step& s0 = plan_.ranks[0].steps[size_t(ids[0])];
    const CollectiveKind kind = s0.collective;
    if (s0.kind == StepKind::kFused) {
      // The fused kernel multiplies first: gathered A rows become products,
      // a rank's A shard rows become its partials; then they move as the
      // collective would move them.
      const bool product = kind == CollectiveKind::kAllGather;
      for (int r = 0; r < p; ++r) {
        const Step& s = *steps[size_t(r)];
        auto& v = in[size_t(r)];
        for (size_t i = 0; i < v.size(); ++i) {
          if (v[i].tag != Tag::kARow || v[i].op != s.op) {
            return RowError(r, s, s.a, int64_t(i),
                            "the fused kernel multiplies " + ContentText(v[i]) +
                                (v[i].tag == Tag::kARow ? " of op " + std::to_string(v[i].op) : "") +
                                ", expected a row of op " + std::to_string(s.op) + "'s A");
          }
          v[i] = product ? Content{Tag::kProduct, v[i].row, 0, s.op}
                         : Content{Tag::kPartial, v[i].row, uint64_t{1} << r, s.op};
        }
      }
    }
    std::vector<std::vector<Content>> out(static_cast<size_t>(p));
    std::string why;
    for (int r = 0; r < p; ++r) {
      const Step& s = *steps[size_t(r)];
      auto& o = out[size_t(r)];
      switch (kind) {
        case CollectiveKind::kAllGather:
          for (int q = 0; q < p; ++q) o.insert(o.end(), in[size_t(q)].begin(), in[size_t(q)].end());
          break;
        case CollectiveKind::kReduceScatter: {
          const size_t n = size_t(s.c.total_rows());
          o.assign(in[0].begin() + std::ptrdiff_t(size_t(r) * n),
                   in[0].begin() + std::ptrdiff_t(size_t(r + 1) * n));
          for (int q = 1; q < p; ++q) {
            for (size_t i = 0; i < n; ++i) {
              if (!AddContent(o[i], in[size_t(q)][size_t(r) * n + i], &o[i], &why)) {
                return RowError(r, s, s.c, int64_t(i),
                                why + " summing rank " + std::to_string(q) + "'s piece");
              }
            }
          }
          break;
        }
        case CollectiveKind::kAllReduce:
          o = in[0];
          for (int q = 1; q < p; ++q) {
            for (size_t i = 0; i < o.size(); ++i) {
              if (!AddContent(o[i], in[size_t(q)][i], &o[i], &why)) {
                return RowError(r, s, s.c, int64_t(i),
                                why + " summing rank " + std::to_string(q) + "'s part");
              }
            }
          }
          break;
      }
    }
    for (int r = 0; r < p; ++r) Write(r, steps[size_t(r)]->c, out[size_t(r)]);
    return Status::Ok();
  }

  // Every GEMM op's output (RankPlan::Outputs): layer plans are checked op by
  // op, each output against its own op's products or full sums.
  Status CheckOutputs() const {
    const int p = plan_.tp();
    const uint64_t all = p == 64 ? ~uint64_t{0} : (uint64_t{1} << p) - 1;
    for (int r = 0; r < p; ++r) {
      const RankPlan& rp = plan_.ranks[size_t(r)];
      for (const OpOutput& out : rp.Outputs()) {
        const bool product = plan_.op_products(out.op);
        const auto& buf = state_[size_t(r)][size_t(out.buffer)];
        for (size_t i = 0; i < buf.size(); ++i) {
          const int64_t want_row = out.window.row0 + int64_t(i);
          const Content want = product ? Content{Tag::kProduct, want_row, 0, out.op}
                                       : Content{Tag::kPartial, want_row, all, out.op};
          const Content& got = buf[i];
          if (got.tag == want.tag && got.row == want.row && got.mask == want.mask && got.op == want.op) {
            continue;
          }
          std::string text = "rank " + std::to_string(r) + " output '" +
                             rp.buffers[size_t(out.buffer)].name + "' row " + std::to_string(i) +
                             ": expected " + ContentText(want) + ", found " + ContentText(got);
          if (got.op != want.op) text += " of op " + std::to_string(got.op);
          if (got.tag == Tag::kPartial && got.row == want.row) {
            text += " (missing a partial: ranks " + MaskText(all & ~got.mask) + ")";
          }
          return Status::Invalid(text);
        }
      }
    }
    return Status::Ok();
  }

  const Plan& plan_;
  const Graph& g_;
  std::vector<std::vector<std::vector<Content>>> state_;  // rank -> buffer -> row
  std::vector<std::vector<Content>> in_flight_;           // global index of a send -> what it sent
  std::vector<Content> a_, b_;                            // scratch
};

// ---- data races ----

struct Interval {
  int64_t lo, hi;  // rows [lo, hi)
  int step;
  bool write;
};

Status CheckRaces(const Plan& plan, int r) {
  const RankPlan& rp = plan.ranks[size_t(r)];
  const size_t n = rp.steps.size();
  if (n == 0) return Status::Ok();
  // before[j] has bit i set when step i happens before step j (i < j).
  const size_t words = (n + 63) / 64;
  std::vector<uint64_t> before(n * words, 0);
  std::vector<int> last(plan.lanes.size(), -1);
  for (const Step& s : rp.steps) {
    uint64_t* mine = &before[size_t(s.id) * words];
    auto inherit = [&](int q) {
      const uint64_t* theirs = &before[size_t(q) * words];
      for (size_t w = 0; w <= size_t(q) / 64; ++w) mine[w] |= theirs[w];
      mine[size_t(q) / 64] |= uint64_t{1} << (q % 64);
    };
    for (int d : s.deps) inherit(d);
    int& prev = last[size_t(s.lane)];
    if (prev >= 0) inherit(prev);
    prev = s.id;
  }
  auto ordered = [&](int i, int j) {
    if (i > j) std::swap(i, j);
    return (before[size_t(j) * words + size_t(i) / 64] >> (i % 64)) & 1;
  };

  std::vector<std::vector<Interval>> by_buffer(rp.buffers.size());
  std::vector<bool> written(rp.buffers.size(), false);
  for (const Step& s : rp.steps) {
    for (char which : {'a', 'b', 'c'}) {
      const bool w = Writes(s.kind, which);
      if (!w && !Reads(s.kind, which)) continue;
      const Region& g = RegionOf(s, which);
      if (w) written[size_t(g.buffer)] = true;
      for (int q = 0; q < g.pieces; ++q) {
        by_buffer[size_t(g.buffer)].push_back({g.piece_row(q), g.piece_row(q) + g.rows, s.id, w});
      }
    }
  }
  for (size_t b = 0; b < by_buffer.size(); ++b) {
    if (!written[b]) continue;  // read-only buffers (B, unused inputs) cannot race
    auto& iv = by_buffer[b];
    std::sort(iv.begin(), iv.end(),
              [](const Interval& x, const Interval& y) { return x.lo < y.lo; });
    std::vector<const Interval*> reads, writes;  // intervals still open at the sweep line
    auto expire = [](std::vector<const Interval*>& v, int64_t at) {
      for (size_t i = 0; i < v.size();) {
        if (v[i]->hi <= at) {
          v[i] = v.back();
          v.pop_back();
        } else {
          ++i;
        }
      }
    };
    auto race = [&](const Interval& x, const Interval& y) -> Status {
      const Step& sx = rp.steps[size_t(std::min(x.step, y.step))];
      const Step& sy = rp.steps[size_t(std::max(x.step, y.step))];
      const bool xw = x.step < y.step ? x.write : y.write;
      const bool yw = x.step < y.step ? y.write : x.write;
      return Status::Invalid(
          "data race on rank " + std::to_string(r) + " buffer '" + rp.buffers[b].name + "' rows " +
          std::to_string(std::max(x.lo, y.lo)) + ".." + std::to_string(std::min(x.hi, y.hi) - 1) +
          ": step " + std::to_string(sx.id) + " (" + sx.name + ") " + (xw ? "writes" : "reads") +
          " and step " + std::to_string(sy.id) + " (" + sy.name + ") " + (yw ? "writes" : "reads") +
          " them, unordered by deps or lane order");
    };
    for (const Interval& x : iv) {
      expire(reads, x.lo);
      expire(writes, x.lo);
      for (const Interval* y : writes) {
        if (y->step != x.step && !ordered(x.step, y->step)) return race(*y, x);
      }
      if (x.write) {
        for (const Interval* y : reads) {
          if (y->step != x.step && !ordered(x.step, y->step)) return race(*y, x);
        }
      }
      (x.write ? writes : reads).push_back(&x);
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckPlanStructure(const Plan& plan) {
  Graph g;
  return CheckStructure(plan, &g);
}

Status CheckPlanSemantics(const Plan& plan) {
  Graph g;
  BRAID_RETURN_IF_ERROR(CheckStructure(plan, &g));
  if (plan.tp() > 64) {
    return Status::Unavailable(
        "semantic check supports at most 64 ranks (P=" + std::to_string(plan.tp()) + ")");
  }
  Executor ex(plan, g);
  BRAID_RETURN_IF_ERROR(ex.Run());
  for (int r = 0; r < plan.tp(); ++r) BRAID_RETURN_IF_ERROR(CheckRaces(plan, r));
  return Status::Ok();
}

}  // namespace braid
