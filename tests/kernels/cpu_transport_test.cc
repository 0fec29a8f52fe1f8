// The in-process transport: real bytes, tags kept apart, sizes checked,
// blocking receives, and an abort that frees every waiter.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "braid/cpu_transport.h"
#include "cpu_test_util.h"

namespace braid {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

TEST(CpuTransport, BytesArriveIntact) {
  CpuTransport t(2);
  std::vector<float> src(100000), dst(src.size(), 0.0f);
  std::iota(src.begin(), src.end(), -5.5f);
  Status recv;
  std::thread receiver([&] { recv = t.Recv(1, 0, 3, dst.data(), int64_t(dst.size())); });
  ASSERT_TRUE(t.Send(0, 1, 3, src.data(), int64_t(src.size())).ok());
  src.assign(src.size(), 0.0f);  // eager: the message owns its copy
  receiver.join();
  ASSERT_TRUE(recv.ok()) << recv.message();
  std::vector<float> expect(dst.size());
  std::iota(expect.begin(), expect.end(), -5.5f);
  EXPECT_EQ(dst, expect);
}

TEST(CpuTransport, TagsAndSendersKeepMessagesApart) {
  CpuTransport t(3);
  const float a[2] = {1, 2}, b[2] = {3, 4}, c[2] = {5, 6};
  ASSERT_TRUE(t.Send(0, 2, 7, a, 2).ok());
  ASSERT_TRUE(t.Send(0, 2, 8, b, 2).ok());
  ASSERT_TRUE(t.Send(1, 2, 7, c, 2).ok());
  float got[2];
  ASSERT_TRUE(t.Recv(2, 1, 7, got, 2).ok());
  EXPECT_EQ(got[0], 5);
  ASSERT_TRUE(t.Recv(2, 0, 8, got, 2).ok());
  EXPECT_EQ(got[0], 3);
  ASSERT_TRUE(t.Recv(2, 0, 7, got, 2).ok());
  EXPECT_EQ(got[1], 2);
}

TEST(CpuTransport, SameTagIsFirstInFirstOut) {
  CpuTransport t(2);
  for (float v : {1.0f, 2.0f, 3.0f}) ASSERT_TRUE(t.Send(1, 0, 0, &v, 1).ok());
  for (float v : {1.0f, 2.0f, 3.0f}) {
    float got = 0;
    ASSERT_TRUE(t.Recv(0, 1, 0, &got, 1).ok());
    EXPECT_EQ(got, v);
  }
}

TEST(CpuTransport, SizeMismatchIsAnError) {
  CpuTransport t(2);
  const float a[3] = {1, 2, 3};
  float got[4];
  ASSERT_TRUE(t.Send(0, 1, 5, a, 3).ok());
  const Status s = t.Recv(1, 0, 5, got, 4);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("expected 4 floats, the message has 3"), std::string::npos) << s.message();
}

TEST(CpuTransport, RanksOutOfRangeAreAnError) {
  CpuTransport t(2);
  float x = 0;
  EXPECT_FALSE(t.Send(0, 2, 0, &x, 1).ok());
  EXPECT_FALSE(t.Recv(-1, 0, 0, &x, 1).ok());
}

TEST(CpuTransport, RecvWaitsForTheSend) {
  CpuTransport t(2);
  float got = 0;
  Clock::time_point returned;
  std::thread receiver([&] {
    EXPECT_TRUE(t.Recv(1, 0, 0, &got, 1).ok());
    returned = Clock::now();
  });
  std::this_thread::sleep_for(milliseconds(20));
  const Clock::time_point sent = Clock::now();
  const float v = 9;
  ASSERT_TRUE(t.Send(0, 1, 0, &v, 1).ok());
  receiver.join();
  EXPECT_EQ(got, 9);
  EXPECT_GE(returned, sent);
}

TEST(CpuTransport, AbortWakesBlockedReceivers) {
  testing::WithWatchdog(std::chrono::seconds(30), [] {
    CpuTransport t(3);
    std::vector<Status> got(2);
    std::vector<std::thread> waiters;
    for (int r = 0; r < 2; ++r) {
      waiters.emplace_back([&, r] {
        float x = 0;
        got[size_t(r)] = t.Recv(r, 2, 1, &x, 1);
      });
    }
    std::this_thread::sleep_for(milliseconds(10));
    t.Abort();
    for (std::thread& w : waiters) w.join();
    for (const Status& s : got) EXPECT_FALSE(s.ok());
    float x = 0;
    EXPECT_FALSE(t.Send(0, 1, 0, &x, 1).ok());
  });
}

TEST(CpuTransport, AbortWakesABlockedPacedSender) {
  testing::WithWatchdog(std::chrono::seconds(30), [] {
    CpuTransport t(2, 1e-3);  // 1 Mbit/s: 4 MB would hold the sender for 32 s
    std::vector<float> big(1 << 20);
    Status sent;
    std::thread sender([&] { sent = t.Send(0, 1, 0, big.data(), int64_t(big.size())); });
    std::this_thread::sleep_for(milliseconds(10));
    t.Abort();
    sender.join();
    EXPECT_FALSE(sent.ok());
  });
}

