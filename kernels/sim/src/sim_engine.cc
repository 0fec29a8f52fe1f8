#include "sim_engine.h"

#include <algorithm>
#include <cmath>

namespace braid::sim {

namespace {

enum EventType { kWorkStart = 0, kComplete = 1 };

bool Later(const auto& a, const auto& b) { return a.t > b.t; }

}  // namespace

void Engine::Load(const Plan& plan) {
  // Partners, groups and dependents come from the plan graph; a plan it
  // refuses leaves RunOnce that error to return.
  load_status_ = graph_.Rebuild(plan, PlanGraphOptions{.order = false});
  if (!load_status_.ok()) return;
  tp_ = plan.tp();
  const int comm_sms = CommSms(topo_, plan.config.comm_sms);
  // What a running comm kernel takes from a concurrent GEMM.
  const int comm_lost = CommSmsLost(comm_sms, contention_, gpu_.sm_count);
  const bool ce = plan.config.comm_engine == CommEngine::kCopyEngine;
  const double launch = gpu_.launch_us * 1e3, wait = gpu_.event_wait_us * 1e3;

  steps_.resize(size_t(graph_.steps()));
  gemm_costs_.clear();
  // Consecutive steps mostly share a shape: memoize the last cost.
  int64_t last_m = -1, last_n = -1, last_k = -1, last_bytes = -1;
  const Link* last_link = nullptr;
  CommTime last_ct;

  for (int r = 0; r < tp_; ++r) {
    const RankPlan& rp = plan.ranks[size_t(r)];
    for (const Step& s : rp.steps) {
      const int g = graph_.global(r, s.id);
      StepStatic& st = steps_[size_t(g)];
      st = StepStatic{};
      st.kind = s.kind;
      st.act = Act::kNone;
      st.rank = r;
      st.lane = s.lane;
      st.priority = plan.lanes[size_t(s.lane)].priority;
      st.partner = graph_.partner(g);
      st.coll = graph_.group_of(g);
      st.dst_rank = st.src_port = st.dst_port = -1;
      st.fixed_ns = launch + graph_.cross_lane_deps(g) * wait;
      st.pending0 = graph_.in_degree(g);
      st.gemm = -1;
      const bool comm_lane = plan.lanes[size_t(s.lane)].kind == LaneKind::kComm;
      switch (s.kind) {
        case StepKind::kGemm: {
          const int64_t m = s.a.total_rows(), k = rp.buffers[size_t(s.a.buffer)].cols;
          const int64_t nn = rp.buffers[size_t(s.b.buffer)].cols;
          st.act = Act::kGemm;
          if (m != last_m || nn != last_n || k != last_k) {
            const GemmCost c = CachedGemmCost(m, nn, k, plan.workload.dtype);
            gemm_costs_.push_back({c, c.BodyNs(gpu_.sm_count), -1, 0});
            last_m = m, last_n = nn, last_k = k;
          }
          st.gemm = int(gemm_costs_.size()) - 1;
          const GemmEntry& ge = gemm_costs_.back();
          st.work_ns = ge.full_ns;
          st.hbm_demand = st.work_ns > 0 ? ge.cost.hbm_traffic / st.work_ns : 0;
          break;
        }
        case StepKind::kCompute: {
          // A compute kernel (attention): flops / (peak · efficiency) spread
          // evenly over the SMs it gets, so it slows in proportion when comm
          // holds SMs (kComputeTilesPerSm tiles per SM keep wave quantization
          // small), with its bytes as the memory floor, plus launch.
          constexpr int kComputeTilesPerSm = 16;
          GemmCost c;
          c.tiles = int64_t(gpu_.sm_count) * kComputeTilesPerSm;
          c.tile_ns = s.flops / (gpu_.PeakTflops(plan.workload.dtype) * 1e3 * gpu_.Efficiency(plan.workload.dtype)) /
                      double(kComputeTilesPerSm);
          c.memory_ns = double(s.bytes) / (gpu_.hbm_gbs * gpu_.hbm_efficiency);
          c.launch_ns = launch;
          c.hbm_bytes = c.hbm_traffic = double(s.bytes);
          gemm_costs_.push_back({c, c.BodyNs(gpu_.sm_count), -1, 0});
          last_m = -1;  // the next GEMM gets its own entry
          st.act = Act::kGemm;
          st.gemm = int(gemm_costs_.size()) - 1;
          st.work_ns = gemm_costs_.back().full_ns;
          st.hbm_demand = st.work_ns > 0 ? c.hbm_bytes / st.work_ns : 0;
          break;
        }
        case StepKind::kReduce:
        case StepKind::kCopy:
          st.act = Act::kMemory;
          st.work_ns = MemoryKernelNs(gpu_, s.bytes) - launch;
          st.hbm_demand = gpu_.hbm_gbs * gpu_.hbm_efficiency * gpu_.hbm_copy_weight;
          st.sm_hold = comm_lane && !(ce && s.kind == StepKind::kCopy) ? comm_lost : 0;
          break;
        case StepKind::kSend: {
          const Link& link = LinkBetween(topo_, r, s.peer);
          if (&link != last_link || s.bytes != last_bytes) {
            last_ct = ce ? P2pTime(link, s.bytes) : SmDrivenP2pTime(gpu_, link, s.bytes, comm_sms);
            last_link = &link;
            last_bytes = s.bytes;
          }
          const CommTime ct = last_ct;
          const int port = PortClass(topo_, link);
          st.src_port = PortOf(r, port);
          st.dst_port = PortOf(s.peer, port);
          st.act = Act::kTransfer;
          st.fixed_ns += ct.latency_ns;
          st.work_ns = ct.transfer_ns;
          st.hbm_demand = ct.transfer_ns > 0
                              ? double(s.bytes) / ct.transfer_ns * (ce ? gpu_.hbm_ce_weight : gpu_.hbm_copy_weight)
                              : 0;
          st.sm_hold = ce ? 0 : comm_lost;
          st.dst_rank = s.peer;
          break;
        }
        case StepKind::kRecv:
          break;
        case StepKind::kCollective:
        case StepKind::kFused:
          st.act = Act::kCollective;
          break;
      }
    }
  }

  // Collective groups (by match): costs from rank 0's member.
  coll_time_.clear();
  coll_hbm_.clear();
  coll_sm_hold_.clear();
  coll_port_.clear();
  coll_fused_.clear();
  for (int c = 0; c < graph_.groups(); ++c) {
    const Step& s = plan.ranks[0].steps[size_t(graph_.id_of(graph_.group_members(c)[0]))];
    if (s.kind == StepKind::kFused) {
      // The whole persistent kernel is one activity of all ranks; it holds
      // no SMs from other kernels' view (it owns its own split).
      const RankPlan& rp = plan.ranks[0];
      const int64_t m = std::max(s.a.total_rows(), s.c.total_rows());
      const int64_t k = rp.buffers[size_t(s.a.buffer)].cols, nn = rp.buffers[size_t(s.b.buffer)].cols;
      const int fused_sms = std::min(comm_sms, gpu_.sm_count - 1);
      const FusedTime ft = FusedKernelTime(gpu_, topo_, m, nn, k, plan.workload.dtype, s.collective, s.bytes, tp_,
                                           fused_sms, CommSmsLost(fused_sms, contention_, gpu_.sm_count));
      coll_time_.push_back({0, ft.total_ns});
      coll_hbm_.push_back(ft.total_ns > 0 ? ft.hbm_bytes / ft.total_ns : 0);
      coll_sm_hold_.push_back(0);
      coll_port_.push_back(PortClass(topo_, CollectiveLink(topo_, tp_)));
      coll_fused_.push_back(ft);
      continue;
    }
    const CommTime ct = CollectiveTime(topo_, s.collective, s.bytes, tp_);
    coll_time_.push_back(ct);
    coll_fused_.push_back({});
    // Each rank reads and writes its share of the ring traffic.
    coll_hbm_.push_back(ct.transfer_ns > 0 ? 2.0 * double(s.bytes) * BusBwFactor(s.collective, tp_) / ct.transfer_ns *
                                                 gpu_.hbm_copy_weight
                                           : 0);
    coll_sm_hold_.push_back(ce && s.collective == CollectiveKind::kAllGather ? 0 : comm_lost);
    coll_port_.push_back(PortClass(topo_, CollectiveLink(topo_, tp_)));
  }
}

// The kernel choice tries every candidate: keep the costs of the shapes seen
// (a tuner evaluates many plans of the same few shapes).
GemmCost Engine::CachedGemmCost(int64_t m, int64_t n, int64_t k, DType dtype) {
  for (const CostMemo& e : cost_memo_) {
    if (e.m == m && e.n == n && e.k == k && e.dtype == dtype) return e.cost;
  }
  if (cost_memo_.size() >= kCostMemoSize) cost_memo_.clear();
  cost_memo_.push_back({m, n, k, dtype, GemmCostOf(gpu_, m, n, k, dtype)});
  return cost_memo_.back().cost;
}

void Engine::Push(double t, int type, int id) {
  heap_.push_back({t, id, type});
  std::push_heap(heap_.begin(), heap_.end(), [](const HeapItem& a, const HeapItem& b) { return Later(a, b); });
}

Engine::HeapItem Engine::Pop() {
  std::pop_heap(heap_.begin(), heap_.end(), [](const HeapItem& a, const HeapItem& b) { return Later(a, b); });
  const HeapItem top = heap_.back();
  heap_.pop_back();
  return top;
}

void Engine::FinSiftUp(int pos) {
  const int a = fin_heap_[size_t(pos)];
  const double key = acts_[size_t(a)].finish;
  while (pos > 0) {
    const int parent = (pos - 1) / 2;
    const int b = fin_heap_[size_t(parent)];
    if (!(key < acts_[size_t(b)].finish)) break;
    fin_heap_[size_t(pos)] = b;
    acts_[size_t(b)].heap_pos = pos;
    pos = parent;
  }
  fin_heap_[size_t(pos)] = a;
  acts_[size_t(a)].heap_pos = pos;
}

void Engine::FinSiftDown(int pos) {
  const int n = int(fin_heap_.size());
  const int a = fin_heap_[size_t(pos)];
  const double key = acts_[size_t(a)].finish;
  for (;;) {
    int child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n &&
        acts_[size_t(fin_heap_[size_t(child) + 1])].finish < acts_[size_t(fin_heap_[size_t(child)])].finish) {
      ++child;
    }
    const int b = fin_heap_[size_t(child)];
    if (!(acts_[size_t(b)].finish < key)) break;
    fin_heap_[size_t(pos)] = b;
    acts_[size_t(b)].heap_pos = pos;
    pos = child;
  }
  fin_heap_[size_t(pos)] = a;
  acts_[size_t(a)].heap_pos = pos;
}

