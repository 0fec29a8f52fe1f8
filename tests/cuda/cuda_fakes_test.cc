// The fakes are checkers: each case below is a bug the cuda backend could
// have, and the fake must report it instead of passing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "braid/bootstrap.h"
#include "braid/cuda_fakes.h"

namespace braid::cuda {
namespace {

using ::testing::HasSubstr;

struct Rank {
  GpuStream stream = nullptr;
  NcclComm comm = nullptr;
  DevPtr buf = nullptr;
};

// Two ranks on devices 0 and 1, each with a stream, a communicator and a
// buffer of 4 floats holding {r+1, r+1, r+1, r+1}.
class CudaFakesTwoRanks : public ::testing::Test {
 protected:
  void SetUp() override {
    cuda_ = gpu_.cuda();
    nccl_ = gpu_.nccl();
    auto id = nccl_->GetUniqueId();
    ASSERT_TRUE(id.ok());
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(cuda_->SetDevice(r).ok());
      auto s = cuda_->CreateStream(0);
      auto c = nccl_->CommInitRank(2, *id, r, {});
      auto b = cuda_->Malloc(4 * sizeof(float));
      ASSERT_TRUE(s.ok() && c.ok() && b.ok());
      const float v[4] = {float(r + 1), float(r + 1), float(r + 1), float(r + 1)};
      ASSERT_TRUE(cuda_->Upload(*b, v, sizeof v).ok());
      ranks_[r] = {*s, *c, *b};
    }
  }
  std::vector<float> Read(int r) {
    std::vector<float> v(4);
    EXPECT_TRUE(cuda_->Download(v.data(), ranks_[r].buf, 4 * sizeof(float)).ok());
    return v;
  }

  FakeGpu gpu_;
  std::shared_ptr<CudaApi> cuda_;
  std::shared_ptr<NcclApi> nccl_;
  Rank ranks_[2];
};

TEST_F(CudaFakesTwoRanks, MatchedSendAndRecvMoveTheBytes) {
  ASSERT_TRUE(nccl_->Send(ranks_[0].buf, 4, DType::kFp32, 1, ranks_[0].comm, ranks_[0].stream).ok());
  ASSERT_TRUE(nccl_->Recv(ranks_[1].buf, 4, DType::kFp32, 0, ranks_[1].comm, ranks_[1].stream).ok());
  auto done = cuda_->Query(ranks_[1].stream);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_TRUE(*done);
  EXPECT_THAT(Read(1), ::testing::ElementsAre(1, 1, 1, 1));
}

TEST_F(CudaFakesTwoRanks, SendWithoutRecvIsAWouldBeHang) {
  ASSERT_TRUE(nccl_->Send(ranks_[0].buf, 4, DType::kFp32, 1, ranks_[0].comm, ranks_[0].stream).ok());
  auto done = cuda_->Query(ranks_[0].stream);
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.status().message(), HasSubstr("would-be hang"));
  EXPECT_THAT(done.status().message(), HasSubstr("never met its peers' matching calls"));
}

TEST_F(CudaFakesTwoRanks, SendRecvSizeMismatchIsReported) {
  ASSERT_TRUE(nccl_->Send(ranks_[0].buf, 4, DType::kFp32, 1, ranks_[0].comm, ranks_[0].stream).ok());
  ASSERT_TRUE(nccl_->Recv(ranks_[1].buf, 2, DType::kFp32, 0, ranks_[1].comm, ranks_[1].stream).ok());
  auto done = cuda_->Query(ranks_[1].stream);
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.status().message(), HasSubstr("send of 16 bytes met a recv of 8 bytes"));
}

TEST_F(CudaFakesTwoRanks, UngroupedExchangeDeadlocksGroupedExchangeCompletes) {
  // Both ranks send first, then receive, on one stream: rendezvous deadlock.
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(nccl_->Send(ranks_[r].buf, 4, DType::kFp32, 1 - r, ranks_[r].comm, ranks_[r].stream).ok());
    ASSERT_TRUE(nccl_->Recv(ranks_[r].buf, 4, DType::kFp32, 1 - r, ranks_[r].comm, ranks_[r].stream).ok());
  }
  auto done = cuda_->Query(ranks_[0].stream);
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.status().message(), HasSubstr("would-be hang"));
}

