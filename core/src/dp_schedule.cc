#include "braid/dp_schedule.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include "braid/name_table.h"

namespace braid {

namespace {

constexpr NameTable<DpSchedule, 3> kDpScheduleNames{{
    {DpSchedule::kSerial, "serial"},
    {DpSchedule::kBucketed, "bucketed"},
    {DpSchedule::kDecomposed, "decomposed"},
}};
static_assert(IsOneToOne(kDpScheduleNames));

}  // namespace

std::string_view DpScheduleName(DpSchedule s) { return NameIn(kDpScheduleNames, s); }

Result<DpSchedule> ParseDpSchedule(std::string_view name) { return ParseNamed(kDpScheduleNames, "DP schedule", name); }

namespace {

Status CheckInput(const DpStepInput& in) {
  auto finite_nonneg = [](double v) { return std::isfinite(v) && v >= 0; };
  if (in.layers < 1) return Status::Invalid("`layers` must be at least 1");
  if (!finite_nonneg(in.forward_ns) || !finite_nonneg(in.backward_ns) || !finite_nonneg(in.decomposed_extra_ns) ||
      !finite_nonneg(in.decomposed_gather_extra_ns)) {
    return Status::Invalid("block times must be finite and >= 0");
  }
  if (!std::isfinite(in.stretch) || in.stretch < 1) return Status::Invalid("`stretch` must be finite and >= 1");
  if (in.schedule == DpSchedule::kBucketed && in.bucket_params < 1) {
    return Status::Invalid("`bucket_params` must be at least 1");
  }
  if (in.prefetch < 1) return Status::Invalid("`prefetch` must be at least 1");
  if (in.decomposed_layers < -1) return Status::Invalid("`decomposed_layers` must be -1 (all) or >= 0");
  for (const DpGradient& g : in.gradients) {
    if (!(g.grad_ready > 0 && g.grad_ready <= 1)) return Status::Invalid("`grad_ready` must be in (0, 1]");
    if (g.params < 0 || g.bytes < 0) return Status::Invalid("gradient sizes must be >= 0");
  }
  if (!in.grad_collective_ns) return Status::Invalid("no time for the gradient collectives");
  if (in.gather_bytes > 0 && !in.gather_collective_ns) return Status::Invalid("no time for the parameter gathers");
  return Status::Ok();
}

struct Collective {
  DpCollectiveSpan span;
  double duration = 0;
  bool done = false;
};

// A point of the compute timeline at which a collective is queued.
struct Trigger {
  int segment = 0;
  double offset = 0;  // work (ns at full rate) into the segment
  int collective = 0;
};

class Scheduler {
 public:
  explicit Scheduler(const DpStepInput& in) : in_(in), segments_(2 * in.layers) {}

  Result<DpStepFigures> Run() {
    Build();
    return Simulate();
  }

 private:
  int ForwardSegment(int layer) const { return layer - 1; }
  int BackwardSegment(int layer) const { return in_.layers + (in_.layers - layer); }

  int Add(std::string name, int64_t bytes, double duration) {
    Collective c;
    c.span.name = std::move(name);
    c.span.bytes = bytes;
    c.duration = duration;
    collectives_.push_back(std::move(c));
    return int(collectives_.size()) - 1;
  }

  void Build() {
    work_.assign(size_t(segments_), 0);
    gate_.assign(size_t(segments_), -1);
    const int decomposed = in_.schedule != DpSchedule::kDecomposed ? 0
                           : in_.decomposed_layers < 0             ? in_.layers
                                                                   : std::min(in_.decomposed_layers, in_.layers);
    const bool gathers = in_.gather_bytes > 0;
    for (int l = 1; l <= in_.layers; ++l) {
      const bool d = l <= decomposed;
      work_[size_t(ForwardSegment(l))] = in_.forward_ns + (d && gathers ? in_.decomposed_gather_extra_ns : 0);
      work_[size_t(BackwardSegment(l))] = in_.backward_ns + (d ? in_.decomposed_extra_ns : 0);
    }
    decomposed_extra_total_ =
        double(decomposed) * (in_.decomposed_extra_ns + (gathers ? in_.decomposed_gather_extra_ns : 0));
    decomposed_ = decomposed;
    AddGathers();
    AddGradients(decomposed);
    std::stable_sort(triggers_.begin(), triggers_.end(), [](const Trigger& a, const Trigger& b) {
      return a.segment != b.segment ? a.segment < b.segment : a.offset < b.offset;
    });
  }

  void AddGathers() {
    if (in_.gather_bytes <= 0) return;
    const bool serial = in_.schedule == DpSchedule::kSerial;
    const double d = in_.gather_collective_ns(in_.gather_bytes);
    auto gather = [&](int segment, const std::string& name) {
      const int c = Add(name, in_.gather_bytes, d);
      gate_[size_t(segment)] = c;
      triggers_.push_back({serial ? segment : std::max(segment - in_.prefetch, 0), 0.0, c});
      ++gathers_;
    };
    for (int l = decomposed_ + 1; l <= in_.layers; ++l) {
      gather(ForwardSegment(l), "gather layer " + std::to_string(l) + " (forward)");
    }
    if (!in_.gather_in_backward) return;
    for (int l = in_.layers; l >= 1; --l) {
      gather(BackwardSegment(l), "gather layer " + std::to_string(l) + " (backward)");
    }
  }