// inline: GCC then keeps it inlined in Reevaluate, the event loop's hottest
// path (measured with callgrind on braid_sim_bench).
inline void Engine::FinSet(int a, double t) {
  Activity& x = acts_[size_t(a)];
  if (x.heap_pos < 0) {
    x.finish = t;
    fin_heap_.push_back(a);
    FinSiftUp(int(fin_heap_.size()) - 1);
    return;
  }
  const double old = x.finish;
  x.finish = t;
  if (t < old) {
    FinSiftUp(x.heap_pos);
  } else {
    FinSiftDown(x.heap_pos);
  }
}

void Engine::FinRemove(int a) {
  const int pos = acts_[size_t(a)].heap_pos;
  if (pos < 0) return;
  acts_[size_t(a)].heap_pos = -1;
  const int last = fin_heap_.back();
  fin_heap_.pop_back();
  if (last == a) return;
  fin_heap_[size_t(pos)] = last;
  acts_[size_t(last)].heap_pos = pos;
  FinSiftUp(pos);
  FinSiftDown(acts_[size_t(last)].heap_pos);
}

Status Engine::RunOnce() {
  if (!load_status_.ok()) return load_status_;
  const size_t n = steps_.size(), groups = coll_time_.size();
  pending_.resize(n);
  start_.resize(n);  // each written before it is read
  end_.resize(n);
  ready_at_.resize(n);
  arrived_.assign(n, 0);
  coll_arrivals_.assign(groups, 0);
  coll_ready_.assign(groups, 0);
  acts_.assign(n + groups, Activity{});
  coll_start_.assign(groups, 0);
  if (stamp_.size() != n + groups || stamp_now_ > (1u << 30)) {
    stamp_.assign(n + groups, 0);
    stamp_now_ = 0;
  }
  heap_.clear();
  fin_heap_.clear();
  held_sms_.assign(size_t(tp_), 0);
  gemms_.assign(size_t(tp_), 0);
  hbm_sum_.assign(size_t(tp_), 0);
  port_out_.assign(size_t(tp_) * kPortClasses, 0);
  port_in_.assign(size_t(tp_) * kPortClasses, 0);
  running_.resize(size_t(tp_));
  for (auto& v : running_) v.clear();
  scratch_ranks_.resize(size_t(std::max(tp_, 2)));
  makespan_ = 0;

  for (size_t g = 0; g < n; ++g) pending_[g] = steps_[g].pending0;
  for (size_t g = 0; g < n; ++g) {
    if (pending_[g] == 0) Ready(int(g), 0);
  }
  while (!heap_.empty() || !fin_heap_.empty()) {
    // Finishes first at equal times: they free resources for what starts.
    if (!fin_heap_.empty() && (heap_.empty() || acts_[size_t(fin_heap_[0])].finish <= heap_.front().t)) {
      const int a = fin_heap_[0];
      const double t = acts_[size_t(a)].finish;
      FinRemove(a);
      Finish(a, t);
      continue;
    }
    const HeapItem e = Pop();
    if (e.type == kWorkStart) {
      WorkStart(e.id, e.t);
    } else {
      Complete(e.id, e.t);
    }
  }
  for (size_t g = 0; g < n; ++g) {
    if (pending_[g] != -1) {
      return Status::Internal("sim: step " + std::to_string(g - size_t(first_step(steps_[g].rank))) + " of rank " +
                              std::to_string(steps_[g].rank) + " never ran");
    }
  }
  return Status::Ok();
}