TEST(CudaFakesGroup, GroupedExchangeCompletesAndSwapsTheData) {
  FakeGpu gpu;
  auto cuda = gpu.cuda();
  auto nccl = gpu.nccl();
  auto id = nccl->GetUniqueId();
  ASSERT_TRUE(id.ok());
  Rank ranks[2];
  DevPtr out[2];
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(cuda->SetDevice(r).ok());
    ranks[r] = {*cuda->CreateStream(0), *nccl->CommInitRank(2, *id, r, {}), *cuda->Malloc(16)};
    out[r] = *cuda->Malloc(16);
    const float v[4] = {float(r + 1), 0, 0, float(10 * r)};
    ASSERT_TRUE(cuda->Upload(ranks[r].buf, v, sizeof v).ok());
  }
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(nccl->GroupStart().ok());
    ASSERT_TRUE(nccl->Send(ranks[r].buf, 4, DType::kFp32, 1 - r, ranks[r].comm, ranks[r].stream).ok());
    ASSERT_TRUE(nccl->Recv(out[r], 4, DType::kFp32, 1 - r, ranks[r].comm, ranks[r].stream).ok());
    ASSERT_TRUE(nccl->GroupEnd().ok());
  }
  auto done = cuda->Query(ranks[0].stream);
  ASSERT_TRUE(done.ok()) << done.status().message();
  float got[4];
  ASSERT_TRUE(cuda->Download(got, out[0], sizeof got).ok());
  EXPECT_EQ(got[0], 2.0f);
  EXPECT_EQ(got[3], 10.0f);
  EXPECT_EQ(gpu.stats().nccl_groups, 2);
}

TEST_F(CudaFakesTwoRanks, CollectiveOrderMismatchIsReported) {
  ASSERT_TRUE(nccl_
                  ->Collective(CollectiveKind::kAllReduce, ranks_[0].buf, ranks_[0].buf, 4, DType::kFp32,
                               ranks_[0].comm, ranks_[0].stream)
                  .ok());
  const Status s = nccl_->Collective(CollectiveKind::kReduceScatter, ranks_[1].buf, ranks_[1].buf, 2, DType::kFp32,
                                     ranks_[1].comm, ranks_[1].stream);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("collective order mismatch"));
  EXPECT_THAT(s.message(), HasSubstr("reduce_scatter"));
}

TEST_F(CudaFakesTwoRanks, AllReduceSumsEveryRank) {
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(nccl_
                    ->Collective(CollectiveKind::kAllReduce, ranks_[r].buf, ranks_[r].buf, 4, DType::kFp32,
                                 ranks_[r].comm, ranks_[r].stream)
                    .ok());
  }
  ASSERT_TRUE(cuda_->Query(ranks_[0].stream).ok());
  EXPECT_THAT(Read(0), ::testing::ElementsAre(3, 3, 3, 3));
  EXPECT_THAT(Read(1), ::testing::ElementsAre(3, 3, 3, 3));
}

TEST_F(CudaFakesTwoRanks, WaitOnAnEventNeverRecordedIsReported) {
  auto e = cuda_->CreateEvent();
  ASSERT_TRUE(e.ok());
  const Status s = cuda_->Wait(ranks_[0].stream, *e);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("never recorded"));
}

TEST_F(CudaFakesTwoRanks, EventOrdersTwoStreams) {
  // Stream 1 waits for stream 0's copy through an event: it must see the copied data.
  auto e = cuda_->CreateEvent();
  ASSERT_TRUE(cuda_->SetDevice(0).ok());
  auto s2 = cuda_->CreateStream(0);
  auto tmp = cuda_->Malloc(16);
  ASSERT_TRUE(e.ok() && s2.ok() && tmp.ok());
  ASSERT_TRUE(cuda_->Copy2D(*tmp, 16, ranks_[0].buf, 16, 16, 1, ranks_[0].stream).ok());
  ASSERT_TRUE(cuda_->Record(*e, ranks_[0].stream).ok());
  ASSERT_TRUE(cuda_->Wait(*s2, *e).ok());
  ASSERT_TRUE(cuda_->Add(*tmp, *tmp, *tmp, 4, DType::kFp32, *s2).ok());
  auto done = cuda_->Query(*s2);
  ASSERT_TRUE(done.ok() && *done);
  float got[4];
  ASSERT_TRUE(cuda_->Download(got, *tmp, sizeof got).ok());
  EXPECT_EQ(got[0], 2.0f);  // 1 + 1: the add ran after the copy
}

