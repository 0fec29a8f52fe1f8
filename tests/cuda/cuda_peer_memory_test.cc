// PeerMemory over the fakes: NCCL symmetric windows (ncclMemAlloc, collective
// registration matched by order, peer addresses) and the in-process exchange.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "braid/bootstrap.h"
#include "braid/cuda_fakes.h"
#include "braid/peer_memory.h"

namespace braid::cuda {
namespace {

using ::testing::HasSubstr;

// Runs `body(rank)` on P threads; returns every rank's failure text.
template <typename Body>
std::vector<std::string> OnRanks(int p, Body body) {
  std::vector<std::string> errors(static_cast<size_t>(p));
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r) {
    threads.emplace_back([&, r] {
      const Status s = body(r);
      if (!s.ok()) errors[size_t(r)] = s.message();
    });
  }
  for (std::thread& t : threads) t.join();
  return errors;
}

Result<NcclComm> JoinComm(NcclApi& nccl, Bootstrap& boot, int p) {
  Bytes id(sizeof(NcclUniqueId));
  if (boot.rank() == 0) {
    auto uid = nccl.GetUniqueId();
    BRAID_RETURN_IF_ERROR(uid.status());
    std::copy(uid->begin(), uid->end(), id.begin());
  }
  BRAID_RETURN_IF_ERROR(boot.Broadcast(id, 0));
  NcclUniqueId uid{};
  std::copy(id.begin(), id.end(), uid.begin());
  return nccl.CommInitRank(p, uid, boot.rank(), {});
}

TEST(CudaPeerMemory, NcclWindowsGiveEveryRankEveryPeersBuffer) {
  constexpr int kRanks = 4;
  FakeGpu gpu;
  auto cuda = gpu.cuda();
  auto nccl = gpu.nccl();
  InProcessGroup group(kRanks, std::chrono::seconds(20));
  const auto errors = OnRanks(kRanks, [&](int r) -> Status {
    Bootstrap& boot = group.Member(r);
    BRAID_RETURN_IF_ERROR(cuda->SetDevice(r));
    auto comm = JoinComm(*nccl, boot, kRanks);
    BRAID_RETURN_IF_ERROR(comm.status());
    auto peers = MakeNcclWindowPeerMemory(*nccl, *cuda, *comm, kRanks);
    auto buf = peers->Allocate(8192);
    BRAID_RETURN_IF_ERROR(buf.status());
    const std::vector<uint8_t> mark(8192, uint8_t(10 + r));
    BRAID_RETURN_IF_ERROR(cuda->Upload(*buf, mark.data(), mark.size()));
    BRAID_RETURN_IF_ERROR(boot.Barrier());  // NCCL's registration is itself collective
    auto ptrs = peers->PeerPointers({*buf});
    BRAID_RETURN_IF_ERROR(ptrs.status());
    if (ptrs->size() != 1 || (*ptrs)[0].size() != size_t(kRanks)) return Status::Internal("wrong shape");
    if ((*ptrs)[0][size_t(r)] != *buf) return Status::Internal("own pointer differs");
    for (int q = 0; q < kRanks; ++q) {
      uint8_t got = 0;
      BRAID_RETURN_IF_ERROR(cuda->Download(&got, (*ptrs)[0][size_t(q)], 1));
      if (got != 10 + q) return Status::Internal("peer " + std::to_string(q) + " reads " + std::to_string(got));
    }
    BRAID_RETURN_IF_ERROR(boot.Barrier());
    return peers->Free(*buf);
  });
  for (int r = 0; r < kRanks; ++r) EXPECT_EQ(errors[size_t(r)], "") << "rank " << r;
  EXPECT_EQ(gpu.stats().live_allocations, 0);
}

TEST(CudaPeerMemory, WindowMisuseIsReportedAsNcclWouldFail) {
  FakeGpu gpu;
  auto cuda = gpu.cuda();
  auto nccl = gpu.nccl();
  auto uid = nccl->GetUniqueId();
  ASSERT_TRUE(uid.ok());
  auto c0 = nccl->CommInitRank(2, *uid, 0, {});
  auto c1 = nccl->CommInitRank(2, *uid, 1, {});
  ASSERT_TRUE(c0.ok() && c1.ok());
  // A plain cudaMalloc buffer cannot be a symmetric window.
  auto plain = cuda->Malloc(4096);
  ASSERT_TRUE(plain.ok());
  EXPECT_THAT(nccl->WindowRegister(*c0, *plain, 4096).status().message(), HasSubstr("not from ncclMemAlloc"));
  auto p0 = MakeNcclWindowPeerMemory(*nccl, *cuda, *c0, 2);
  EXPECT_THAT(p0->PeerPointers({*plain}).status().message(), HasSubstr("has no NCCL window"));
  // Rank 1 has not registered yet: the collective registration is incomplete.
  auto b0 = p0->Allocate(4096);
  ASSERT_TRUE(b0.ok());
  EXPECT_THAT(p0->PeerPointers({*b0}).status().message(), HasSubstr("rank 1 has not registered window #0"));
  // Rank 1 registers a different size.
  auto p1 = MakeNcclWindowPeerMemory(*nccl, *cuda, *c1, 2);
  auto b1 = p1->Allocate(8192);
  ASSERT_TRUE(b1.ok());
  EXPECT_THAT(p0->PeerPointers({*b0}).status().message(), HasSubstr("different sizes (4096 and 8192 bytes)"));
  EXPECT_TRUE(cuda->Free(*plain).ok());
}

TEST(CudaPeerMemory, InProcessExchangeEnablesPeerAccessExceptInLoopback) {
  for (bool loopback : {false, true}) {
    FakeGpuConfig config;
    config.peer_access = false;
    FakeGpu gpu(config);
    auto cuda = gpu.cuda();
    InProcessGroup group(2, std::chrono::seconds(20));
    const auto errors = OnRanks(2, [&](int r) -> Status {
      BRAID_RETURN_IF_ERROR(cuda->SetDevice(loopback ? 0 : r));
      auto peers = MakeInProcessPeerMemory(*cuda, group.Member(r), loopback);
      auto buf = peers->Allocate(64);
      BRAID_RETURN_IF_ERROR(buf.status());
      auto ptrs = peers->PeerPointers({*buf, nullptr});
      if (!ptrs.ok()) {
        group.Member(r).Abort(ptrs.status().message());
        (void)peers->Free(*buf);
        return ptrs.status();
      }
      if ((*ptrs)[0][size_t(r)] != *buf || (*ptrs)[1][0] != nullptr) return Status::Internal("wrong pointers");
      return peers->Free(*buf);
    });
    if (loopback) {
      EXPECT_EQ(errors[0], "");
      EXPECT_EQ(errors[1], "");
    } else {
      EXPECT_THAT(errors[0], HasSubstr("peer access is not supported"));
    }
  }
}

}  // namespace
}  // namespace braid::cuda
