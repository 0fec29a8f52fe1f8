// The discrete-event core of the sim backend. Load() turns a checked Plan
// into flat per-step static costs beside its PlanGraph (partners, collective
// groups, dependents: braid/plan_graph.h); RunOnce()
// simulates one iteration with a binary heap of timed events and leaves each
// step's start and end in start_ns() / end_ns(). Buffers are reused across
// calls: after the first run of a plan size nothing is allocated.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "braid/gpu_files.h"
#include "braid/plan.h"
#include "braid/plan_graph.h"
#include "braid/sim_models.h"
#include "braid/status.h"
#include "braid/topology.h"

namespace braid::sim {

class Engine {
 public:
  // comm_sm_contention: see CommSmsLost (1.0 = a comm kernel takes exactly
  // its own SMs from a concurrent GEMM). loopback: every rank on one GPU
  // (sim_loopback.h): one device's SMs, HBM and copy engines for all.
  Engine(const GpuSpec& gpu, const Topology& topo, double comm_sm_contention = 1.0, bool loopback = false)
      : gpu_(gpu), topo_(topo), contention_(comm_sm_contention), loopback_(loopback) {}

  // @pre CheckPlanStructure(plan).ok() and the topology holds plan.tp() GPUs.
  // A plan whose graph does not build (PlanGraph's rules) loads nothing and
  // RunOnce returns that error.
  void Load(const Plan& plan);
  // Load with graph() already built for `plan` (CheckPlanStructure(plan,
  // graph()) passed): the same, without building it again.
  void LoadWithBuiltGraph(const Plan& plan);
  PlanGraph& graph() { return graph_; }
  // Simulates one iteration from t = 0; Internal if a step never ran.
  Status RunOnce();

  int steps() const { return n_steps_; }
  int first_step(int rank) const { return graph_.first_step(rank); }  // global index of step 0
  double start_ns(int g) const { return start_[size_t(g)]; }
  double end_ns(int g) const { return end_[size_t(g)]; }
  double makespan_ns() const { return makespan_; }

  // A fused step's two parts after RunOnce: the transfers from the kernel's
  // start, the GEMM's busy time ending with the kernel (when comm-bound it
  // waits on ready flags first), both stretched as contention stretched the
  // kernel. @pre step g is a kFused step of a multi-rank plan.
  struct FusedSpan {
    double gemm_start, gemm_end, comm_start, comm_end;
  };
  FusedSpan fused_span(int g) const;

 private:
  enum class Act : uint8_t { kGemm, kMemory, kTransfer, kCollective, kNone };

  // 64 bytes: a cache line per step (the event loop reads them in no order).
  struct StepStatic {
    double fixed_ns;    // launch + event waits (+ latency for transfers)
    double work_ns;     // uncontended duration of the contended part
    double hbm_demand;  // bytes per ns at rate 1
    int dev, priority;  // dev: the GPU it runs on (its rank, or 0 in loopback)
    int sm_hold;        // SMs a concurrent GEMM loses while it runs (CommSmsLost)
    int partner;        // send ↔ recv global index (PlanGraph::partner)
    int coll;           // collective group (PlanGraph::group_of), or -1
    int dst_dev;        // transfers: the receiver's GPU
    int gemm;           // index into gemms_costs_, or -1
    StepKind kind;
    Act act;
    uint8_t port_class;  // transfers: the link's port class on each end (PortClass)
  };

  // One distinct GEMM shape, with a memo of BodyNs for the full SM count
  // and for the last other SM count (SMs left beside a comm kernel).
  struct GemmEntry {
    GemmCost cost;
    double full_ns;
    int other_sms;
    double other_ns;
    double other_ratio;  // full_ns / other_ns
    // Waves on the last SM count a comm kernel's start asked for (an
    // integer division per ask without it).
    int waves_sms = -1;
    double waves = 0;
    // The most SMs it runs on: what a margin leaves it
    // (OverlapConfig::sm_margin), or no cap.
    int cap_sms = std::numeric_limits<int>::max();
    // GEMMs of this shape the step runs back to back (loopback: a region's
    // pieces, one cuBLASLt call each; 1 elsewhere). work_ns is them all.
    int pieces = 1;
  };

