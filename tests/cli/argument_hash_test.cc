// The mpirun ranks' argument hash (cli/argument_hash.h): taken from every
// parsed option, so a flag nobody listed still tells the ranks apart.
#include "argument_hash.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace braid::cli {
namespace argument_hash_test {
namespace {

// A command with run's and tune's shape of flags: a value, two switches and
// a printing-only flag.
uint64_t HashOf(std::vector<std::string> args) {
  CLI::App app;
  int tp = 0;
  bool tf32 = false, loopback = false, json = false;
  std::string backend = "sim";
  app.add_option("--tp", tp);
  app.add_option("--backend", backend);
  app.add_flag("--tf32", tf32);
  app.add_flag("--loopback", loopback);
  app.add_flag("--json", json);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  app.parse(reversed);
  return ArgumentsHash(app, {"--json"});
}

TEST(ArgumentHash, EqualRequestsHashEqual) {
  EXPECT_EQ(HashOf({"--tp", "8", "--tf32"}), HashOf({"--tp", "8", "--tf32"}));
  EXPECT_EQ(HashOf({"--tf32", "--tp", "8"}), HashOf({"--tp=8", "--tf32"}));  // order and spelling
}

TEST(ArgumentHash, Tf32AloneTellsRequestsApart) { EXPECT_NE(HashOf({"--tp", "8"}), HashOf({"--tp", "8", "--tf32"})); }

TEST(ArgumentHash, LoopbackAloneTellsRequestsApart) {
  EXPECT_NE(HashOf({"--tp", "8"}), HashOf({"--tp", "8", "--loopback"}));
}

TEST(ArgumentHash, AnyValueTellsRequestsApart) {
  EXPECT_NE(HashOf({"--tp", "8"}), HashOf({"--tp", "4"}));
  EXPECT_NE(HashOf({"--backend", "cpu"}), HashOf({"--backend", "sim"}));
}

TEST(ArgumentHash, PrintingOnlyFlagsAreLeftOut) { EXPECT_EQ(HashOf({"--tp", "8"}), HashOf({"--tp", "8", "--json"})); }

}  // namespace
}  // namespace argument_hash_test
}  // namespace braid::cli
