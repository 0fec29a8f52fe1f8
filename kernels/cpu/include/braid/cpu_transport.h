// The in-process transport for ranks that are threads. Eager: Send copies the
// data into a message and returns (after holding its link when paced), so a
// ring never deadlocks; Recv blocks until the message is visible.
// SendInPlace queues a message that points at the sender's memory; the
// receiver copies straight from there (one copy instead of two), and Settle
// waits until every such message of the caller has been received.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
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
  Status SendInPlace(int src_rank, int dst_rank, uint64_t tag, const float* data, int64_t count,
                     PendingSends& pending) override;
  Status Settle(PendingSends& pending) override;
  Status Recv(int dst_rank, int src_rank, uint64_t tag, float* data, int64_t count) override;
  Status SendBytes(int src_rank, int dst_rank, uint64_t tag, const uint8_t* data, int64_t bytes) override;
  Status RecvBytes(int dst_rank, int src_rank, uint64_t tag, uint8_t* data, int64_t bytes) override;
  void Abort() override;

  // The bytes the link emulation has been charged (LinkPacer::booked_bytes):
  // 4 a value for float messages, the given size for byte messages.
  int64_t link_bytes() { return pacer_.booked_bytes(); }

 private:
  struct Message {
    std::vector<uint8_t> copy;     // an eager send's bytes
    const void* source = nullptr;  // an in-place send's bytes
    int64_t bytes = 0;             // what the link is charged
    bool floats = true;            // Send / SendInPlace; false: SendBytes
    uint64_t ticket = 0;           // in place: settled once received
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
  Status Post(int src, int dst, uint64_t tag, Message msg);
  // Waits for the oldest message (src → dst, tag), checks its kind and size
  // and copies its `bytes` bytes into `out`.
  Status Take(int dst, int src, uint64_t tag, void* out, int64_t bytes, bool floats);

  int ranks_;
  LinkPacer pacer_;
  std::atomic<bool> aborted_{false};
  std::vector<std::unique_ptr<Mailbox>> boxes_;
  // In-place sends not yet received, by ticket.
  std::mutex unreceived_mu_;
  std::condition_variable received_;
  std::set<uint64_t> unreceived_;
  uint64_t next_ticket_ = 0;
};

}  // namespace braid