  // One op's knobs as this GPU and topology resolve them (Plan::op_knobs).
  struct ResolvedKnobs {
    int comm_sms = 0;  // its comm kernels' SMs (CommSms)
    // The SMs that pace its transfers (SmCommGbs): an explicit budget; the
    // backend default (0) is NCCL's own channel count, which fills the
    // link, paced only by a fitted copy curve, as before budgets paced.
    int pace_sms = 0;
    int comm_lost = 0;   // what a concurrent GEMM loses to one (CommSmsLost)
    int config_sms = 0;  // the op's own comm_sms (0: each algorithm's channels, CollectiveSms)
    int gemm_sms = 0;    // the SMs its GEMMs may use: sm_count less a margin
    bool ce = false;     // copy-engine transfers
  };

  // A running contended part: a step (id < steps) or a collective group.
  // Not reset between runs: WorkStart sets what a run reads, and
  // delayed_run says whether the start was delayed in this run.
  struct Activity {
    double remaining = 0, rate = 0, last = 0;  // remaining work as of `last`, when the rate last changed
    int heap_pos = -1;                         // index in fin_heap_, or -1
    uint32_t delayed_run = 0;                  // the run_ whose start was delayed (wave wait)
    // The work left at `now` at the current rate.
    double RemainingAt(double now) const { return std::max(0.0, remaining - (now - last) * rate); }
  };

  // Timed step events (kWorkStart / kComplete), popped in time order, equal
  // times first in, first out. Finishes of running activities live in a
  // separate indexed heap, so a rate change moves its entry instead of
  // leaving a stale one.
  struct TimedEvent {
    double t;
    int id;
    int type;
  };

  template <bool kLoopback>
  void EventLoop();  // RunOnce's loop, per mode (loopback or not)
  GemmCost CachedGemmCost(int64_t m, int64_t n, int64_t k, DType dtype, int grid_sms);
  void Push(double t, int type, int id);
  TimedEvent Pop();              // @pre events_head_ < events_end_
  void FinSet(int a, double t);  // insert or move activity a's finish
  void FinRemove(int a);
  void FinSiftUp(int pos);
  void FinSiftDown(int pos);
  void Ready(int g, double now);
  double WaveDelay(int dev, int prio, double now, double delay);
  template <bool kLoopback>
  void WorkStart(int a, double now);
  template <bool kLoopback>
  void Finish(int a, double now, bool moved);
  void Complete(int g, double now);
  void Reevaluate(int a, double now);
  template <bool kStarted>
  void ReevaluateRanks(int a, double now, bool others);
  double RateOf(int a);  // updates the GEMM body memo
  template <bool kLoopback>
  void UpdateHbmFactor(int dev);
  void UpdateGemmSms(int dev);
  bool RunsOn(int a, int dev) const;  // activity a involves GPU `dev`
  template <bool kLoopback>
  bool Touch(int a, int sign);
  void Track(int dev, int a, int sign);  // add a to / remove a from dev's running list
  // GPU d's running activities, in the order they started.
  const int* RunningBegin(int r) const { return run_buf_.data() + gpu_state_[size_t(r)].run_off; }
  const int* RunningEnd(int r) const { return RunningBegin(r) + gpu_state_[size_t(r)].run_len; }
  // Each GPU has an intra-node, an inter-node and an NVLink-pair port.
  static constexpr int kPortClasses = 3;