  void AddGradients(int decomposed) {
    const bool serial = in_.schedule == DpSchedule::kSerial;
    int64_t params = 0, bytes = 0;
    std::string first;
    Trigger last{};
    auto close = [&](const std::string& through) {
      if (bytes == 0 && params == 0) return;
      const std::string name = "grad bucket " + std::to_string(grads_ + 1) + " (" + first + " .. " + through + ")";
      last.collective = Add(name, bytes, in_.grad_collective_ns(bytes));
      triggers_.push_back(last);
      ++grads_;
      params = bytes = 0;
    };
    std::string through;
    for (int l = in_.layers; l > decomposed; --l) {
      for (const DpGradient& g : in_.gradients) {
        through = g.linear + " of layer " + std::to_string(l);
        if (params == 0 && bytes == 0) first = through;
        params += g.params;
        bytes += g.bytes;
        last = serial ? Trigger{segments_, 0.0, 0} : Trigger{BackwardSegment(l), g.grad_ready * in_.backward_ns, 0};
        if (!serial && params >= in_.bucket_params) close(through);
      }
    }
    close(through);
  }

  void Enqueue(int c, double now) {
    collectives_[size_t(c)].span.queued_ns = now;
    queue_.push_back(c);
    StartNext(now);
  }

  void StartNext(double now) {
    if (running_ >= 0 || queue_.empty()) return;
    running_ = queue_.front();
    queue_.pop_front();
    Collective& c = collectives_[size_t(running_)];
    c.span.start_ns = now;
    c.span.end_ns = now + c.duration;
  }

  double FinishRunning() {
    Collective& c = collectives_[size_t(running_)];
    c.done = true;
    order_.push_back(running_);
    running_ = -1;
    StartNext(c.span.end_ns);
    return c.span.end_ns;
  }

  Result<DpStepFigures> Simulate() {
    double t = 0, done = 0;
    size_t next = 0;
    int segment = 0;
    while (segment < segments_) {
      while (next < triggers_.size() && triggers_[next].segment == segment && triggers_[next].offset <= done) {
        Enqueue(triggers_[next++].collective, t);
      }
      const double work = work_[size_t(segment)];
      if (done >= work && (next >= triggers_.size() || triggers_[next].segment != segment)) {
        ++segment;
        done = 0;
        continue;
      }
      const int gate = gate_[size_t(segment)];
      if (done == 0 && gate >= 0 && !collectives_[size_t(gate)].done) {
        if (running_ < 0) return Status::Internal("a segment waits for a gather that was never queued");
        t = std::max(t, FinishRunning());
        continue;
      }
      const double rate = running_ >= 0 ? 1.0 / in_.stretch : 1.0;
      const double target =
          next < triggers_.size() && triggers_[next].segment == segment ? std::min(triggers_[next].offset, work) : work;
      const double dt = (target - done) / rate;
      if (running_ >= 0 && collectives_[size_t(running_)].span.end_ns < t + dt) {
        const double end = collectives_[size_t(running_)].span.end_ns;
        done += (end - t) * rate;
        t = end;
        FinishRunning();
        continue;
      }
      t += dt;
      done = target;
    }
    const double compute_end = t;
    for (; next < triggers_.size(); ++next) Enqueue(triggers_[next].collective, t);
    while (running_ >= 0) t = std::max(t, FinishRunning());
    DpStepFigures f;
    f.step_ns = t;
    f.compute_ns = double(in_.layers) * (in_.forward_ns + in_.backward_ns);
    f.dp_exposed_ns = std::max(f.step_ns - f.compute_ns, 0.0);
    f.tail_ns = t - compute_end;
    f.dp_comm_ns = decomposed_extra_total_;
    for (int c : order_) {
      f.dp_comm_ns += collectives_[size_t(c)].duration;
      f.spans.push_back(collectives_[size_t(c)].span);
    }
    f.grad_collectives = grads_;
    f.gather_collectives = gathers_;
    return f;
  }

  const DpStepInput& in_;
  const int segments_;
  std::vector<double> work_;
  std::vector<int> gate_;  // the gather a segment waits for, or -1
  std::vector<Collective> collectives_;
  std::vector<Trigger> triggers_;
  std::deque<int> queue_;
  std::vector<int> order_;
  int running_ = -1;
  int grads_ = 0, gathers_ = 0;
  int decomposed_ = 0;  // layers 1..decomposed_: gradients (and forward gathers) decomposed
  double decomposed_extra_total_ = 0;
};

}  // namespace

Result<DpStepFigures> ScheduleDpStep(const DpStepInput& in) {
  BRAID_RETURN_IF_ERROR(CheckInput(in));
  return Scheduler(in).Run();
}

}  // namespace braid
