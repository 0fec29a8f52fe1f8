#include "braid/cpu_transport.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace braid {

namespace {

std::string Route(int src, int dst, uint64_t tag) {
  return std::to_string(src) + " -> " + std::to_string(dst) + " tag " + std::to_string(tag);
}

std::string Size(int64_t bytes, bool floats) {
  return floats ? std::to_string(bytes / int64_t(sizeof(float))) + " floats" : std::to_string(bytes) + " bytes";
}

}  // namespace

CpuTransport::CpuTransport(int ranks, double link_gbps, double link_latency_us)
    : ranks_(ranks), pacer_(ranks, link_gbps, link_latency_us) {
  for (int r = 0; r < ranks; ++r) boxes_.push_back(std::make_unique<Mailbox>());
}

CpuTransport::~CpuTransport() = default;

Status CpuTransport::CheckRanks(int a, int b) const {
  if (a < 0 || a >= ranks_ || b < 0 || b >= ranks_) {
    return Status::Internal("transport: rank out of range (" + std::to_string(a) + ", " + std::to_string(b) + " of " +
                            std::to_string(ranks_) + ")");
  }
  if (aborted_.load()) return Status::Internal("transport aborted");
  return Status::Ok();
}

Status CpuTransport::HoldUntil(Mailbox& box, LinkPacer::Clock::time_point t) {
  std::unique_lock<std::mutex> lock(box.mu);
  box.cv.wait_until(lock, t, [&] { return aborted_.load(); });
  return aborted_.load() ? Status::Internal("transport aborted") : Status::Ok();
}

Status CpuTransport::Post(int src, int dst, uint64_t tag, Message msg) {
  const LinkPacer::Slot slot = pacer_.Reserve(src, dst, msg.bytes);
  msg.visible = slot.visible;
  Mailbox& box = *boxes_[size_t(dst)];
  {
    std::lock_guard<std::mutex> lock(box.mu);
    box.queues[{src, tag}].push_back(std::move(msg));
  }
  box.cv.notify_all();
  // Like a comm kernel holding its stream, the sender is busy until the
  // message has left the link.
  if (pacer_.enabled()) return HoldUntil(*boxes_[size_t(src)], slot.finish);
  return Status::Ok();
}

Status CpuTransport::Send(int src, int dst, uint64_t tag, const float* data, int64_t count) {
  BRAID_RETURN_IF_ERROR(CheckRanks(src, dst));
  Message msg;
  msg.bytes = count * int64_t(sizeof(float));
  msg.copy.resize(size_t(msg.bytes));
  if (count > 0) std::memcpy(msg.copy.data(), data, size_t(msg.bytes));
  return Post(src, dst, tag, std::move(msg));
}

Status CpuTransport::SendBytes(int src, int dst, uint64_t tag, const uint8_t* data, int64_t bytes) {
  BRAID_RETURN_IF_ERROR(CheckRanks(src, dst));
  Message msg;
  msg.copy.assign(data, data + bytes);
  msg.bytes = bytes;
  msg.floats = false;
  return Post(src, dst, tag, std::move(msg));
}

Status CpuTransport::SendInPlace(int src, int dst, uint64_t tag, const float* data, int64_t count,
                                 PendingSends& pending) {
  BRAID_RETURN_IF_ERROR(CheckRanks(src, dst));
  Message msg;
  msg.source = data;
  msg.bytes = count * int64_t(sizeof(float));
  {
    std::lock_guard<std::mutex> lock(unreceived_mu_);
    msg.ticket = next_ticket_++;
    unreceived_.insert(msg.ticket);
  }
  pending.tickets.push_back(msg.ticket);
  return Post(src, dst, tag, std::move(msg));
}

Status CpuTransport::Settle(PendingSends& pending) {
  std::unique_lock<std::mutex> lock(unreceived_mu_);
  received_.wait(lock, [&] {
    if (aborted_.load()) return true;
    for (uint64_t t : pending.tickets) {
      if (unreceived_.count(t) != 0) return false;
    }
    return true;
  });
  // An aborted run's receivers may never come: forget its tickets.
  for (uint64_t t : pending.tickets) unreceived_.erase(t);
  pending.tickets.clear();
  return aborted_.load() ? Status::Internal("transport aborted") : Status::Ok();
}

Status CpuTransport::Recv(int dst, int src, uint64_t tag, float* data, int64_t count) {
  return Take(dst, src, tag, data, count * int64_t(sizeof(float)), true);
}

Status CpuTransport::RecvBytes(int dst, int src, uint64_t tag, uint8_t* data, int64_t bytes) {
  return Take(dst, src, tag, data, bytes, false);
}

Status CpuTransport::Take(int dst, int src, uint64_t tag, void* out, int64_t bytes, bool floats) {
  BRAID_RETURN_IF_ERROR(CheckRanks(dst, src));
  Mailbox& box = *boxes_[size_t(dst)];
  std::unique_lock<std::mutex> lock(box.mu);
  const auto key = std::make_pair(src, tag);
  for (;;) {
    if (aborted_.load()) return Status::Internal("transport aborted");
    auto it = box.queues.find(key);
    if (it == box.queues.end() || it->second.empty()) {
      box.cv.wait(lock);
      continue;
    }
    const Message& front = it->second.front();
    if (front.bytes != bytes || front.floats != floats) {
      return Status::Internal("recv " + Route(src, dst, tag) + ": expected " + Size(bytes, floats) +
                              ", the message has " + Size(front.bytes, front.floats));
    }
    const auto visible = front.visible;
    if (LinkPacer::Clock::now() < visible) {
      box.cv.wait_until(lock, visible);
      continue;
    }
    Message msg = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty()) box.queues.erase(it);
    lock.unlock();
    if (msg.source == nullptr) {
      if (bytes > 0) std::memcpy(out, msg.copy.data(), size_t(bytes));
      return Status::Ok();
    }
    if (bytes > 0) std::memcpy(out, msg.source, size_t(bytes));
    {
      std::lock_guard<std::mutex> done(unreceived_mu_);
      unreceived_.erase(msg.ticket);
    }
    received_.notify_all();
    return Status::Ok();
  }
}

void CpuTransport::Abort() {
  aborted_.store(true);
  for (auto& box : boxes_) {
    { std::lock_guard<std::mutex> lock(box->mu); }  // no waiter misses the flag
    box->cv.notify_all();
  }
  { std::lock_guard<std::mutex> lock(unreceived_mu_); }
  received_.notify_all();
}

}  // namespace braid
