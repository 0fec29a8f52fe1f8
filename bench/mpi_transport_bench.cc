// The MPI transport against plain MPI between the same two processes, in
// the same run:
//   1. bandwidth of large point-to-point steps (rank 0 → rank 1) as a ratio
//      to plain MPI (goal >= 0.9). A stream is `reps` messages of the same
//      size and the same number in flight: the transport's in-place sends
//      (what a plan's send step uses when its rows stay unchanged until the
//      iteration ends; settled at the end) against MPI_Isend × reps +
//      MPI_Waitall, and also the transport's copying Send (a send step whose
//      rows are rewritten later in the iteration) and a blocking MPI_Send
//      loop. One warm-up round, then `rounds` rounds alternating the four so
//      that drift in the machine's load hits all; each figure is the median
//      over rounds, on the receiver's clock. The ratio divides by the better
//      plain figure.
//   2. per-step overhead: half the extra round trip of an 8-byte ping-pong
//      (medians),
//   3. the clock-offset uncertainty of the launcher's ping-pong alignment.
// Run: mpirun -np 2 build/release/bench/braid_mpi_transport_bench [MiB] [reps] [rounds] [piece KiB]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "braid/launcher.h"
#include "braid/median.h"
#include "braid/mpi_transport.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

void Check(const braid::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "mpi_transport_bench: %s: %s\n", what, s.message().c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

enum class Stream { kPlainBlocking, kPlainInFlight, kInPlace, kCopying, kCount };
constexpr const char* kStreamName[] = {"plain MPI_Send loop", "plain MPI_Isend+Waitall", "transport, in place",
                                       "transport, copying Send"};

// Seconds for `reps` messages of buf.size() floats from rank 0 to rank 1, on
// the receiver's clock from a shared start (the same receive loop for all).
double RunStream(Stream kind, int rank, braid::Transport& t, std::vector<float>& buf, int reps) {
  const int n = int(buf.size());
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = Clock::now();
  if (rank == 0) {
    std::vector<MPI_Request> reqs(size_t(reps), MPI_REQUEST_NULL);
    braid::PendingSends pending;
    for (int i = 0; i < reps; ++i) {
      switch (kind) {
        case Stream::kPlainBlocking:
          MPI_Send(buf.data(), n, MPI_FLOAT, 1, 7, MPI_COMM_WORLD);
          break;
        case Stream::kPlainInFlight:
          MPI_Isend(buf.data(), n, MPI_FLOAT, 1, 7, MPI_COMM_WORLD, &reqs[size_t(i)]);
          break;
        case Stream::kInPlace:
          Check(t.SendInPlace(0, 1, 7, buf.data(), n, pending), "send in place");
          break;
        case Stream::kCopying:
        case Stream::kCount:
          Check(t.Send(0, 1, 7, buf.data(), n), "send");
          break;
      }
    }
    MPI_Waitall(reps, reqs.data(), MPI_STATUSES_IGNORE);
    Check(t.Settle(pending), "settle");
  } else {
    const bool plain = kind == Stream::kPlainBlocking || kind == Stream::kPlainInFlight;
    for (int i = 0; i < reps; ++i) {
      if (plain) MPI_Recv(buf.data(), n, MPI_FLOAT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (!plain) Check(t.Recv(1, 0, 7, buf.data(), n), "recv");
    }
  }
  const double s = Seconds(t0, Clock::now());
  MPI_Barrier(MPI_COMM_WORLD);  // the copying sends' staging is reclaimed by the next stream
  return s;
}

// Round trips of an 8-byte ping-pong, plain MPI or the transport, one
// sample each (on a shared host a few are slowed by the scheduler: the
// median is the figure).
std::vector<double> PingPong(int rank, braid::Transport* t, int reps) {
  float v[2] = {1, 2};
  std::vector<double> rtt;
  rtt.reserve(size_t(reps));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    if (t == nullptr) {
      if (rank == 0) {
        MPI_Send(v, 2, MPI_FLOAT, 1, 9, MPI_COMM_WORLD);
        MPI_Recv(v, 2, MPI_FLOAT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(v, 2, MPI_FLOAT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(v, 2, MPI_FLOAT, 0, 9, MPI_COMM_WORLD);
      }
    } else if (rank == 0) {
      Check(t->Send(0, 1, 9, v, 2), "ping");
      Check(t->Recv(0, 1, 9, v, 2), "pong");
    } else {
      Check(t->Recv(1, 0, 9, v, 2), "ping");
      Check(t->Send(1, 0, 9, v, 2), "pong");
    }
    rtt.push_back(Seconds(t0, Clock::now()));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return rtt;
}

double Median(const std::vector<double>& v) { return braid::Median(v).value_or(0.0); }

}  // namespace

int main(int argc, char** argv) {
  const int64_t mib = argc > 1 ? std::atoll(argv[1]) : 16;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 8;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 7;
  braid::MpiTransportOptions options;
  options.timeout_s = 60;
  if (argc > 4) options.piece_bytes = std::atoll(argv[4]) << 10;  // KiB
  auto launcher = braid::MakeMpiLauncher(60);
  if (!launcher.ok()) {
    std::fprintf(stderr, "mpi_transport_bench: %s\n", launcher.status().message().c_str());
    return 1;
  }
  braid::Launcher& world = **launcher;
  if (world.world_size() != 2 || mib < 1 || mib > 1024 || reps < 1 || rounds < 1 || options.piece_bytes < 4) {
    if (world.is_root())
      std::fprintf(stderr,
                   "mpi_transport_bench: run on 2 processes: mpirun -np 2 ... [MiB 1..1024] [reps >= 1] "
                   "[rounds >= 1] [piece KiB]\n");
    return 2;
  }
  const int rank = world.rank();
  auto transport = braid::MakeMpiTransport(rank, 2, {7, 9}, options);
  Check(transport.status(), "transport");
  std::vector<float> buf(size_t(mib) << 18, 1.0f);  // mib MiB of floats

  constexpr int kStreams = int(Stream::kCount);
  std::vector<double> secs[kStreams];
  for (int round = 0; round <= rounds; ++round) {  // round 0 warms up
    for (int j = 0; j < kStreams; ++j) {
      const int k = (j + round) % kStreams;  // no stream always runs first
      const double s = RunStream(Stream(k), rank, **transport, buf, reps);
      if (round > 0) secs[k].push_back(s);
    }
  }
  const double bytes = double(buf.size() * sizeof(float)) * reps;
  std::vector<double> all_plain, all_ours;
  for (int round = 0; round < 3; ++round) {
    for (double x : PingPong(rank, nullptr, 2000)) all_plain.push_back(x);
    for (double x : PingPong(rank, transport->get(), 2000)) all_ours.push_back(x);
  }
  const double rtt_plain = Median(all_plain), rtt_ours = Median(all_ours);
  auto offsets = world.MeasureClockOffsets(16);
  Check(offsets.status(), "clock offsets");
  transport->reset();
  // The receiver's times are the ones that count; rank 1 sends them to rank 0.
  std::vector<double> times(size_t(kStreams * rounds));
  for (int k = 0; k < kStreams; ++k) std::copy(secs[k].begin(), secs[k].end(), times.begin() + k * rounds);
  if (rank == 1) MPI_Send(times.data(), int(times.size()), MPI_DOUBLE, 0, 11, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Recv(times.data(), int(times.size()), MPI_DOUBLE, 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    auto gbps = [&](Stream k, int round) { return bytes / times[size_t(k) * size_t(rounds) + size_t(round)] / 1e9; };
    std::printf(
        "message %lld MiB x %d in flight (transport pieces of %lld KiB), %d rounds after 1 warm-up, "
        "2 processes on %s\n",
        static_cast<long long>(mib), reps, static_cast<long long>(options.piece_bytes >> 10), rounds,
        world.host_name().c_str());
    for (int k = 0; k < kStreams; ++k) {
      std::vector<double> bw;
      for (int i = 0; i < rounds; ++i) bw.push_back(gbps(Stream(k), i));
      std::printf("%-26s median %6.2f GB/s  (rounds %.2f .. %.2f)\n", kStreamName[k], Median(bw),
                  *std::min_element(bw.begin(), bw.end()), *std::max_element(bw.begin(), bw.end()));
    }
    // Each round's ratio compares streams run one after the other, so load
    // that changes between rounds cancels; the median is the figure.
    std::vector<double> in_place, copying;
    for (int i = 0; i < rounds; ++i) {
      const double plain = std::max(gbps(Stream::kPlainBlocking, i), gbps(Stream::kPlainInFlight, i));
      in_place.push_back(gbps(Stream::kInPlace, i) / plain);
      copying.push_back(gbps(Stream::kCopying, i) / plain);
    }
    std::printf(
        "bandwidth ratio, in place   %6.3f  (goal >= 0.9; median over rounds of transport / better plain; "
        "rounds %.3f .. %.3f)\n",
        Median(in_place), *std::min_element(in_place.begin(), in_place.end()),
        *std::max_element(in_place.begin(), in_place.end()));
    std::printf("bandwidth ratio, copying    %6.3f\n", Median(copying));
    std::printf("8-byte round trip (median of 6000): plain %.2f us, transport %.2f us; per-step overhead %.2f us\n",
                rtt_plain * 1e6, rtt_ours * 1e6, (rtt_ours - rtt_plain) / 2 * 1e6);
    const braid::ClockOffset& c = (*offsets)[1];
    std::printf("clock offset rank 1 vs rank 0: %lld ns +- %lld ns (shortest of 16 ping-pongs)\n",
                static_cast<long long>(c.offset_ns), static_cast<long long>(c.uncertainty_ns));
  }
  return 0;
}