void Engine::Ready(int g, double now) {
  const StepStatic& st = steps_[size_t(g)];
  start_[size_t(g)] = now;
  switch (st.kind) {
    case StepKind::kRecv: {
      ready_at_[size_t(g)] = now + st.fixed_ns;
      const int send = st.partner;
      if (arrived_[size_t(send)]) {
        Push(std::max(ready_at_[size_t(g)], end_[size_t(send)]), kComplete, g);
      } else {
        arrived_[size_t(g)] = 1;  // waiting for the data
      }
      break;
    }
    case StepKind::kCollective:
    case StepKind::kFused: {
      const int c = st.coll;
      coll_ready_[size_t(c)] = std::max(coll_ready_[size_t(c)], now + st.fixed_ns);
      if (++coll_arrivals_[size_t(c)] == tp_) {
        Push(coll_ready_[size_t(c)] + coll_time_[size_t(c)].latency_ns, kWorkStart, int(steps_.size()) + c);
      }
      break;
    }
    default:
      Push(now + st.fixed_ns, kWorkStart, g);
      break;
  }
}

int Engine::ActivityRanks(int a, int* out) const {
  if (a < int(steps_.size())) {
    const StepStatic& st = steps_[size_t(a)];
    out[0] = st.rank;
    if (st.act == Act::kTransfer && st.dst_rank != st.rank) {
      out[1] = st.dst_rank;
      return 2;
    }
    return 1;
  }
  for (int r = 0; r < tp_; ++r) out[r] = r;
  return tp_;
}

