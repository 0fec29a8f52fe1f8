// Median: odd and even counts, none, and integer samples.
#include "braid/median.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace braid {
namespace {

TEST(Median, OddCountIsTheMiddleValue) {
  EXPECT_EQ(Median(std::vector<double>{5, 1, 3}), 3.0);
  EXPECT_EQ(Median(std::vector<double>{7}), 7.0);
}

TEST(Median, EvenCountIsTheMeanOfTheTwoMiddleValues) {
  EXPECT_EQ(Median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median(std::vector<double>{10, 20}), 15.0);
  EXPECT_EQ(Median(std::vector<int64_t>{300, 100}), 200.0);
  EXPECT_EQ(Median(std::vector<int64_t>{3, 3, 1, 9, 9, 9}), 6.0);
}

TEST(Median, NoValuesHaveNoMedian) { EXPECT_FALSE(Median(std::vector<double>{}).has_value()); }

}  // namespace
}  // namespace braid
