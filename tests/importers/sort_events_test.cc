// SortEvents, the order both importers hand their events on in: by start,
// lane and end, ties as they came, exactly as a stable sort of the events
// themselves would put them, whatever order they came in.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "rank_assembly.h"

namespace braid::importers {
namespace {

std::vector<Event> Shuffled(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Event> ev(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    Event& e = ev[size_t(i)];
    // Few distinct starts, lanes and ends: many full ties.
    e.start_ns = int64_t(rng() % 7) * 1000;
    e.end_ns = e.start_ns + int64_t(rng() % 3);
    e.lane = int(rng() % 3);
    e.name = "event " + std::to_string(i) + " with a name past the small-string buffer";
  }
  return ev;
}

std::vector<Event> StableSorted(std::vector<Event> ev) {
  std::stable_sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
    return std::tie(a.start_ns, a.lane, a.end_ns) < std::tie(b.start_ns, b.lane, b.end_ns);
  });
  return ev;
}

TEST(SortEvents, GivesAStableSortsOrderWhateverTheInput) {
  for (unsigned seed = 0; seed < 40; ++seed) {
    for (int n : {0, 1, 2, 5, 64, 1000}) {
      std::vector<Event> ev = Shuffled(n, seed);
      const std::vector<Event> want = StableSorted(ev);
      SortEvents(&ev);
      ASSERT_EQ(ev.size(), want.size());
      for (size_t i = 0; i < ev.size(); ++i) {
        ASSERT_EQ(ev[i].name, want[i].name) << "seed " << seed << ", n " << n << ", at " << i;
      }
    }
  }
}

TEST(SortEvents, SortedInputIsLeftAsItIs) {
  std::vector<Event> ev = StableSorted(Shuffled(500, 7));
  const std::vector<Event> want = ev;
  SortEvents(&ev);
  for (size_t i = 0; i < ev.size(); ++i) ASSERT_EQ(ev[i].name, want[i].name);
}

}  // namespace
}  // namespace braid::importers
