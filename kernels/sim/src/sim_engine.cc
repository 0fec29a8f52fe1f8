// The sim engine's event loop: timed step events and an indexed heap of
// running activities' finishes, rates re-evaluated on the ranks an activity
// touches when it starts or ends (see sim_engine.h).
#include "sim_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "sim_engine_queues.h"

namespace braid::sim {

namespace {

enum EventType { kWorkStart = 0, kComplete = 1 };

}  // namespace

// Always inlined into Reevaluate, the event loop's hottest path: GCC stopped
// inlining it once the event handlers were (callgrind on braid_sim_bench).
[[gnu::always_inline]] inline void Engine::FinSet(int a, double t) {
  Activity& x = acts_[size_t(a)];
  if (x.heap_pos < 0) {
    fin_heap_[size_t(fin_n_)] = {t, a};
    FinSiftUp(fin_n_++);
    return;
  }
  double& key = fin_heap_[size_t(x.heap_pos)].finish;
  const double old = key;
  key = t;
  if (t < old) {
    FinSiftUp(x.heap_pos);
  } else {
    FinSiftDown(x.heap_pos);
  }
}

// The event loop, compiled once per mode: in the multi-GPU one the loopback
// branches of Touch and UpdateHbmFactor are gone (2 % of braid_sim_bench's
// instructions when they were tested at run time).
template <bool kLoopback>
void Engine::EventLoop() {
  for (;;) {
    const bool events = events_head_ < events_end_;
    const bool finishes = fin_n_ != 0;
    // Finishes first at equal times: they free resources for what starts.
    if (finishes && (!events || fin_heap_[0].finish <= events_[events_head_].t)) {
      const int a = fin_heap_[0].a;
      const double t = fin_heap_[0].finish;
      FinRemove(a);
      Finish<kLoopback>(a, t, false);
      continue;
    }
    if (!events) break;  // nor finishes
    const TimedEvent e = Pop();
    if (e.type == kWorkStart) {
      WorkStart<kLoopback>(e.id, e.t);
    } else {
      Complete(e.id, e.t);
    }
  }
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
  if (acts_.size() < n + groups) acts_.resize(n + groups);
  if (++run_ == 0) {  // wrapped: no stale delayed_run may equal a new run_
    for (Activity& x : acts_) x.delayed_run = 0;
    run_ = 1;
  }
  coll_start_.assign(groups, 0);
  if (stamp_.size() != n + groups || stamp_now_ > (1u << 30)) {
    stamp_.assign(n + groups, 0);
    stamp_now_ = 0;
  }
  // Room for every event and finish a run can queue (see events_), sized
  // once: Push and FinSet then never check capacity.
  // Below them, Push's -inf sentinel; past the heap, +inf sentinels for
  // FinSiftDown's children (the heap ends every run empty, each slot so).
  if (events_.size() < 2 * (n + groups) + 1) events_.resize(2 * (n + groups) + 1);
  if (fin_heap_.size() < 2 * (n + groups) + 2) fin_heap_.resize(2 * (n + groups) + 2, kFinSentinel);
  events_[0].t = -std::numeric_limits<double>::infinity();
  events_head_ = events_end_ = 1;
  fin_n_ = 0;
  gpu_state_.assign(size_t(devs_), GpuState{});
  loopback_gemm_hbm_ = 0;
  loopback_copy_factor_ = 1.0;
  for (int d = 0; d < devs_; ++d) {
    gpu_state_[size_t(d)].gemm_sms = std::max(1, gpu_.sm_count);
    gpu_state_[size_t(d)].run_off = run_off_[size_t(d)];
  }
  hbm_cap_ = gpu_.hbm_gbs * gpu_.hbm_efficiency;
  makespan_ = 0;

  const std::span<const int> in_degrees = graph_.in_degrees();
  std::copy(in_degrees.begin(), in_degrees.end(), pending_.begin());
  completed_ = 0;
  // Ready changes no in-degree: the graph's, read through a local pointer,
  // are pending_'s here.
  for (size_t g = 0; g < n; ++g) {
    if (in_degrees[g] == 0) Ready(int(g), 0);
  }
  if (loopback_) {
    EventLoop<true>();
  } else {
    EventLoop<false>();
  }
  for (size_t g = 0; completed_ != n && g < n; ++g) {  // a step completes once: a full count is all of them
    if (pending_[g] != -1) {
      const int r = graph_.rank_of(int(g));
      return Status::Internal("sim: step " + std::to_string(g - size_t(first_step(r))) + " of rank " +
                              std::to_string(r) + " never ran");
    }
  }
  return Status::Ok();
}

[[gnu::always_inline]] inline void Engine::Ready(int g, double now) {
  const StepStatic& st = steps_[size_t(g)];
  // A step whose inputs are ready before the host launched it waits for
  // the launch (loopback's one driver; empty elsewhere).
  if (!launched_at_.empty()) now = std::max(now, launched_at_[size_t(g)]);
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
        Push(coll_ready_[size_t(c)] + coll_time_[size_t(c)].latency_ns, kWorkStart, n_steps_ + c);
      }
      break;
    }
    default:
      Push(now + st.fixed_ns, kWorkStart, g);
      break;
  }
}

