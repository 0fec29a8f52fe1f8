#include "workload_flags.h"

#include <tuple>

#include "braid/size_parse.h"

namespace braid::cli {

Result<Workload> WorkloadFromFlags(const std::string& op, const std::string& m, const std::string& n,
                                   const std::string& k, int tp, const std::string& dtype) {
  Workload w;
  auto parsed_op = ParseOp(op);
  if (!parsed_op.ok()) return parsed_op.status();
  w.op = *parsed_op;
  for (auto [text, flag, dst] : {std::tuple{&m, "--m", &w.m}, {&n, "--n", &w.n}, {&k, "--k", &w.k}}) {
    auto v = ParseSize(*text, flag);
    if (!v.ok()) return v.status();
    *dst = *v;
  }
  if (tp <= 0) return Status::Invalid("--tp must be at least 1 (got " + std::to_string(tp) + ")");
  w.tp = tp;
  auto dt = ParseDType(dtype);
  if (!dt.ok()) return dt.status();
  w.dtype = *dt;
  return w;
}

}  // namespace braid::cli