  const GpuSpec& gpu_;
  const Topology& topo_;
  double contention_ = 1.0;
  bool loopback_ = false;
  int tp_ = 0;
  int devs_ = 0;  // GPUs the ranks run on: tp_, or 1 in loopback
  // Loopback: the HBM demand of the device copies running (LoopbackCopy's
  // hbm_demand, for any number of them); 0 otherwise.
  double loopback_copy_hbm_ = 0;
  // Loopback only: the running GEMMs' demands at full SMs, counted at the
  // share of the SMs they get (UpdateHbmFactor). Apart, a GEMM runs on
  // (nearly) all SMs and hbm_sum holds its demand as it is. Outside
  // GpuState, which stays one cache line.
  double loopback_gemm_hbm_ = 0;
  // Loopback only: the running copies' (and memory kernels') HBM and time
  // factor (UpdateHbmFactor); the GEMMs' is the GPU's hbm_factor.
  double loopback_copy_factor_ = 1.0;
  // Loopback with a launch cost (GpuSpec::loopback_launch_us,
  // loopback_rank_launch_us): when each step is launched on the host, its
  // earliest start (Ready); empty otherwise.
  std::vector<double> launched_at_;

  PlanGraph graph_;
  Status load_status_;
  std::vector<StepStatic> steps_;
  int n_steps_ = 0;  // steps_.size(): activities at or above it are groups
  std::vector<CommTime> coll_time_;
  std::vector<double> coll_hbm_;
  std::vector<int> coll_sm_hold_;
  std::vector<int> coll_port_;         // port class of each collective
  std::vector<FusedTime> coll_fused_;  // fused groups: the kernel's parts (total_ns = 0 otherwise)
  std::vector<double> coll_start_;     // when each group's work started

  // Dynamic state.
  std::vector<int> pending_;
  size_t completed_ = 0;  // steps completed by this RunOnce
  std::vector<double> start_, end_, ready_at_;
  std::vector<uint8_t> arrived_;  // sends: data landed; recvs: waiting
  std::vector<int> coll_arrivals_;
  std::vector<double> coll_ready_;
  std::vector<Activity> acts_;
  uint32_t run_ = 0;  // counts RunOnce calls, from 1 (Activity::delayed_run)
  // Pending timed events from events_head_ on, sorted by time: a new event
  // mostly comes last (now + a launch), so Push compares a few from the back
  // and Pop moves nothing. A run pushes at most one per step or group and
  // one per delayed start (each at most once): RunOnce makes room for twice
  // the steps and groups, so the vector never needs compacting nor growing;
  // events_end_ ends those queued.
  std::vector<TimedEvent> events_;
  size_t events_head_ = 0, events_end_ = 0;
  struct FinEntry {
    double finish;
    int a;
  };
  static constexpr FinEntry kFinSentinel{std::numeric_limits<double>::infinity(), -1};
  std::vector<FinEntry> fin_heap_;  // running activities' finishes, a min-heap of fin_n_ entries
  int fin_n_ = 0;
  // One GPU's state, in one cache line: starting or ending an activity
  // reads and writes several of these together.
  struct GpuState {
    double hbm_sum = 0;
    double hbm_factor = 1.0;  // min(1, hbm_cap_ / hbm_sum)
    int held_sms = 0, gemms = 0;
    int gemm_sms = 0;                                             // SMs each running GEMM gets (UpdateGemmSms)
    int run_off = 0, run_len = 0;                                 // its running list in run_buf_
    int port_out[kPortClasses] = {}, port_in[kPortClasses] = {};  // users of each port class
  };
  std::vector<GpuState> gpu_state_;
  double hbm_cap_ = 0;
  // Per GPU: running activities, in start order, in one flat buffer (GPU
  // d's room starts at run_off_[d], copied to GpuState::run_off by RunOnce,
  // which then moves on as the oldest end (Track); room for every activity
  // that can run on it, sized by Load), so that starting or ending one
  // allocates nothing.
  std::vector<int> run_buf_, run_off_;
  std::vector<int> gemm_priority_;  // per GPU: the highest priority of its GEMM-like steps (Load)
  std::vector<uint32_t> stamp_;
  uint32_t stamp_now_ = 0;
  std::vector<GemmEntry> gemm_costs_;
  struct CostMemo {
    int64_t m, n, k;
    DType dtype;
    int grid_sms;
    GemmCost cost;
  };
  std::vector<ResolvedKnobs> op_knobs_;  // per plan op (one for a single-op plan)
  static constexpr size_t kCostMemoSize = 64;
  std::vector<CostMemo> cost_memo_;
  double makespan_ = 0;
};

}  // namespace braid::sim