// Removal keeps the others' order: ReevaluateRanks visits them in it. The
// oldest mostly ends first: then the list starts one later and nothing
// moves (callgrind on braid_sim_bench; moving the shorter side in general
// cost more than it saved). The list only moves on through its GPU's room
// in run_buf_, which holds every activity that can run on that GPU, each
// started at most once per run.
[[gnu::always_inline]] inline void Engine::Track(int dev, int a, int sign) {
  GpuState& g = gpu_state_[size_t(dev)];
  int* list = run_buf_.data() + g.run_off;
  if (sign > 0) {
    list[g.run_len++] = a;
    return;
  }
  --g.run_len;
  if (list[0] == a) {
    ++g.run_off;
    return;
  }
  int i = 1;
  while (list[i] != a) ++i;
  for (; i < g.run_len; ++i) list[i] = list[i + 1];
}

// Returns whether another activity's rate may have moved: false when only
// a's own GPU's HBM factor and GEMM SMs could have, and neither did.
template <bool kLoopback>
[[gnu::always_inline]] inline bool Engine::Touch(int a, int sign) {
  const int n = n_steps_;
  if (a >= n) {
    const int c = a - n;
    const int port = coll_port_[size_t(c)];
    for (int d = 0; d < devs_; ++d) {
      Track(d, a, sign);
      gpu_state_[size_t(d)].held_sms += sign * coll_sm_hold_[size_t(c)];
      UpdateGemmSms(d);
      gpu_state_[size_t(d)].hbm_sum += sign * coll_hbm_[size_t(c)];
      gpu_state_[size_t(d)].port_out[port] += sign;
      gpu_state_[size_t(d)].port_in[port] += sign;
      UpdateHbmFactor<kLoopback>(d);  // after the ports: in loopback port 0 counts the copies
    }
    return true;
  }
  const StepStatic& st = steps_[size_t(a)];
  const int r = st.dev;
  const double old_factor = gpu_state_[size_t(r)].hbm_factor, old_copy_factor = loopback_copy_factor_;
  const int old_sms = gpu_state_[size_t(r)].gemm_sms;
  Track(r, a, sign);
  // A factor is recomputed only where its inputs moved: the same values.
  if (st.hbm_demand != 0) {
    (kLoopback && st.act == Act::kGemm ? loopback_gemm_hbm_ : gpu_state_[size_t(r)].hbm_sum) += sign * st.hbm_demand;
    UpdateHbmFactor<kLoopback>(r);
  }
  if (st.sm_hold != 0 || st.act == Act::kGemm) {
    gpu_state_[size_t(r)].held_sms += sign * st.sm_hold;
    if (st.act == Act::kGemm) gpu_state_[size_t(r)].gemms += sign;
    UpdateGemmSms(r);
    if constexpr (kLoopback) UpdateHbmFactor<kLoopback>(r);  // the GEMMs' SM shares moved
  }
  if (st.act == Act::kTransfer) {
    gpu_state_[size_t(r)].port_out[st.port_class] += sign;
    gpu_state_[size_t(st.dst_dev)].port_in[st.port_class] += sign;
    if constexpr (kLoopback) UpdateHbmFactor<kLoopback>(r);  // a device copy: one more or less on the copy port
    if (st.dst_dev != r) {
      Track(st.dst_dev, a, sign);
      if (st.hbm_demand != 0) {
        gpu_state_[size_t(st.dst_dev)].hbm_sum += sign * st.hbm_demand;
        UpdateHbmFactor<kLoopback>(st.dst_dev);
      }
    }
    return true;  // its ports moved
  }
  // A GEMM or memory kernel: what other rates read of r is its HBM factor
  // and its GEMMs' SMs (RateOf).
  // In loopback also the copies' factor (the GPU's time shared with them).
  return gpu_state_[size_t(r)].hbm_factor != old_factor || gpu_state_[size_t(r)].gemm_sms != old_sms ||
         (kLoopback && loopback_copy_factor_ != old_copy_factor);
}

