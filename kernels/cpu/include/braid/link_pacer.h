// Link emulation: each directed rank pair is a link with a busy-until time.
// A message occupies its link for bytes·8 / bandwidth after the link frees
// up, and reaches the receiver `latency` after it leaves the link.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

namespace braid {

class LinkPacer {
 public:
  using Clock = std::chrono::steady_clock;

  struct Slot {
    Clock::time_point start;    // the message starts using the link
    Clock::time_point finish;   // the link is free again; the sender is done
    Clock::time_point visible;  // the receiver may read the message
  };

  // gbps <= 0 disables pacing: every slot is `now`.
  LinkPacer(int ranks, double gbps, double latency_us);

  bool enabled() const { return gbps_ > 0; }
  // Books `bytes` on the link src → dst starting no earlier than `now`.
  Slot Reserve(int src, int dst, int64_t bytes, Clock::time_point now = Clock::now());
  // Every byte booked so far, on all links (0 while disabled): what the
  // emulated wire was charged.
  int64_t booked_bytes();

 private:
  int ranks_;
  double gbps_;
  Clock::duration latency_;
  std::mutex mu_;
  std::vector<Clock::time_point> busy_until_;  // ranks × ranks
  int64_t booked_ = 0;                         // guarded by mu_
};

}  // namespace braid