void Engine::Touch(int a, int sign) {
  const int n = int(steps_.size());
  int* ranks = scratch_ranks_.data();
  const int nr = ActivityRanks(a, ranks);
  for (int i = 0; i < nr; ++i) {
    auto& run = running_[size_t(ranks[i])];
    if (sign > 0) {
      run.push_back(a);
    } else {
      run.erase(std::find(run.begin(), run.end(), a));
    }
  }
  if (a >= n) {
    const int c = a - n;
    const int port = coll_port_[size_t(c)];
    for (int r = 0; r < tp_; ++r) {
      held_sms_[size_t(r)] += sign * coll_sm_hold_[size_t(c)];
      hbm_sum_[size_t(r)] += sign * coll_hbm_[size_t(c)];
      port_out_[size_t(PortOf(r, port))] += sign;
      port_in_[size_t(PortOf(r, port))] += sign;
    }
    return;
  }
  const StepStatic& st = steps_[size_t(a)];
  const int r = st.rank;
  held_sms_[size_t(r)] += sign * st.sm_hold;
  hbm_sum_[size_t(r)] += sign * st.hbm_demand;
  if (st.act == Act::kGemm) gemms_[size_t(r)] += sign;
  if (st.act == Act::kTransfer) {
    port_out_[size_t(st.src_port)] += sign;
    port_in_[size_t(st.dst_port)] += sign;
    if (st.dst_rank != r) hbm_sum_[size_t(st.dst_rank)] += sign * st.hbm_demand;
  }
}

