// The plan graph's order: Kahn's algorithm over nodes (a collective group is
// one node) straight on the graph's arrays, and when it stalls, the cycle
// that stalls it.
#include <algorithm>
#include <string>
#include <vector>

#include "braid/plan_graph.h"
#include "plan_text.h"

namespace braid {

namespace {

// A node: a collective group (group >= 0, step = its rank-0 member) or a
// single step (group == -1).
struct Node {
  int group;
  int step;
};

}  // namespace

const Step& PlanGraph::StepOf(const Plan& plan, int g) const {
  return plan.ranks[size_t(rank_of_[size_t(g)])].steps[size_t(id_of(g))];
}

Status PlanGraph::Order(const Plan& plan) {
  const size_t n = rank_of_.size();
  // Groups first, in the order their first members appear; then every other
  // step in global order. The numbering fixes which ready node runs first.
  std::vector<Node> nodes;
  std::vector<int> node_of(n, -1), group_node(size_t(groups()), -1);
  for (size_t g = 0; g < n; ++g) {
    const int c = group_of_[g];
    if (c < 0 || group_node[size_t(c)] >= 0) continue;
    group_node[size_t(c)] = int(nodes.size());
    nodes.push_back({c, group_members(c)[0]});
  }
  for (size_t g = 0; g < n; ++g) {
    const int c = group_of_[g];
    if (c >= 0) {
      node_of[g] = group_node[size_t(c)];
    } else {
      node_of[g] = int(nodes.size());
      nodes.push_back({-1, int(g)});
    }
  }
  const size_t count = nodes.size();
  // Each step's lane predecessor, as Scan met them.
  std::vector<int> lane_prev(n, -1), lane_last;
  for (int r = 0; r < ranks(); ++r) {
    lane_last.assign(plan.lanes.size(), -1);
    for (const Step& s : plan.ranks[size_t(r)].steps) {
      lane_prev[size_t(global(r, s.id))] = lane_last[size_t(s.lane)];
      lane_last[size_t(s.lane)] = global(r, s.id);
    }
  }
  // A node waits for its members' same-rank edges and, for a recv, its send.
  std::vector<int> indeg(count, 0);
  for (size_t g = 0; g < n; ++g) {
    const bool recv = partner_[g] >= 0 && StepOf(plan, int(g)).kind == StepKind::kRecv;
    indeg[size_t(node_of[g])] += in_degree_[g] + (recv ? 1 : 0);
  }
  std::vector<int> queue;
  queue.reserve(count);
  for (size_t v = 0; v < count; ++v) {
    if (indeg[v] == 0) queue.push_back(int(v));
  }
  auto release = [&](int target) {
    const int v = node_of[size_t(target)];
    if (--indeg[size_t(v)] == 0) queue.push_back(v);
  };
  // A node's successors in global order of their steps: a group's members'
  // dependents (rank after rank), or a step's dependents with a send's recv
  // slotted in.
  for (size_t head = 0; head < queue.size(); ++head) {
    const Node& node = nodes[size_t(queue[head])];
    if (node.group >= 0) {
      for (int m : group_members(node.group)) {
        for (int t : dependents(m)) release(t);
      }
      continue;
    }
    int recv = StepOf(plan, node.step).kind == StepKind::kSend ? partner_[size_t(node.step)] : -1;
    for (int t : dependents(node.step)) {
      if (recv >= 0 && recv < t) {
        release(recv);
        recv = -1;
      }
      release(t);
    }
    if (recv >= 0) release(recv);
  }
  if (queue.size() == count) {
    order_.clear();
    order_.reserve(n);
    for (int v : queue) {
      const Node& node = nodes[size_t(v)];
      if (node.group < 0) {
        order_.push_back(node.step);
      } else {
        const std::span<const int> members = group_members(node.group);
        order_.insert(order_.end(), members.begin(), members.end());
      }
    }
    return Status::Ok();
  }

  // Every node left has a predecessor that is left too: walking back from
  // any of them (its first such predecessor: members in rank order, each's
  // deps, lane predecessor, send) must come round to a cycle.
  auto stuck_pred = [&](int v) {
    const Node& node = nodes[size_t(v)];
    const std::span<const int> one(&node.step, 1);
    for (int m : node.group >= 0 ? group_members(node.group) : one) {
      const Step& s = StepOf(plan, m);
      const int base = first_[size_t(rank_of_[size_t(m)])];
      for (int d : s.deps) {
        const int pred = node_of[size_t(base) + size_t(d)];
        if (indeg[size_t(pred)] > 0) return pred;
      }
      if (const int prev = lane_prev[size_t(m)]; prev >= 0 && indeg[size_t(node_of[size_t(prev)])] > 0) {
        return node_of[size_t(prev)];
      }
      if (s.kind == StepKind::kRecv && indeg[size_t(node_of[size_t(partner_[size_t(m)])])] > 0) {
        return node_of[size_t(partner_[size_t(m)])];
      }
    }
    return v;  // not reached: a stuck node has a stuck predecessor
  };
  int at = 0;
  while (indeg[size_t(at)] == 0) ++at;
  std::vector<int> seen_at(count, -1), walk;
  while (seen_at[size_t(at)] < 0) {
    seen_at[size_t(at)] = int(walk.size());
    walk.push_back(at);
    at = stuck_pred(at);
  }
  std::vector<int> cycle(walk.begin() + seen_at[size_t(at)], walk.end());
  std::reverse(cycle.begin(), cycle.end());  // walked backwards; print forwards
  auto text_of = [&](int v) {
    const Node& node = nodes[size_t(v)];
    const Step& s = StepOf(plan, node.step);
    if (node.group >= 0) return "collective " + s.name + " match " + std::to_string(s.match) + " (all ranks)";
    return StepRef(rank_of_[size_t(node.step)], s);
  };
  std::string text;
  const size_t shown = std::min<size_t>(cycle.size(), 12);
  for (size_t i = 0; i < shown; ++i) text += text_of(cycle[i]) + " -> ";
  text += shown < cycle.size() ? "... -> " + text_of(cycle[0]) : text_of(cycle[0]);
  return Status::Invalid("plan can deadlock: " + std::to_string(count - queue.size()) +
                         " steps never become ready; cycle: " + text);
}

}  // namespace braid