// Demands share the achievable HBM rate in proportion; copies count
// hbm_copy_weight times their own rate (see GemmBesideHeldSmsNs). Kept per
// rank as the demands change: RateOf reads it far more often.
// SMs each GEMM on GPU `dev` gets: what the comm kernels leave, shared
// evenly (in loopback among every rank's GEMMs).
[[gnu::always_inline]] inline void Engine::UpdateGemmSms(int dev) {
  const int free_sms = gpu_.sm_count - gpu_state_[size_t(dev)].held_sms, gemms = gpu_state_[size_t(dev)].gemms;
  gpu_state_[size_t(dev)].gemm_sms =
      std::max(1, gemms > 1 ? free_sms / gemms : free_sms);  // mostly one GEMM: no division
}

// In loopback, running device copies and memory kernels (users of port 0)
// demand loopback_copy_hbm_ together however many run: one copy-engine copy
// already takes the whole HBM rate, more only share it (sim_loopback.h).
// Always inlined, as before loopback made it longer: out of line it cost
// the event loop 3 % (callgrind on braid_sim_bench).
// In loopback the GEMMs and the copies (with the memory kernels, the users of
// port 0) also share the one GPU's time: while both run, the copies get a
// share phi = copies / (copies + GEMMs) of it and the GEMMs the rest, of
// which loopback_overlap is hidden (each class then runs at its share plus
// loopback_overlap of the other's: 1, sharing only HBM, as before it was
// measured; 0, one after the other). Each class pulls HBM at its rate, and
// the GEMMs' factor is hbm_factor, the copies' loopback_copy_factor_.
template <bool kLoopback>
[[gnu::always_inline]] inline void Engine::UpdateHbmFactor(int dev) {
  GpuState& g = gpu_state_[size_t(dev)];
  double sum = g.hbm_sum;
  if constexpr (kLoopback) {
    double gemm_time = 1.0, copy_time = 1.0;
    const int copies = g.port_out[0];
    if (copies > 0 && g.gemms > 0 && gpu_.loopback_overlap < 1.0) {
      const double phi = double(copies) / double(copies + g.gemms);
      gemm_time = 1.0 - phi * (1.0 - gpu_.loopback_overlap);
      copy_time = phi + gpu_.loopback_overlap * (1.0 - phi);
    }
    // P ranks' GEMMs split the SMs: each pulls HBM at its SM share's rate.
    const double share = std::min(1.0, double(g.gemm_sms) / double(gpu_.sm_count));
    sum += loopback_gemm_hbm_ * share * gemm_time + (copies > 0 ? loopback_copy_hbm_ * copy_time : 0.0);
    const double f = sum <= hbm_cap_ ? 1.0 : hbm_cap_ / sum;
    g.hbm_factor = f * gemm_time;
    loopback_copy_factor_ = f * copy_time;
    return;
  }
  g.hbm_factor = sum <= hbm_cap_ ? 1.0 : hbm_cap_ / sum;
}

