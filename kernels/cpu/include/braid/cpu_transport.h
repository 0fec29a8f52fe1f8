// The in-process transport for ranks that are threads. Eager: Send copies the
// data into a message and returns (after holding its link when paced), so a
// ring never deadlocks; Recv blocks until the message is visible.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "braid/link_pacer.h"
#include "braid/transport.h"

namespace braid {

class CpuTransport : public Transport {
 public:
  // link_gbps <= 0: messages are visible at once and sends do not block.
  explicit CpuTransport(int ranks, double link_gbps = 0, double link_latency_us = 0);
  ~CpuTransport() override;

  Status Send(int src_rank, int dst_rank, uint64_t tag, const float* data, int64_t count) override;
  Status Recv(int dst_rank, int src_rank, uint64_t tag, float* data, int64_t count) override;
  void Abort() override;

 private:
  struct Message {
    std::vector<float> data;
    LinkPacer::Clock::time_point visible;
  };
  // Messages addressed to one rank, keyed by (source, tag), oldest first.
  struct Mailbox {
    std::mutex mu;
    std::condition_variable cv;
    std::map<std::pair<int, uint64_t>, std::deque<Message>> queues;
  };

  Status CheckRanks(int a, int b) const;
  // Sleeps until `t` unless the transport is aborted first.
  Status HoldUntil(Mailbox& box, LinkPacer::Clock::time_point t);

  int ranks_;
  LinkPacer pacer_;
  std::atomic<bool> aborted_{false};
  std::vector<std::unique_ptr<Mailbox>> boxes_;
};

}  // namespace braid