// Demands share the achievable HBM rate in proportion; copies count
// hbm_copy_weight times their own rate (see GemmBesideHeldSmsNs).
double Engine::HbmFactor(int rank) const {
  const double sum = hbm_sum_[size_t(rank)], cap = gpu_.hbm_gbs * gpu_.hbm_efficiency;
  return sum <= cap ? 1.0 : cap / sum;
}

double Engine::RateOf(int a) {
  const int n = int(steps_.size());
  if (a >= n) {
    const int port = coll_port_[size_t(a - n)];
    double rate = 1.0;
    for (int r = 0; r < tp_; ++r) {
      const int users = std::max(port_out_[size_t(PortOf(r, port))], port_in_[size_t(PortOf(r, port))]);
      rate = std::min(rate, HbmFactor(r) / std::max(users, 1));
    }
    return rate;
  }
  const StepStatic& st = steps_[size_t(a)];
  const int r = st.rank;
  switch (st.act) {
    case Act::kGemm: {
      const int sms = std::max(1, (gpu_.sm_count - held_sms_[size_t(r)]) / std::max(gemms_[size_t(r)], 1));
      GemmEntry& ge = gemm_costs_[size_t(st.gemm)];
      if (sms == gpu_.sm_count) return HbmFactor(r);  // work_ns is the full-SM body
      if (sms != ge.other_sms) {
        ge.other_sms = sms;
        ge.other_ns = ge.cost.BodyNs(sms);
      }
      return st.work_ns / ge.other_ns * HbmFactor(r);
    }
    case Act::kTransfer: {
      const int users = std::max(port_out_[size_t(st.src_port)], port_in_[size_t(st.dst_port)]);
      return std::min(HbmFactor(r), HbmFactor(st.dst_rank)) / std::max(users, 1);
    }
    default:
      return HbmFactor(r);
  }
}

void Engine::Reevaluate(int a, double now) {
  Activity& x = acts_[size_t(a)];
  x.remaining = std::max(0.0, x.remaining - (now - x.last) * x.rate);
  x.last = now;
  const double rate = RateOf(a);
  if (rate == x.rate) return;
  x.rate = rate;
  FinSet(a, now + x.remaining / rate);
}

void Engine::ReevaluateRanks(int a, double now) {
  ++stamp_now_;
  int* ranks = scratch_ranks_.data();
  const int nr = ActivityRanks(a, ranks);
  for (int i = 0; i < nr; ++i) {
    for (int b : running_[size_t(ranks[i])]) {
      if (stamp_[size_t(b)] == stamp_now_) continue;
      stamp_[size_t(b)] = stamp_now_;
      Reevaluate(b, now);
    }
  }
}