TEST_F(CudaFakesTwoRanks, FlagNeverWrittenIsAWouldBeHang) {
  auto flag = cuda_->Malloc(4);
  ASSERT_TRUE(flag.ok());
  const uint32_t zero = 0;
  ASSERT_TRUE(cuda_->Upload(*flag, &zero, 4).ok());
  ASSERT_TRUE(cuda_->SetDevice(1).ok());
  ASSERT_TRUE(cuda_->WaitFlag(*flag, 1, ranks_[1].stream).ok());
  auto done = cuda_->Query(ranks_[1].stream);
  ASSERT_FALSE(done.ok());
  EXPECT_THAT(done.status().message(), HasSubstr("waits for a flag to reach 1 (it is 0)"));
}

TEST_F(CudaFakesTwoRanks, FlagWrittenOnAnotherStreamReleasesTheWait) {
  auto flag = cuda_->Malloc(4);
  const uint32_t zero = 0;
  ASSERT_TRUE(flag.ok() && cuda_->Upload(*flag, &zero, 4).ok());  // on device 1
  ASSERT_TRUE(cuda_->SetDevice(0).ok());
  ASSERT_TRUE(cuda_->EnablePeerAccess(1).ok());
  ASSERT_TRUE(cuda_->WaitFlag(*flag, 2, ranks_[1].stream).ok());
  ASSERT_TRUE(cuda_->WriteFlag(*flag, 2, ranks_[0].stream).ok());
  auto done = cuda_->Query(ranks_[1].stream);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_TRUE(*done);
}

TEST_F(CudaFakesTwoRanks, CopyOutsideAnAllocationIsReported) {
  const Status s = cuda_->Copy2D(ranks_[0].buf, 32, ranks_[0].buf, 32, 32, 1, ranks_[0].stream);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("outside every allocation"));
}

TEST(CudaFakesPeer, PeerCopyNeedsPeerAccessEnabled) {
  FakeGpu gpu;
  auto cuda = gpu.cuda();
  ASSERT_TRUE(cuda->SetDevice(1).ok());
  auto remote = cuda->Malloc(16);
  ASSERT_TRUE(cuda->SetDevice(0).ok());
  auto local = cuda->Malloc(16);
  auto s = cuda->CreateStream(0);
  ASSERT_TRUE(remote.ok() && local.ok() && s.ok());
  const Status refused = cuda->Copy2D(*remote, 16, *local, 16, 16, 1, *s);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.message(), HasSubstr("without peer access"));

  FakeGpu gpu2;
  auto cuda2 = gpu2.cuda();
  ASSERT_TRUE(cuda2->SetDevice(1).ok());
  auto remote2 = cuda2->Malloc(16);
  ASSERT_TRUE(cuda2->SetDevice(0).ok());
  auto local2 = cuda2->Malloc(16);
  auto s2 = cuda2->CreateStream(0);
  ASSERT_TRUE(cuda2->EnablePeerAccess(1).ok());
  EXPECT_TRUE(cuda2->Copy2D(*remote2, 16, *local2, 16, 16, 1, *s2).ok());
}

TEST(CudaFakesBootstrap, BroadcastAllGatherAndAbort) {
  InProcessGroup group(3, std::chrono::milliseconds(60000));
  std::vector<std::thread> threads;
  std::vector<Bytes> got(3);
  std::vector<size_t> gathered(3);
  threads.reserve(3);
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      Bytes b = r == 1 ? Bytes{7, 8, 9} : Bytes{};
      if (group.Member(r).Broadcast(b, 1).ok()) got[size_t(r)] = b;
      auto all = group.Member(r).AllGather(Bytes(size_t(r + 1), uint8_t(r)));
      if (all.ok()) gathered[size_t(r)] = (*all)[2].size();
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(got[size_t(r)], (Bytes{7, 8, 9}));
    EXPECT_EQ(gathered[size_t(r)], 3u);
  }
  // An abort releases a rank waiting for peers that never come.
  group.Member(0).Abort("rank 2 failed");
  const Status s = group.Member(1).Barrier();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("rank 2 failed"));
}

}  // namespace
}  // namespace braid::cuda
