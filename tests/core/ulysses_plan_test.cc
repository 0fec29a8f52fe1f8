// The Ulysses planner (a2a, a2a_direct): every plan is proven by the plan
// checker for both ops, P, sub-chunk count, lane count and dtype; each step
// pairs r → r+s and r−s → r; a2a's transfers all follow its last GEMM (ag_gemm)
// or precede its first (gemm_rs), a2a_direct's each wait only for the GEMM of
// what they carry; each rank moves (P−1)/P of its block; bad configs are
// refused naming the field, and layer plans refuse them.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "braid/layer_workload.h"
#include "braid/plan_check.h"
#include "braid/planner.h"
#include "tiny_model.h"

namespace braid {
namespace ulysses_plan_test {
namespace {

constexpr Algorithm kUlysses[] = {Algorithm::kA2a, Algorithm::kA2aDirect};

OverlapConfig Config(Algorithm a, int chunks = 1, int lanes = 1) {
  OverlapConfig c;
  c.algorithm = a;
  c.chunks = chunks;
  c.comm_lanes = lanes;
  return c;
}

Plan MustBuild(const Workload& w, const OverlapConfig& c) {
  Result<Plan> plan = BuildPlan(w, c);
  EXPECT_TRUE(plan.ok()) << w.Describe() << " " << c.Describe() << ": " << plan.status().message();
  return plan.ok() ? std::move(plan).value() : Plan{};
}

int Mod(int a, int p) { return ((a % p) + p) % p; }

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(UlyssesPlan, EveryOpTpSubChunkLaneAndDtypeIsProven) {
  int proven = 0;
  for (Algorithm a : kUlysses) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      for (DType dt : {DType::kBf16, DType::kFp32, DType::kFp8E4m3}) {
        for (int p = 1; p <= 8; ++p) {
          // a2a is the baseline: whole transfers only.
          const int max_chunks = a == Algorithm::kA2a ? 1 : 4;
          for (int chunks = 1; chunks <= max_chunks; ++chunks) {
            for (int lanes = 1; lanes <= 3; ++lanes) {
              const Workload w{op, int64_t(p) * chunks * 3, 4 * int64_t(p), 4 * int64_t(p), dt, p};
              const Plan plan = MustBuild(w, Config(a, chunks, lanes));
              SCOPED_TRACE(w.Describe() + " " + plan.config.Describe());
              ASSERT_EQ(plan.tp(), p);
              const Status structure = CheckPlanStructure(plan);
              ASSERT_TRUE(structure.ok()) << structure.message();
              const Status semantics = CheckPlanSemantics(plan);
              ASSERT_TRUE(semantics.ok()) << semantics.message();
              ++proven;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(proven, 2 * 3 * 8 * 3 * (1 + 4));
}

// Every rank holds the whole B, one input buffer per block (column block j
// for ag_gemm, K shard j for gemm_rs), and ag_gemm's or gemm_rs's own A
// window and output window.
TEST(UlyssesPlan, EveryRankHoldsTheWholeBAsOneInputPerBlock) {
  const int p = 4;
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    const Workload w{op, 8 * p, 4 * p, 2 * p, DType::kBf16, p};
    const Plan plan = MustBuild(w, Config(Algorithm::kA2aDirect));
    for (int r = 0; r < p; ++r) {
      const RankPlan& rp = plan.ranks[size_t(r)];
      std::vector<InputWindow> b;
      int a_inputs = 0;
      for (const BufferDecl& d : rp.buffers) {
        if (d.role != BufferRole::kInput) continue;
        if (d.input.matrix == Matrix::kB) {
          b.push_back(d.input);
          continue;
        }
        ++a_inputs;
        if (op == Op::kAgGemm) {
          EXPECT_EQ(d.input.row0, r * w.m / p);  // its sequence shard, all of K
          EXPECT_EQ(d.input.rows, w.m / p);
          EXPECT_EQ(d.input.cols, w.k);
        } else {
          EXPECT_EQ(d.input.rows, w.m);  // all tokens, its K shard
          EXPECT_EQ(d.input.col0, r * w.k / p);
          EXPECT_EQ(d.input.cols, w.k / p);
        }
      }
      EXPECT_EQ(a_inputs, 1);
      ASSERT_EQ(b.size(), size_t(p));
      for (int j = 0; j < p; ++j) {
        const InputWindow& bj = b[size_t(j)];
        if (op == Op::kAgGemm) {
          EXPECT_EQ(bj.row0, 0);
          EXPECT_EQ(bj.rows, w.k);
          EXPECT_EQ(bj.col0, j * w.n / p);
          EXPECT_EQ(bj.cols, w.n / p);
        } else {
          EXPECT_EQ(bj.row0, j * w.k / p);
          EXPECT_EQ(bj.rows, w.k / p);
          EXPECT_EQ(bj.col0, 0);
          EXPECT_EQ(bj.cols, w.n);
        }
      }
      const OutputWindow want =
          op == Op::kAgGemm ? OutputWindow{0, w.m, r * w.n / p, w.n / p} : OutputWindow{r * w.m / p, w.m / p, 0, w.n};
      EXPECT_EQ(rp.output_window.row0, want.row0);
      EXPECT_EQ(rp.output_window.rows, want.rows);
      EXPECT_EQ(rp.output_window.col0, want.col0);
      EXPECT_EQ(rp.output_window.cols, want.cols);
    }
  }
}

// Step s is a permutation: every rank sends to r+s and receives from r−s,
// once per sub-chunk; ag_gemm sends the product block of the receiver's
// columns (its own rows), gemm_rs the receiver's rows of its own K shard.
TEST(UlyssesPlan, StepSSendsToRPlusSAndReceivesFromRMinusS) {
  for (Algorithm a : kUlysses) {
    for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
      for (int p = 2; p <= 8; ++p) {
        const int chunks = a == Algorithm::kA2a ? 1 : 2;
        const int64_t mb = 4;
        const Workload w{op, mb * p, 4 * int64_t(p), 4 * int64_t(p), DType::kBf16, p};
        const Plan plan = MustBuild(w, Config(a, chunks, 2));
        ASSERT_EQ(plan.tp(), p);
        for (int r = 0; r < p; ++r) {
          const RankPlan& rp = plan.ranks[size_t(r)];
          std::multiset<int> sent_to, heard_from;
          for (const Step& s : rp.steps) {
            if (s.kind == StepKind::kSend) {
              EXPECT_EQ(s.peer, Mod(r + s.ring_step, p)) << "rank " << r << " step " << s.id;
              EXPECT_EQ(s.a.row / mb, s.peer) << "the block for the receiver";
              EXPECT_EQ(rp.buffers[size_t(s.a.buffer)].role,
                        op == Op::kAgGemm ? BufferRole::kWorkspace : BufferRole::kInput)
                  << "ag_gemm sends products, gemm_rs its A";
              sent_to.insert(s.peer);
            } else if (s.kind == StepKind::kRecv) {
              EXPECT_EQ(s.peer, Mod(r - s.ring_step, p)) << "rank " << r << " step " << s.id;
              // ag_gemm: into the sender's rows of C; gemm_rs: into the
              // sender's K shard block of the inbox.
              EXPECT_EQ(s.c.row / mb, s.peer);
              heard_from.insert(s.peer);
            }
          }
          for (int q = 0; q < p; ++q) {
            EXPECT_EQ(sent_to.count(q), q == r ? 0U : size_t(chunks)) << "rank " << r << " to " << q;
            EXPECT_EQ(heard_from.count(q), q == r ? 0U : size_t(chunks)) << "rank " << r << " from " << q;
          }
        }
      }
    }
  }
}

int LastOf(const RankPlan& rp, StepKind kind) {
  int last = -1;
  for (const Step& s : rp.steps) last = s.kind == kind ? s.id : last;
  return last;
}

int FirstOf(const RankPlan& rp, StepKind kind) {
  for (const Step& s : rp.steps) {
    if (s.kind == kind) return s.id;
  }
  return -1;
}

// a2a is the baseline: ag_gemm's transfers are all posted after (and wait
// for) its last GEMM; gemm_rs's first GEMM waits for every transfer.
TEST(UlyssesPlan, A2aRunsTheWholeAllToAllAfterOrBeforeEveryGemm) {
  for (int p = 2; p <= 8; ++p) {
    const Plan ag =
        MustBuild({Op::kAgGemm, 4 * int64_t(p), 2 * int64_t(p), 8, DType::kBf16, p}, Config(Algorithm::kA2a));
    for (const RankPlan& rp : ag.ranks) {
      const int last = LastOf(rp, StepKind::kGemm);
      int transfers = 0;
      for (const Step& s : rp.steps) {
        if (s.kind != StepKind::kSend && s.kind != StepKind::kRecv) continue;
        ++transfers;
        EXPECT_GT(s.id, last);
        EXPECT_EQ(s.deps, std::vector<int>{last}) << "step " << s.id;
      }
      EXPECT_EQ(transfers, 2 * (p - 1));
    }
    const Plan rs =
        MustBuild({Op::kGemmRs, 4 * int64_t(p), 8, 2 * int64_t(p), DType::kBf16, p}, Config(Algorithm::kA2a));
    for (const RankPlan& rp : rs.ranks) {
      const Step& first = rp.steps[size_t(FirstOf(rp, StepKind::kGemm))];
      std::vector<int> transfers;
      for (const Step& s : rp.steps) {
        if (s.kind == StepKind::kSend || s.kind == StepKind::kRecv) transfers.push_back(s.id);
      }
      EXPECT_EQ(transfers.size(), size_t(2 * (p - 1)));
      EXPECT_EQ(first.deps, transfers);
      EXPECT_GT(first.id, transfers.back());
    }
  }
}

// a2a_direct overlaps: ag_gemm's first send waits for nothing but the GEMM
// of the block it carries (the first GEMM: the own block is computed last),
// every send only for its block's GEMM, and receives for nothing; gemm_rs
// computes its own block first with no wait, sends its A at once, and
// multiplies each arriving block as soon as it lands.
TEST(UlyssesPlan, A2aDirectTransfersWaitOnlyForTheirOwnData) {
  for (int p = 2; p <= 8; ++p) {
    for (int chunks = 1; chunks <= 3; ++chunks) {
      const int64_t mb = 2 * chunks;
      const Plan ag = MustBuild({Op::kAgGemm, mb * p, 2 * int64_t(p), 8, DType::kBf16, p},
                                Config(Algorithm::kA2aDirect, chunks, 2));
      for (int r = 0; r < p; ++r) {
        const RankPlan& rp = ag.ranks[size_t(r)];
        const int first_send = FirstOf(rp, StepKind::kSend);
        ASSERT_GE(first_send, 0);
        ASSERT_EQ(rp.steps[size_t(first_send)].deps, std::vector<int>{FirstOf(rp, StepKind::kGemm)});
        for (const Step& s : rp.steps) {
          if (s.kind == StepKind::kRecv) {
            EXPECT_TRUE(s.deps.empty());
          }
          if (s.kind != StepKind::kSend) continue;
          ASSERT_EQ(s.deps.size(), 1U);
          const Step& g = rp.steps[size_t(s.deps[0])];
          EXPECT_EQ(g.kind, StepKind::kGemm);
          EXPECT_EQ(g.c.buffer, s.a.buffer);
          EXPECT_EQ(g.c.row, s.a.row);
        }
        // The own block last: after the last GEMM only transfers are left.
        const Step& last = rp.steps[size_t(LastOf(rp, StepKind::kGemm))];
        EXPECT_EQ(last.c.buffer, rp.output);
        EXPECT_EQ(last.c.row / mb, r);
      }
      const Plan rs = MustBuild({Op::kGemmRs, mb * p, 8, 2 * int64_t(p), DType::kBf16, p},
                                Config(Algorithm::kA2aDirect, chunks, 2));
      for (int r = 0; r < p; ++r) {
        const RankPlan& rp = rs.ranks[size_t(r)];
        // The own block's GEMMs open the plan and wait for nothing.
        for (int j = 0; j < chunks; ++j) {
          const Step& g = rp.steps[size_t(j)];
          EXPECT_EQ(g.kind, StepKind::kGemm);
          EXPECT_TRUE(g.deps.empty());
          EXPECT_EQ(g.c.buffer, rp.output);
          EXPECT_EQ(g.a.row / mb, r);
        }
        for (const Step& s : rp.steps) {
          if (s.kind == StepKind::kSend || s.kind == StepKind::kRecv) {
            EXPECT_TRUE(s.deps.empty()) << "step " << s.id;
          }
          if (s.kind != StepKind::kGemm || !s.accumulate) continue;
          // A peer's block: after the GEMM that last wrote the sum and the
          // recv of its own rows, nothing else.
          ASSERT_EQ(s.deps.size(), 2U);
          const Step& before = rp.steps[size_t(s.deps[0])];
          EXPECT_EQ(before.kind, StepKind::kGemm);
          EXPECT_EQ(before.c.buffer, rp.output);
          EXPECT_EQ(before.c.row, s.c.row);
          const Step& got = rp.steps[size_t(s.deps[1])];
          EXPECT_EQ(got.kind, StepKind::kRecv);
          EXPECT_EQ(got.c.buffer, s.a.buffer);
          EXPECT_EQ(got.c.row, s.a.row);
        }
        // P−1 blocks land per sub-chunk, each summed in its GEMM's epilogue
        // into the output: no add kernel.
        int accumulating = 0, adds = 0;
        for (const Step& s : rp.steps) {
          accumulating += s.kind == StepKind::kGemm && s.accumulate && s.c.buffer == rp.output ? 1 : 0;
          adds += s.kind == StepKind::kReduce ? 1 : 0;
        }
        EXPECT_EQ(accumulating, (p - 1) * chunks);
        EXPECT_EQ(adds, 0);
      }
    }
  }
}

// Each rank sends (P−1)/P of its block: of its C rows (M/P × N in the
// output dtype) for ag_gemm, of its A shard (M × K/P in the input dtype) for
// gemm_rs — less than the all-gather's (P−1) blocks of M/P × K or the
// reduce-scatter's (P−1) blocks of M/P × N whenever N/P < K or K/P < N.
TEST(UlyssesPlan, EachRankSendsPMinusOneOverPOfItsBlock) {
  for (Algorithm a : kUlysses) {
    for (DType dt : {DType::kFp32, DType::kBf16, DType::kFp8E4m3}) {
      for (int p = 1; p <= 8; ++p) {
        const int64_t mb = 6;
        const Workload ag{Op::kAgGemm, mb * p, 8 * int64_t(p), 64, dt, p};
        const Workload rs{Op::kGemmRs, mb * p, 64, 8 * int64_t(p), dt, p};
        const int chunks = a == Algorithm::kA2a ? 1 : 3;
        for (const Workload& w : {ag, rs}) {
          const Plan plan = MustBuild(w, Config(a, chunks));
          // Products travel in the output dtype (bf16 for FP8), A in its own.
          const DType moved = w.op == Op::kAgGemm ? w.OutDType() : w.dtype;
          EXPECT_EQ(plan.op_comm_dtype(0), moved);
          const int64_t block = w.op == Op::kAgGemm ? mb * w.n : w.m * (w.k / p);  // the rank's C rows or A shard
          for (const RankPlan& rp : plan.ranks) {
            int64_t bytes = 0;
            for (const Step& s : rp.steps) bytes += s.kind == StepKind::kSend ? s.bytes : 0;
            EXPECT_EQ(bytes, block * (p - 1) / p * DTypeBytes(moved)) << w.Describe();
          }
          if (p == 8 && w.op == Op::kAgGemm) {
            // QKV-like (N/P = 8 < K = 64): an eighth of the elements of
            // gathering A, a quarter of its bytes where A moves as FP8.
            const Plan gather = MustBuild(w, Config(Algorithm::kDirect));
            int64_t gathered = 0;
            for (const Step& s : gather.ranks[0].steps) gathered += s.kind == StepKind::kSend ? s.bytes : 0;
            int64_t ulysses = 0;
            for (const Step& s : plan.ranks[0].steps) ulysses += s.kind == StepKind::kSend ? s.bytes : 0;
            EXPECT_LE(ulysses * (IsFp8(dt) ? 4 : 8), gathered) << w.Describe();
          }
        }
      }
    }
  }
}

// The checker is not fooled: a GEMM that multiplies a peer's block by the
// wrong block of the replicated B, or a product landing in the wrong rows,
// is caught.
TEST(UlyssesPlan, TheCheckerCatchesTheWrongBlockOfB) {
  for (Op op : {Op::kAgGemm, Op::kGemmRs}) {
    const int p = 4;
    Plan plan = MustBuild({op, 8 * p, 4 * p, 4 * p, DType::kBf16, p}, Config(Algorithm::kA2aDirect));
    RankPlan& rp = plan.ranks[1];
    // The last GEMM that multiplies by a peer's block of B (ag_gemm: into
    // the block it sends; gemm_rs: accumulating into the output): swap in
    // another.
    Step* peer_gemm = nullptr;
    for (Step& s : rp.steps) {
      if (s.kind == StepKind::kGemm && (s.c.buffer != rp.output || s.accumulate)) peer_gemm = &s;
    }
    ASSERT_NE(peer_gemm, nullptr);
    const BufferId b = peer_gemm->b.buffer;
    BufferId other = -1;
    for (size_t i = 0; i < rp.buffers.size(); ++i) {
      const BufferDecl& d = rp.buffers[i];
      if (d.role == BufferRole::kInput && d.input.matrix == Matrix::kB && BufferId(i) != b) other = BufferId(i);
    }
    ASSERT_GE(other, 0);
    peer_gemm->b.buffer = other;
    ASSERT_TRUE(CheckPlanStructure(plan).ok());
    const Status s = CheckPlanSemantics(plan);
    ASSERT_FALSE(s.ok()) << OpName(op);
    // ag_gemm: the product has a peer's columns; gemm_rs: B's rows are not
    // the K shard of the A rows it multiplies.
    EXPECT_TRUE(Contains(s.message(), op == Op::kAgGemm ? "columns" : "by B's rows")) << s.message();
  }
}

// An accumulating GEMM is held to its sum: one that overwrites instead
// loses the partials before it, one whose output holds nothing yet reads an
// empty row, and only GEMMs may accumulate.
TEST(UlyssesPlan, TheCheckerHoldsAccumulatingGemmsToTheirSum) {
  const int p = 4;
  const Plan plan = MustBuild({Op::kGemmRs, 8 * p, 4 * p, 4 * p, DType::kBf16, p}, Config(Algorithm::kA2aDirect));
  ASSERT_TRUE(CheckPlanSemantics(plan).ok());
  auto first_accumulating = [](RankPlan& rp) -> Step* {
    for (Step& s : rp.steps) {
      if (s.accumulate) return &s;
    }
    return nullptr;
  };
  Plan overwrites = plan;
  Step* g = first_accumulating(overwrites.ranks[2]);
  ASSERT_NE(g, nullptr);
  g->accumulate = false;
  const Status lost = CheckPlanSemantics(overwrites);
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(Contains(lost.message(), "missing a partial")) << lost.message();

  Plan first = plan;
  first.ranks[1].steps[0].accumulate = true;  // the own block's GEMM, onto nothing
  const Status empty = CheckPlanSemantics(first);
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(Contains(empty.message(), "reads empty row")) << empty.message();

  Plan send = plan;
  for (Step& s : send.ranks[0].steps) {
    if (s.kind == StepKind::kSend) {
      s.accumulate = true;
      break;
    }
  }
  const Status structure = CheckPlanStructure(send);
  ASSERT_FALSE(structure.ok());
  EXPECT_TRUE(Contains(structure.message(), "only a GEMM accumulates")) << structure.message();
}

TEST(UlyssesPlan, BadConfigsAreRefusedNamingTheField) {
  for (Algorithm a : kUlysses) {
    const std::string name(AlgorithmName(a));
    const Status ar = Config(a).Validate({Op::kGemmAr, 64, 16, 16, DType::kBf16, 4});
    ASSERT_FALSE(ar.ok());
    EXPECT_TRUE(ar.is_user_error());
    EXPECT_TRUE(Contains(ar.message(), name + " does not apply to gemm_ar")) << ar.message();
    EXPECT_TRUE(Contains(ar.message(), "`algorithm`")) << ar.message();
    EXPECT_FALSE(BuildPlan({Op::kGemmAr, 64, 16, 16, DType::kBf16, 4}, Config(a)).ok());
    // The rank blocks: M, and N (ag_gemm) or K (gemm_rs), divide by P.
    EXPECT_TRUE(Contains(Config(a).Validate({Op::kAgGemm, 66, 16, 16, DType::kBf16, 4}).message(), "M=66"));
    EXPECT_TRUE(Contains(Config(a).Validate({Op::kAgGemm, 64, 18, 16, DType::kBf16, 4}).message(), "N=18"));
    EXPECT_TRUE(Contains(Config(a).Validate({Op::kGemmRs, 64, 16, 18, DType::kBf16, 4}).message(), "K=18"));
    OverlapConfig split = Config(a, 2);
    split.splits = {1, 2};
    EXPECT_FALSE(split.Validate({Op::kGemmRs, 64, 16, 16, DType::kBf16, 4}).ok());
    // FP8 products would round: ag_gemm's comm_dtype stays the output's.
    OverlapConfig fp8 = Config(a);
    fp8.comm_dtype = DType::kFp8E4m3;
    const Status rounds = fp8.Validate({Op::kAgGemm, 64, 16, 16, DType::kFp8E4m3, 4});
    EXPECT_TRUE(Contains(rounds.message(), "`comm_dtype`")) << rounds.message();
    EXPECT_TRUE(fp8.Validate({Op::kGemmRs, 64, 16, 16, DType::kFp8E4m3, 4}).ok()) << "gemm_rs moves FP8 A";
    OverlapConfig bf16 = Config(a);
    bf16.comm_dtype = DType::kBf16;
    EXPECT_TRUE(bf16.Validate({Op::kGemmRs, 64, 16, 16, DType::kFp8E4m3, 4}).ok()) << "A in bf16, cast after";
    Result<Algorithm> parsed = ParseAlgorithm(name);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, a);
    EXPECT_TRUE(IsUlysses(a));
    EXPECT_TRUE(IsPeerToPeer(a));
  }
  // a2a_direct: sub-chunks must cut M/P evenly, as direct's.
  EXPECT_TRUE(Contains(Config(Algorithm::kA2aDirect, 5).Validate({Op::kAgGemm, 64, 16, 16, DType::kBf16, 4}).message(),
                       "rows per rank block"));
  // a2a is the baseline: whole transfers, nothing beside its GEMMs.
  const Status chunked = Config(Algorithm::kA2a, 2).Validate({Op::kAgGemm, 64, 16, 16, DType::kBf16, 4});
  EXPECT_TRUE(Contains(chunked.message(), "`chunks`")) << chunked.message();
  OverlapConfig margin = Config(Algorithm::kA2a);
  margin.sm_margin = true;
  EXPECT_TRUE(Contains(margin.ValidateKnobs().message(), "`sm_margin`"));
  margin.algorithm = Algorithm::kA2aDirect;
  EXPECT_TRUE(margin.ValidateKnobs().ok());
  EXPECT_TRUE(Contains(ParseAlgorithm("a2a_drect").status().message(), "a2a_direct"));
}

// A Ulysses layer is separate work: layer and train plans refuse a2a and
// a2a_direct as the run's algorithm and as an op's own, naming `algorithm`.
TEST(UlyssesPlan, LayerAndTrainPlansRefuseThem) {
  for (Algorithm a : kUlysses) {
    for (Phase phase : {Phase::kPrefill, Phase::kTrain}) {
      Result<LayerWorkload> lw = MakeLayerWorkload(testing_core::TinyModel(), 16, 2, phase, 2, DType::kBf16);
      ASSERT_TRUE(lw.ok()) << lw.status().message();
      const Result<Plan> run = BuildLayerPlan(*lw, Config(a));
      ASSERT_FALSE(run.ok());
      EXPECT_TRUE(run.status().is_user_error());
      EXPECT_TRUE(Contains(run.status().message(), "`algorithm` " + std::string(AlgorithmName(a))))
          << run.status().message();
      LayerWorkload own = *lw;
      std::string named;
      for (LayerOp& op : own.ops) {
        if (op.kind == LayerOpKind::kTpGemm && op.gemm.op == Op::kAgGemm && op.pass == Pass::kFprop) {
          op.config = Config(a);
          named = op.name;
          break;
        }
      }
      ASSERT_FALSE(named.empty());
      const Result<Plan> per_op = BuildLayerPlan(own, OverlapConfig{});
      ASSERT_FALSE(per_op.ok());
      EXPECT_TRUE(Contains(per_op.status().message(), named + ": `algorithm`")) << per_op.status().message();
      if (phase == Phase::kTrain) {
        EXPECT_FALSE(TrainOpConfigs(*lw, Config(a)).ok());
      }
    }
  }
}

}  // namespace
}  // namespace ulysses_plan_test
}  // namespace braid