void Engine::WorkStart(int a, double now) {
  const int n = int(steps_.size());
  Activity& x = acts_[size_t(a)];
  const double work = a < n ? steps_[size_t(a)].work_ns : coll_time_[size_t(a - n)].transfer_ns;
  const int hold = a < n ? steps_[size_t(a)].sm_hold : coll_sm_hold_[size_t(a - n)];
  if (hold > 0 && !x.delayed) {
    // Without a higher stream priority, a comm kernel's CTAs get SMs only as
    // the running GEMM's current wave retires.
    const int prio = a < n ? steps_[size_t(a)].priority : steps_[size_t(graph_.group_members(a - n)[0])].priority;
    int* ranks = scratch_ranks_.data();
    const int nr = ActivityRanks(a, ranks);
    double delay = 0;
    for (int i = 0; i < nr; ++i) {
      for (int b : running_[size_t(ranks[i])]) {
        if (b >= n || steps_[size_t(b)].act != Act::kGemm || steps_[size_t(b)].priority < prio) continue;
        const StepStatic& gs = steps_[size_t(b)];
        const GemmCost& cost = gemm_costs_[size_t(gs.gemm)].cost;
        const int r = gs.rank;
        const int sms = std::max(1, (gpu_.sm_count - held_sms_[size_t(r)]) / std::max(gemms_[size_t(r)], 1));
        if (cost.tiles < sms) continue;
        Activity& y = acts_[size_t(b)];
        y.remaining = std::max(0.0, y.remaining - (now - y.last) * y.rate);
        y.last = now;
        const double waves = double(cost.Waves(sms));
        const double pos = (1.0 - y.remaining / gs.work_ns) * waves;
        const double frac = std::ceil(pos) - pos;
        if (frac > 1e-9 && y.rate > 0) delay = std::max(delay, frac * gs.work_ns / (waves * y.rate));
      }
    }
    if (delay > 0) {
      x.delayed = true;
      Push(now + delay, kWorkStart, a);
      return;
    }
  }
  if (a >= n) coll_start_[size_t(a - n)] = now;
  if (work <= 0) {
    x.running = true;
    Touch(a, +1);
    Finish(a, now);
    return;
  }
  x.running = true;
  x.remaining = work;
  x.last = now;
  x.rate = 0;
  Touch(a, +1);
  ReevaluateRanks(a, now);
}

void Engine::Finish(int a, double now) {
  const int n = int(steps_.size());
  acts_[size_t(a)].running = false;
  Touch(a, -1);
  ReevaluateRanks(a, now);
  if (a >= n) {
    const int c = a - n;
    for (int g : graph_.group_members(c)) Complete(g, now);
    return;
  }
  const StepStatic& st = steps_[size_t(a)];
  if (st.kind == StepKind::kSend) {
    arrived_[size_t(a)] = 1;
    end_[size_t(a)] = now;
    const int recv = st.partner;
    if (arrived_[size_t(recv)]) Push(std::max(now, ready_at_[size_t(recv)]), kComplete, recv);
  }
  Complete(a, now);
}

Engine::FusedSpan Engine::fused_span(int g) const {
  const int c = steps_[size_t(g)].coll;
  const FusedTime& ft = coll_fused_[size_t(c)];
  const double start = coll_start_[size_t(c)], end = end_[size_t(g)];
  const double stretch = ft.total_ns > 0 ? (end - start) / ft.total_ns : 1.0;
  return {end - ft.gemm_ns * stretch, end, start, start + ft.comm_ns * stretch};
}

void Engine::Complete(int g, double now) {
  end_[size_t(g)] = now;
  pending_[size_t(g)] = -1;
  makespan_ = std::max(makespan_, now);
  for (int d : graph_.dependents(g)) {
    if (--pending_[size_t(d)] == 0) Ready(d, now);
  }
}

}  // namespace braid::sim
