// The sim engine's Load: a plan's static costs (per step, per collective
// group) beside its PlanGraph, computed once per plan so that RunOnce only
// runs events.
#include <algorithm>
#include <limits>

#include "braid/sim_loopback.h"
#include "sim_engine.h"

namespace braid::sim {

void Engine::Load(const Plan& plan) {
  // Partners, groups and dependents come from the plan graph; a plan it
  // refuses leaves RunOnce that error to return.
  load_status_ = graph_.Rebuild(plan, PlanGraphOptions{.order = false});
  if (!load_status_.ok()) return;
  LoadWithBuiltGraph(plan);
}

void Engine::LoadWithBuiltGraph(const Plan& plan) {
  load_status_ = Status::Ok();
  tp_ = plan.tp();
  devs_ = loopback_ ? 1 : tp_;
  loopback_copy_hbm_ = loopback_ ? LoopbackTransfer(gpu_, 0).hbm_demand : 0.0;
  // Each op's kernels run with its own knobs (Plan::op_knobs): resolved
  // once per op, the steps then index them.
  const int op_count = plan.op_count();
  op_knobs_.resize(size_t(op_count));
  for (int i = 0; i < op_count; ++i) {
    const OpKnobs k = plan.op_knobs(i);
    ResolvedKnobs& o = op_knobs_[size_t(i)];
    o.comm_sms = CommSms(topo_, k.comm_sms);
    o.pace_sms = k.comm_sms > 0 ? k.comm_sms : (gpu_.sm_copy_gbs > 0 ? o.comm_sms : 0);
    // What a running comm kernel takes from a concurrent GEMM.
    o.comm_lost = CommSmsLost(o.comm_sms, contention_, gpu_.sm_count);
    o.config_sms = k.comm_sms;
    o.ce = k.comm_engine == CommEngine::kCopyEngine;
    o.gemm_sms =
        k.sm_margin ? std::clamp(gpu_.sm_count - CommSms(topo_, k.margin_sms), 1, gpu_.sm_count) : gpu_.sm_count;
  }
  const double launch = gpu_.launch_us * 1e3, wait = gpu_.event_wait_us * 1e3;

  steps_.resize(size_t(graph_.steps()));
  n_steps_ = graph_.steps();
  // Loopback's ranks are threads of one process launching through one
  // driver: each host call takes the thread's own part
  // (loopback_rank_launch_us, beside the other threads') and the driver's
  // shared part (loopback_launch_us, in turns with the other ranks'), each
  // rank in its steps' order (the cuda backend issues a rank's steps in id
  // order and waits for none of them): a step is launched once the calls
  // before it are (LoopbackHostCalls). The first launches start the clock,
  // as the first GPU event starts a measured run's.
  launched_at_.clear();
  if (loopback_ && (gpu_.loopback_launch_us > 0 || gpu_.loopback_rank_launch_us > 0)) {
    launched_at_.resize(size_t(n_steps_));
    const double per_call = (gpu_.loopback_rank_launch_us + gpu_.loopback_launch_us * double(tp_)) * 1e3;
    for (int r = 0; r < tp_; ++r) {
      const std::vector<Step>& rs = plan.ranks[size_t(r)].steps;
      const int base = graph_.first_step(r);
      double calls = 0;
      for (size_t i = 0; i < rs.size(); ++i) {
        launched_at_[size_t(base) + i] = calls * per_call;
        calls += LoopbackHostCalls(rs[i], tp_, graph_.cross_lane_deps()[size_t(base) + i]);
      }
    }
  }
  // Running-list room per GPU (see run_off_): its steps, the transfers
  // into it, every group; counted at d + 1, then summed into offsets.
  run_off_.assign(size_t(devs_) + 1, 0);
  gemm_priority_.assign(size_t(devs_), std::numeric_limits<int>::min());
  gemm_costs_.clear();
  // Consecutive steps mostly share a shape: memoize the last cost.
  int64_t last_m = -1, last_n = -1, last_k = -1, last_bytes = -1;
  int last_gemm_sms = -1, last_send_op = -1, last_pieces = 1;
  double last_gemm_demand = 0, last_send_demand = 0;  // the HBM demands of those
  const Link* last_link = nullptr;
  CommTime last_ct;
  int last_from = -1, last_to = -1, last_port = 0;
  int64_t last_mem_bytes = -1;
  double last_mem_ns = 0;
  // A memory kernel's demand, and its share of the HBM rate alone: the same
  // for every one.
  const double mem_demand = gpu_.hbm_gbs * gpu_.hbm_efficiency * gpu_.hbm_copy_weight;
  const double mem_share = HbmShareAlone(gpu_, mem_demand);
  // The graph's per-step arrays and the steps, through local pointers: the
  // loop's stores to steps_ would otherwise make the compiler reload every
  // vector's data pointer per step.
  const int* cross_lane = graph_.cross_lane_deps().data();
  const int* partner = graph_.partners().data();
  const int* group_of = graph_.groups_of().data();
  const Lane* lanes = plan.lanes.data();
  StepStatic* statics = steps_.data();

  for (int r = 0; r < tp_; ++r) {
    const RankPlan& rp = plan.ranks[size_t(r)];
    const int dev = loopback_ ? 0 : r;
    const Step* rank_steps = rp.steps.data();
    const int count = int(rp.steps.size());
    const int base = graph_.first_step(r);
    run_off_[size_t(dev) + 1] += count;
    for (int i = 0; i < count; ++i) {
      const Step& s = rank_steps[i];
      const int g = base + i;  // the graph checked that step i has id i
      const ResolvedKnobs& knobs = op_knobs_[size_t(std::clamp(s.op, 0, op_count - 1))];
      const Lane& lane = lanes[s.lane];
      StepStatic& st = statics[g];
      st = StepStatic{.fixed_ns = launch + cross_lane[g] * wait,
                      .work_ns = 0,
                      .hbm_demand = 0,
                      .dev = dev,
                      .priority = lane.priority,
                      .sm_hold = 0,
                      .partner = partner[g],
                      .coll = group_of[g],
                      .dst_dev = -1,
                      .gemm = -1,
                      .kind = s.kind,
                      .act = Act::kNone,
                      .port_class = 0};
      const bool comm_lane = lane.kind == LaneKind::kComm;
      switch (s.kind) {
        case StepKind::kGemm: {
          // The cuda backend multiplies a region of several pieces (a
          // serial or chunked plan's slice of every rank block) one piece
          // at a time: `pieces` GEMMs of `rows` rows back to back, each
          // launched and chosen for its own shape (step_issue.cc Gemm). In
          // loopback, where the sim predicts that backend, so does the
          // sim; elsewhere it keeps one GEMM of all the rows (SimGolden),
          // the plan as any runtime would run it.
          const int pieces = loopback_ ? s.a.pieces : 1;
          const int64_t m = loopback_ ? s.a.rows : s.a.total_rows(), k = rp.buffers[size_t(s.a.buffer)].cols;
          const int64_t nn = rp.buffers[size_t(s.b.buffer)].cols;
          st.act = Act::kGemm;
          if (m != last_m || nn != last_n || k != last_k || knobs.gemm_sms != last_gemm_sms || pieces != last_pieces) {
            // A GEMM launched on the SMs a margin leaves is chosen and
            // sized for them (cuBLASLt's SM_COUNT_TARGET) and never runs on
            // more (cap_sms).
            const int grid = knobs.gemm_sms < gpu_.sm_count ? knobs.gemm_sms : 0;
            GemmCost c = CachedGemmCost(m, nn, k, plan.workload.dtype, grid);
            // In loopback the other ranks' kernels fill the SMs a GEMM's
            // share (or its last wave) leaves: the board's clocks stay at
            // full load, no boost for fewer busy SMs (GemmCost::BodyNs).
            if (loopback_) c.boost_cap = 1.0;
            gemm_costs_.push_back({c, c.BodyNs(gpu_.sm_count), -1, 0, 0});
            gemm_costs_.back().cap_sms = knobs.gemm_sms;
            gemm_costs_.back().pieces = pieces;
            const double full_ns = gemm_costs_.back().full_ns;
            last_gemm_demand = full_ns > 0 ? c.hbm_traffic / full_ns : 0;
            last_m = m, last_n = nn, last_k = k, last_gemm_sms = knobs.gemm_sms, last_pieces = pieces;
          }
          st.gemm = int(gemm_costs_.size()) - 1;
          // The pieces run one after another at one piece's rate (RateOf's
          // ratio is a piece's), each but the first after its own launch.
          st.work_ns = double(pieces) * gemm_costs_.back().full_ns;
          st.fixed_ns += double(pieces - 1) * launch;
          st.hbm_demand = last_gemm_demand;
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
          gemm_costs_.push_back({c, c.BodyNs(gpu_.sm_count), -1, 0, 0});
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
          if (s.bytes != last_mem_bytes) {
            last_mem_ns = MemoryKernelNs(gpu_, s.bytes) - launch;
            last_mem_bytes = s.bytes;
          }
          // Its demand is weighted (hbm_copy_weight, fitted to GEMMs beside
          // copies): scaled by HbmShareAlone, alone it still takes
          // MemoryKernelNs (unscaled it ran 1.69× slower on h100-sxm, and a
          // gemm_rs ring's chain of adds with it).
          st.hbm_demand = mem_demand;
          st.work_ns = last_mem_ns * mem_share;
          st.sm_hold = comm_lane && !(knobs.ce && s.kind == StepKind::kCopy) ? knobs.comm_lost : 0;
          if (loopback_) {
            // Every rank's memory kernels stream through the one HBM: with
            // the device copies on port 0, they share the rate a single one
            // takes instead of each demanding all of it.
            st.act = Act::kTransfer;
            st.work_ns = LoopbackMemoryKernel(gpu_, s.bytes).work_ns;
            st.hbm_demand = 0;
            st.dst_dev = dev;
          }
          break;
        case StepKind::kSend: {
          if (loopback_) {
            // A device copy on the one GPU, on its copy port (0): the copies
            // running share the HBM rate (UpdateHbmFactor), holding no SMs.
            if (s.bytes != last_bytes) {
              const LoopbackCopy lc = LoopbackTransfer(gpu_, s.bytes);
              last_ct = {lc.latency_ns, lc.work_ns};
              last_bytes = s.bytes;
            }
            st.act = Act::kTransfer;
            st.fixed_ns += last_ct.latency_ns;
            st.work_ns = last_ct.transfer_ns;
            st.dst_dev = dev;
            break;
          }
          if (r != last_from || s.peer != last_to) {
            const Link& link = LinkBetween(topo_, r, s.peer);
            last_port = PortClass(topo_, link);
            if (&link != last_link) last_bytes = -1;
            last_link = &link;
            last_from = r, last_to = s.peer;
          }
          if (s.bytes != last_bytes || s.op != last_send_op) {
            last_ct =
                knobs.ce ? P2pTime(*last_link, s.bytes) : SmDrivenP2pTime(gpu_, *last_link, s.bytes, knobs.pace_sms);
            last_bytes = s.bytes;
            last_send_op = s.op;
            last_send_demand = last_ct.transfer_ns > 0 ? double(s.bytes) / last_ct.transfer_ns *
                                                             (knobs.ce ? gpu_.hbm_ce_weight : gpu_.hbm_copy_weight)
                                                       : 0;
          }
          const CommTime ct = last_ct;
          st.port_class = uint8_t(last_port);
          if (s.peer != r) ++run_off_[size_t(s.peer) + 1];
          st.act = Act::kTransfer;
          st.fixed_ns += ct.latency_ns;
          st.work_ns = ct.transfer_ns;
          st.hbm_demand = last_send_demand;
          st.sm_hold = knobs.ce ? 0 : knobs.comm_lost;
          st.dst_dev = s.peer;
          break;
        }
        case StepKind::kRecv:
          break;
        case StepKind::kCollective:
        case StepKind::kFused:
          st.act = Act::kCollective;
          break;
      }
      // What WorkStart's wave wait looks for: GEMM-like activities.
      if (st.act == Act::kGemm) gemm_priority_[size_t(dev)] = std::max(gemm_priority_[size_t(dev)], st.priority);
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
    const ResolvedKnobs& knobs = op_knobs_[size_t(std::clamp(s.op, 0, op_count - 1))];
    const int comm_sms = knobs.comm_sms;
    if (s.kind == StepKind::kFused) {
      // The whole persistent kernel is one activity of all ranks; it holds
      // no SMs from other kernels' view (it owns its own split).
      const RankPlan& rp = plan.ranks[0];
      const int64_t m = std::max(s.a.total_rows(), s.c.total_rows());
      const int64_t k = rp.buffers[size_t(s.a.buffer)].cols, nn = rp.buffers[size_t(s.b.buffer)].cols;
      const int fused_sms = std::min(comm_sms, gpu_.sm_count - 1);
      const FusedTime ft = loopback_
                               ? LoopbackFusedTime(gpu_, m, nn, k, plan.workload.dtype, s.collective, s.bytes, tp_,
                                                   comm_sms, contention_)
                               : FusedKernelTime(gpu_, topo_, m, nn, k, plan.workload.dtype, s.collective, s.bytes, tp_,
                                                 fused_sms, CommSmsLost(fused_sms, contention_, gpu_.sm_count));
      coll_time_.push_back({0, ft.total_ns});
      coll_hbm_.push_back(ft.total_ns > 0 ? ft.hbm_bytes / ft.total_ns : 0);
      coll_sm_hold_.push_back(0);
      // In loopback, not a copy-engine copy: off the copy port (0).
      coll_port_.push_back(loopback_ ? 1 : PortClass(topo_, CollectiveLink(topo_, tp_)));
      coll_fused_.push_back(ft);
      continue;
    }
    if (loopback_) {
      const LoopbackCopy lc = LoopbackCollective(gpu_, s.collective, s.bytes, tp_);
      coll_time_.push_back({lc.latency_ns, lc.work_ns});
      coll_fused_.push_back({});
      coll_hbm_.push_back(0);  // its copies' demand comes with the copy port (UpdateHbmFactor)
      // No SMs held: beside GEMMs its copies and add kernel share the GPU's
      // time as the copy port's users (UpdateHbmFactor, loopback_overlap).
      coll_sm_hold_.push_back(0);
      coll_port_.push_back(0);
      continue;
    }
    // On the copy engine an all-gather holds no SMs and is not paced by
    // them; every other collective runs on its op's comm SMs.
    const bool ce_gather = knobs.ce && s.collective == CollectiveKind::kAllGather;
    const CollectiveChoice choice = ce_gather
                                        ? CollectiveChoice{RingCollectiveTime(topo_, s.collective, s.bytes, tp_)}
                                        : ChooseCollective(gpu_, topo_, s.collective, s.bytes, tp_, knobs.pace_sms);
    const CommTime& ct = choice.time;
    coll_time_.push_back(ct);
    coll_fused_.push_back({});
    coll_hbm_.push_back(ct.transfer_ns > 0 ? CollectiveHbmBytes(s.collective, choice.algo, s.bytes, tp_) /
                                                 ct.transfer_ns * gpu_.hbm_copy_weight
                                           : 0);
    // NVLS runs on its own channel count (16 CTAs on Hopper against the
    // ring's 24): a GEMM beside it keeps the difference.
    int held = knobs.comm_lost;
    if (choice.algo == CollectiveAlgo::kNvls) {
      held = CommSmsLost(CollectiveSms(topo_, tp_, choice.algo, knobs.config_sms), contention_, gpu_.sm_count);
    }
    coll_sm_hold_.push_back(ce_gather ? 0 : held);
    coll_port_.push_back(PortClass(topo_, CollectiveLink(topo_, tp_)));
  }
  for (int d = 0; d < devs_; ++d) run_off_[size_t(d) + 1] += run_off_[size_t(d)] + graph_.groups();
  run_buf_.resize(size_t(run_off_.back()));
}

// The kernel choice tries every candidate: keep the costs of the shapes seen
// (a tuner evaluates many plans of the same few shapes).
GemmCost Engine::CachedGemmCost(int64_t m, int64_t n, int64_t k, DType dtype, int grid_sms) {
  for (const CostMemo& e : cost_memo_) {
    if (e.m == m && e.n == n && e.k == k && e.dtype == dtype && e.grid_sms == grid_sms) return e.cost;
  }
  if (cost_memo_.size() >= kCostMemoSize) cost_memo_.clear();
  cost_memo_.push_back({m, n, k, dtype, grid_sms, GemmCostOf(gpu_, m, n, k, dtype, grid_sms)});
  return cost_memo_.back().cost;
}

Engine::FusedSpan Engine::fused_span(int g) const {
  const int c = steps_[size_t(g)].coll;
  const FusedTime& ft = coll_fused_[size_t(c)];
  const double start = coll_start_[size_t(c)], end = end_[size_t(g)];
  const double stretch = ft.total_ns > 0 ? (end - start) / ft.total_ns : 1.0;
  return {end - ft.gemm_ns * stretch, end, start, start + ft.comm_ns * stretch};
}

}  // namespace braid::sim