// 1 MB (10^6 bytes) at 1 Gbit/s is 8 ms on the wire.
constexpr int64_t kMegabyteFloats = 250000;

double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

TEST(CpuLinkPacer, OneMegabyteAtOneGbitHoldsTheSenderEightMs) {
  CpuTransport t(2, 1.0);
  std::vector<float> data(kMegabyteFloats, 1.0f);
  const auto t0 = Clock::now();
  ASSERT_TRUE(t.Send(0, 1, 0, data.data(), kMegabyteFloats).ok());
  const double ms = MsSince(t0);
  EXPECT_GE(ms, 8.0);
  EXPECT_LT(ms, 2000.0);
}

TEST(CpuLinkPacer, BackToBackSendsOnOneLinkSerialize) {
  CpuTransport t(2, 1.0);
  std::vector<float> data(kMegabyteFloats, 1.0f);
  const auto t0 = Clock::now();
  ASSERT_TRUE(t.Send(0, 1, 0, data.data(), kMegabyteFloats).ok());
  ASSERT_TRUE(t.Send(0, 1, 1, data.data(), kMegabyteFloats).ok());
  EXPECT_GE(MsSince(t0), 16.0);
}

TEST(CpuLinkPacer, ConcurrentSendersOnOneLinkSerialize) {
  CpuTransport t(2, 1.0);
  std::vector<float> data(kMegabyteFloats, 1.0f);
  const auto t0 = Clock::now();
  testing::OnRanks(2, [&](int i) { EXPECT_TRUE(t.Send(0, 1, uint64_t(i), data.data(), kMegabyteFloats).ok()); });
  EXPECT_GE(MsSince(t0), 16.0);
}

TEST(CpuLinkPacer, SendsOnDifferentLinksDoNotSerialize) {
  // 4 KB at 0.8 Mbit/s: 40 ms on the wire and next to nothing to copy. Each
  // sender times its own Send; serialized, one of them would wait >= 80 ms.
  CpuTransport t(3, 0.0008);
  const int64_t floats = 1000;
  std::vector<float> data(size_t(floats), 1.0f);
  std::vector<double> ms(3, 0);
  testing::OnRanks(3, [&](int src) {
    const auto t0 = Clock::now();
    EXPECT_TRUE(t.Send(src, (src + 1) % 3, 0, data.data(), floats).ok());
    ms[size_t(src)] = MsSince(t0);
  });
  for (double m : ms) {
    EXPECT_GE(m, 40.0);
    EXPECT_LT(m, 75.0);
  }
}

TEST(CpuLinkPacer, LatencyDelaysVisibilityNotTheSender) {
  CpuTransport t(2, 1000.0, 20000.0);  // 20 ms latency, fast wire
  const float v = 1;
  float got = 0;
  const auto t0 = Clock::now();
  ASSERT_TRUE(t.Send(0, 1, 0, &v, 1).ok());
  EXPECT_LT(MsSince(t0), 20.0);
  ASSERT_TRUE(t.Recv(1, 0, 0, &got, 1).ok());
  EXPECT_GE(MsSince(t0), 20.0);
  EXPECT_EQ(got, 1);
}

TEST(CpuLinkPacer, ReservationsFollowTheWireModel) {
  LinkPacer pacer(3, 1.0, 5.0);  // 1 Gbit/s, 5 µs
  const auto now = LinkPacer::Clock::now();
  const auto eight_ms = std::chrono::milliseconds(8);
  const LinkPacer::Slot a = pacer.Reserve(0, 1, 1000000, now);
  EXPECT_EQ(a.start, now);
  EXPECT_EQ(a.finish - a.start, eight_ms);
  EXPECT_EQ(a.visible - a.finish, std::chrono::microseconds(5));
  const LinkPacer::Slot b = pacer.Reserve(0, 1, 1000000, now);
  EXPECT_EQ(b.start, a.finish);  // the same directed link serializes
  const LinkPacer::Slot c = pacer.Reserve(1, 0, 1000000, now);
  const LinkPacer::Slot d = pacer.Reserve(0, 2, 1000000, now);
  EXPECT_EQ(c.start, now);  // the reverse direction is another link
  EXPECT_EQ(d.start, now);
  const LinkPacer::Slot e = pacer.Reserve(0, 1, 1000000, b.finish + eight_ms);
  EXPECT_EQ(e.start, b.finish + eight_ms);  // an idle link starts at once
}

TEST(CpuLinkPacer, ZeroBandwidthMeansNoPacing) {
  LinkPacer pacer(2, 0, 100);
  EXPECT_FALSE(pacer.enabled());
  const auto now = LinkPacer::Clock::now();
  const LinkPacer::Slot s = pacer.Reserve(0, 1, 1 << 30, now);
  EXPECT_EQ(s.finish, now);
  EXPECT_EQ(s.visible, now);
}

}  // namespace
}  // namespace braid
