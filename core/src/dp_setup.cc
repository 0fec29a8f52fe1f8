#include "braid/dp_setup.h"

#include <algorithm>

namespace braid {

int64_t MegatronDefaultBucketParams(int dp) { return std::max<int64_t>(40'000'000, 1'000'000 * int64_t(dp)); }

std::string DpSetup::Describe() const {
  std::string s = "dp=" + std::to_string(dp) + " zero=" + std::string(ZeroStageName(zero)) + " " +
                  std::string(DpScheduleName(schedule));
  if (schedule != DpSchedule::kSerial) {
    s += " bucket=" + std::to_string(bucket_params.value_or(MegatronDefaultBucketParams(dp)));
  }
  if (schedule == DpSchedule::kDecomposed) {
    s += " layers=" + (decomposed_layers < 0 ? std::string("all") : std::to_string(decomposed_layers)) + " (" +
         decomposition.Describe() + ")";
  }
  if (zero != ZeroStage::kNone) s += " prefetch=" + std::to_string(prefetch);
  if (comm_sms > 0) s += " comm_sms=" + std::to_string(comm_sms);
  return s;
}

}  // namespace braid