[[gnu::always_inline]] inline double Engine::RateOf(int a) {
  const int n = n_steps_;
  if (a >= n) {
    const int port = coll_port_[size_t(a - n)];
    double rate = 1.0;
    for (int r = 0; r < devs_; ++r) {
      const int users = std::max(gpu_state_[size_t(r)].port_out[port], gpu_state_[size_t(r)].port_in[port]);
      // In loopback a collective's copies (port 0) run at the copies' factor.
      const double factor = loopback_ && port == 0 ? loopback_copy_factor_ : gpu_state_[size_t(r)].hbm_factor;
      rate = std::min(rate, factor / std::max(users, 1));
    }
    return rate;
  }
  const StepStatic& st = steps_[size_t(a)];
  const int r = st.dev;
  switch (st.act) {
    case Act::kGemm: {
      GemmEntry& ge = gemm_costs_[size_t(st.gemm)];
      const int sms = std::min(gpu_state_[size_t(r)].gemm_sms, ge.cap_sms);
      if (sms == gpu_.sm_count) return gpu_state_[size_t(r)].hbm_factor;  // work_ns is the full-SM body
      if (sms != ge.other_sms) {
        ge.other_sms = sms;
        ge.other_ns = ge.cost.BodyNs(sms);
        // In loopback cuBLASLt chooses and grids every rank's GEMM for the
        // whole GPU (no SM_COUNT_TARGET without a margin, op_knobs.cc): on
        // a share of the SMs it runs no faster than on a share of the whole
        // GPU's time, where BodyNs would re-tile it for the share (a small
        // GEMM's waves then fit the share better than the GPU). A GEMM
        // inside a margin is chosen for its SMs (cap_sms) and keeps BodyNs.
        if (loopback_ && ge.cap_sms >= gpu_.sm_count) {
          ge.other_ns = std::max(ge.other_ns, ge.full_ns * double(gpu_.sm_count) / double(sms));
        }
        ge.other_ratio = ge.full_ns / ge.other_ns;  // a piece's full_ns / other_ns, as work_ns is pieces of full_ns
      }
      return ge.other_ratio * gpu_state_[size_t(r)].hbm_factor;
    }
    case Act::kTransfer: {
      const int users = std::max(gpu_state_[size_t(r)].port_out[st.port_class],
                                 gpu_state_[size_t(st.dst_dev)].port_in[st.port_class]);
      // In loopback every transfer is a device copy on the one GPU.
      const double factor = loopback_
                                ? loopback_copy_factor_
                                : std::min(gpu_state_[size_t(r)].hbm_factor, gpu_state_[size_t(st.dst_dev)].hbm_factor);
      return users > 1 ? factor / users : factor;  // mostly alone on its ports: x / 1 is x, without a division
    }
    default:
      return gpu_state_[size_t(r)].hbm_factor;
  }
}

// Inlined into ReevaluateRanks, the event loop's hottest path (callgrind on
// braid_sim_bench: the calls' register saves were a fifth of its cost).
[[gnu::always_inline]] inline void Engine::Reevaluate(int a, double now) {
  Activity& x = acts_[size_t(a)];
  const double rate = RateOf(a);
  if (rate == x.rate) return;
  // Progress is booked only when the rate changes: at a constant rate the
  // finish already queued stays right.
  x.remaining = x.RemainingAt(now);
  x.last = now;
  x.rate = rate;
  FinSet(a, now + x.remaining / rate);
}

// Every running activity on the GPUs `a` runs on, each once, in the order
// of the GPUs' running lists. Unless `others` (Touch said their rates may
// have moved), only a itself when it has just started (kStarted): the
// others' RateOf would return their rates unchanged. A GEMM's start or end
// mostly moves no other rate (callgrind on braid_sim_bench).
template <bool kStarted>
[[gnu::always_inline]] inline void Engine::ReevaluateRanks(int a, double now, bool others) {
  const int n = n_steps_;
  if (!others) {
    if (kStarted) Reevaluate(a, now);  // the last of its GPU's list (Track appends): visited last
    return;
  }
  if (a < n) {
    const StepStatic& st = steps_[size_t(a)];
    const int r = st.dev;
    // Reevaluate changes no running list: the ends stay put.
    for (const int *b = RunningBegin(r), *end = RunningEnd(r); b != end; ++b) Reevaluate(*b, now);
    if (st.act != Act::kTransfer || st.dst_dev == r) return;
    for (const int *b = RunningBegin(st.dst_dev), *end = RunningEnd(st.dst_dev); b != end; ++b) {
      if (!RunsOn(*b, r)) Reevaluate(*b, now);  // else done from r's list
    }
    return;
  }
  ++stamp_now_;
  for (int r = 0; r < devs_; ++r) {
    for (const int *it = RunningBegin(r), *end = RunningEnd(r); it != end; ++it) {
      const int b = *it;
      if (stamp_[size_t(b)] == stamp_now_) continue;
      stamp_[size_t(b)] = stamp_now_;
      Reevaluate(b, now);
    }
  }
}

inline bool Engine::RunsOn(int a, int dev) const {
  if (a >= n_steps_) return true;  // a collective runs on every GPU
  const StepStatic& st = steps_[size_t(a)];
  return st.dev == dev || (st.act == Act::kTransfer && st.dst_dev == dev);
}

