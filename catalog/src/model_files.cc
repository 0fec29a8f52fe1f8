// Model files: every error names file, line and field.
#include "braid/model_files.h"

#include <tuple>
#include <utility>

#include "braid/toml_fields.h"
#include "braid/toml_reader.h"
#include "builtin_models.h"

namespace braid {

Result<ModelSpec> ParseModelToml(std::string_view text, std::string_view origin) {
  BRAID_ASSIGN_OR_RETURN(auto doc, ParseToml(text, origin));
  const TomlFields f(doc, origin, "");
  BRAID_RETURN_IF_ERROR(
      f.OnlyKnownKeys({"name", "hidden", "heads", "kv_heads", "head_dim", "ffn", "gated_mlp", "layers", "source"}));
  ModelSpec m;
  BRAID_ASSIGN_OR_RETURN(auto name, f.String("name"));
  m.name = name;
  for (auto [key, dst, hi] : {std::tuple{"hidden", &m.hidden, int64_t(1) << 20},
                              {"heads", &m.heads, int64_t(65536)},
                              {"kv_heads", &m.kv_heads, int64_t(65536)},
                              {"head_dim", &m.head_dim, int64_t(65536)},
                              {"ffn", &m.ffn, int64_t(1) << 22},
                              {"layers", &m.layers, int64_t(100000)}}) {
    BRAID_ASSIGN_OR_RETURN(auto v, f.Integer(key, 1, hi));
    *dst = v;
  }
  BRAID_ASSIGN_OR_RETURN(auto gated, f.OptionalBool("gated_mlp", false));
  m.gated_mlp = gated;
  if (m.heads % m.kv_heads != 0) {
    return Status::Invalid(f.Where(*doc.Find("kv_heads")) + ": kv_heads=" + std::to_string(m.kv_heads) +
                           " must divide heads=" + std::to_string(m.heads));
  }
  BRAID_ASSIGN_OR_RETURN(auto src, f.String("source"));
  if (src.empty()) {
    return Status::Invalid(f.Where(*doc.Find("source")) + ": source must name where the numbers come from");
  }
  m.source = src;
  return m;
}

std::vector<std::string> BuiltinModelNames() { return NamesOf(kBuiltinModels); }

Result<ModelSpec> LoadModel(std::string_view name_or_path) {
  BRAID_ASSIGN_OR_RETURN(auto file, FindDataFile(name_or_path, kBuiltinModels, "model"));
  return ParseModelToml(file.text, file.origin);
}

}  // namespace braid
