#include "error_band_table.h"

namespace braid {

Result<std::string> ReadErrorBandFields(const TomlValue& table, const TomlFields& f,
                                        std::initializer_list<ErrorBandField> fields) {
  for (const ErrorBandField& field : fields) {
    if (table.Find(field.key) == nullptr) continue;
    BRAID_ASSIGN_OR_RETURN(auto v, f.Number(field.key, 0.0, 1.0));
    *field.value = v;
    *field.assumed = false;
  }
  BRAID_ASSIGN_OR_RETURN(auto src, f.String("source"));
  if (src.empty()) return Status::Invalid(f.Where(*table.Find("source")) + ": error_band.source must name the rows");
  return src;
}

}  // namespace braid