// The longest a comm kernel of priority `prio` starting on GPU `dev` waits
// for a GEMM's current wave there to retire: max(delay, those waits).
[[gnu::always_inline]] inline double Engine::WaveDelay(int dev, int prio, double now, double delay) {
  // Most comm kernels outrank every GEMM of their ranks: nothing to look for.
  if (gpu_state_[size_t(dev)].gemms == 0 || gemm_priority_[size_t(dev)] < prio) return delay;
  const int n = n_steps_;
  for (const int* it = RunningBegin(dev); it != RunningEnd(dev); ++it) {
    const int b = *it;
    if (b >= n || steps_[size_t(b)].act != Act::kGemm || steps_[size_t(b)].priority < prio) continue;
    const StepStatic& gs = steps_[size_t(b)];
    GemmEntry& ge = gemm_costs_[size_t(gs.gemm)];
    // A GEMM launched inside a margin leaves the comm kernel its SMs.
    if (ge.cap_sms < gpu_.sm_count) continue;
    const int r = gs.dev;
    const int sms = gpu_state_[size_t(r)].gemm_sms;
    if (ge.cost.tiles < sms) continue;
    if (sms != ge.waves_sms) {
      ge.waves_sms = sms;
      ge.waves = double(ge.cost.Waves(sms));
    }
    const Activity& y = acts_[size_t(b)];
    const double waves = ge.waves * ge.pieces;  // its pieces' waves, one after another
    const double pos = (1.0 - y.RemainingAt(now) / gs.work_ns) * waves;
    const double frac = std::ceil(pos) - pos;
    if (frac > 1e-9 && y.rate > 0) delay = std::max(delay, frac * gs.work_ns / (waves * y.rate));
  }
  return delay;
}

template <bool kLoopback>
[[gnu::always_inline]] inline void Engine::WorkStart(int a, double now) {
  const int n = n_steps_;
  Activity& x = acts_[size_t(a)];
  const double work = a < n ? steps_[size_t(a)].work_ns : coll_time_[size_t(a - n)].transfer_ns;
  const int hold = a < n ? steps_[size_t(a)].sm_hold : coll_sm_hold_[size_t(a - n)];
  if (hold > 0 && x.delayed_run != run_) {
    // Without a higher stream priority, a comm kernel's CTAs get SMs only as
    // the running GEMM's current wave retires.
    double delay = 0;
    // The GPUs it runs on, in order: a step's own (and a transfer's
    // receiver), or every GPU for a group. Inline, without listing them
    // first: most of these starts find no GEMM to wait for.
    if (a < n) {
      const StepStatic& st = steps_[size_t(a)];
      delay = WaveDelay(st.dev, st.priority, now, delay);
      if (st.act == Act::kTransfer && st.dst_dev != st.dev) delay = WaveDelay(st.dst_dev, st.priority, now, delay);
    } else {
      const int prio = steps_[size_t(graph_.group_members(a - n)[0])].priority;
      for (int d = 0; d < devs_; ++d) delay = WaveDelay(d, prio, now, delay);
    }
    if (delay > 0) {
      x.delayed_run = run_;
      Push(now + delay, kWorkStart, a);
      return;
    }
  }
  if (a >= n) coll_start_[size_t(a - n)] = now;
  if (work <= 0) {
    const bool moved = Touch<kLoopback>(a, +1);
    Finish<kLoopback>(a, now, moved);
    return;
  }
  x.remaining = work;
  x.last = now;
  x.rate = 0;
  x.heap_pos = -1;
  const bool moved = Touch<kLoopback>(a, +1);
  ReevaluateRanks<true>(a, now, moved);
}

// moved: whether a Touch(a, +1) just before moved other rates (a step
// that started with no work); then a's start and end together may have.
template <bool kLoopback>
[[gnu::always_inline]] inline void Engine::Finish(int a, double now, bool moved) {
  const int n = n_steps_;
  const bool others = Touch<kLoopback>(a, -1) || moved;
  ReevaluateRanks<false>(a, now, others);
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

[[gnu::always_inline]] inline void Engine::Complete(int g, double now) {
  end_[size_t(g)] = now;
  pending_[size_t(g)] = -1;
  ++completed_;
  makespan_ = now;  // events run in time order: the last completion is the latest
  for (int d : graph_.dependents(g)) {
    if (--pending_[size_t(d)] == 0) Ready(d, now);
  }
}

}  // namespace braid::sim
