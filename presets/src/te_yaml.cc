// A ub_cfgs YAML file read with yaml-cpp (braid/te_ub_cfgs.h).
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <exception>

#include "braid/safe_read.h"
#include "braid/te_ub_cfgs.h"

namespace braid {

namespace {

constexpr std::string_view kOptionNames =
    "method, is_reduce_scatter, num_sm, cga_size, set_sm_margin, num_splits, aggregate, atomic_gemm, use_ce, "
    "fp8_buf, comm_priority, gemm_priority, pipeline_rs_overlap_first_gemm";

// ub_cfgs is two levels deep: refuse deeper text before yaml-cpp recurses
// into it, and anchors / aliases, which no ub_cfgs file needs (an alias
// may name a node many times over).
Status CheckShape(std::string_view text, const std::string& origin) {
  int flow = 0, line = 1;
  bool quoted = false, comment = false, line_start = true;
  int indent = 0;
  char quote = 0;
  for (char ch : text) {
    if (ch == '\n') {
      ++line;
      comment = false;
      line_start = true;
      indent = 0;
      continue;
    }
    if (comment) continue;
    if (line_start) {
      if (ch == ' ') {
        if (++indent > 16) {
          return Status::Invalid(origin + ": line " + std::to_string(line) +
                                 ": indented deeper than a ub_cfgs file needs (keys, then their options)");
        }
        continue;
      }
      line_start = false;
    }
    if (quoted) {
      if (ch == quote) quoted = false;
      continue;
    }
    switch (ch) {
      case '"':
      case '\'':
        quoted = true;
        quote = ch;
        break;
      case '#':
        comment = true;
        break;
      case '[':
      case '{':
        if (++flow > 2) {
          return Status::Invalid(origin + ": line " + std::to_string(line) +
                                 ": nested deeper than a ub_cfgs file needs (keys, then their options)");
        }
        break;
      case ']':
      case '}':
        flow = flow > 0 ? flow - 1 : 0;
        break;
      case '&':
      case '*':
        return Status::Invalid(origin + ": line " + std::to_string(line) +
                               ": YAML anchors and aliases ('&', '*') are not taken in a ub_cfgs file");
      default:
        break;
    }
  }
  return Status::Ok();
}

std::string Where(const std::string& origin, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? origin : origin + ":" + std::to_string(m.line + 1);
}

// An integer scalar ("16", "-1"); flags also as true/false.
Result<int> IntOf(const YAML::Node& v, bool flag, const std::string& what) {
  if (!v.IsScalar()) return Status::Invalid(what + " is not a " + (flag ? "flag" : "number"));
  const std::string& s = v.Scalar();
  if (flag) {
    if (s == "true" || s == "True" || s == "TRUE") return 1;
    if (s == "false" || s == "False" || s == "FALSE") return 0;
  }
  int out = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return Status::Invalid(what + " is '" + OneLine(s) + "', not " + (flag ? "true, false, 0 or 1" : "an integer"));
  }
  if (flag && out != 0 && out != 1) return Status::Invalid(what + " is " + s + ", not true, false, 0 or 1");
  return out;
}

Status ReadOption(const std::string& name, const YAML::Node& v, const std::string& where, TeGivenOptions& o) {
  const std::string what = where + ": " + OneLine(name);  // a name from the file: one line, as every message
  if (name == "method") {
    if (!v.IsScalar()) return Status::Invalid(what + " is not a method name");
    Result<TeMethod> m = ParseTeMethod(v.Scalar());
    if (!m.ok()) return Status::Invalid(what + ": " + m.status().message());
    o.method = *m;
    return Status::Ok();
  }
  struct Field {
    std::string_view name;
    std::optional<int> TeGivenOptions::*member;
    bool flag;
  };
  static constexpr Field kFields[] = {
      {"is_reduce_scatter", &TeGivenOptions::is_reduce_scatter, true},
      {"num_sm", &TeGivenOptions::num_sm, false},
      {"cga_size", &TeGivenOptions::cga_size, false},
      {"set_sm_margin", &TeGivenOptions::set_sm_margin, true},
      {"num_splits", &TeGivenOptions::num_splits, false},
      {"aggregate", &TeGivenOptions::aggregate, true},
      {"atomic_gemm", &TeGivenOptions::atomic_gemm, true},
      {"use_ce", &TeGivenOptions::use_ce, true},
      {"fp8_buf", &TeGivenOptions::fp8_buf, true},
      {"comm_priority", &TeGivenOptions::comm_priority, false},
      {"gemm_priority", &TeGivenOptions::gemm_priority, false},
      {"pipeline_rs_overlap_first_gemm", &TeGivenOptions::pipeline_rs_overlap_first_gemm, true},
  };
  for (const Field& f : kFields) {
    if (f.name != name) continue;
    BRAID_ASSIGN_OR_RETURN(auto value, IntOf(v, f.flag, what));
    o.*f.member = value;
    return Status::Ok();
  }
  return Status::Invalid(what + ": not an option TE's ub_cfgs has (" + std::string(kOptionNames) + ")");
}

Result<TeUbCfgsFile> Parse(const YAML::Node& root, const std::string& origin) {
  TeUbCfgsFile out;
  if (root.IsNull()) return Status::Invalid(origin + ": empty: a ub_cfgs file maps TE's GEMM keys to their options");
  if (!root.IsMap()) {
    return Status::Invalid(origin + ": not a mapping of TE's GEMM keys (qkv_fprop: {method: ..., num_sm: ...})");
  }
  std::string known;
  for (const TeKey& k : TeKeys()) known += (known.empty() ? "" : ", ") + std::string(k.name);
  for (const auto& item : root) {
    const std::string where = Where(origin, item.first);
    if (!item.first.IsScalar()) return Status::Invalid(where + ": a key that is not a name");
    const std::string key = item.first.Scalar();
    if (FindTeKey(key) == nullptr) {
      return Status::Invalid(where + ": '" + OneLine(key) + "' is not one of TE's ub_cfgs keys (" + known + ")");
    }
    if (out.Find(key) != nullptr) return Status::Invalid(where + ": " + key + " is given twice");
    if (!item.second.IsMap()) {
      return Status::Invalid(where + ": " + key + " is not a mapping of options (" + std::string(kOptionNames) + ")");
    }
    TeGivenOptions o;
    for (const auto& opt : item.second) {
      const std::string at = Where(origin, opt.first) + ": " + key;
      if (!opt.first.IsScalar()) return Status::Invalid(at + ": an option that is not a name");
      BRAID_RETURN_IF_ERROR(ReadOption(opt.first.Scalar(), opt.second, at, o));
    }
    out.keys.emplace_back(key, o);
  }
  return out;
}

}  // namespace

Result<TeUbCfgsFile> ParseTeUbCfgsYaml(std::string_view text, std::string_view origin_view) {
  const std::string origin = OneLine(origin_view);
  BRAID_RETURN_IF_ERROR(CheckShape(text, origin));
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    return Parse(root, origin);
  } catch (const YAML::Exception& e) {
    const std::string line = e.mark.is_null() ? "" : ":" + std::to_string(e.mark.line + 1);
    return Status::Invalid(origin + line + ": not YAML: " + OneLine(e.msg));
  } catch (const std::exception& e) {
    return Status::Invalid(origin + ": cannot be read as YAML: " + OneLine(e.what()));
  }
}

Result<TeUbCfgsFile> LoadTeUbCfgsFile(const std::string& path) {
  BRAID_ASSIGN_OR_RETURN(auto text, ReadUserFile(path, "ub_cfgs file", kMaxUbCfgsBytes));
  return ParseTeUbCfgsYaml(text, path);
}

Result<TeConfiguredBlock> LoadTeUbCfgsBlock(const std::string& path, const LayerWorkload& lw, int gpu_sms) {
  BRAID_ASSIGN_OR_RETURN(auto file, LoadTeUbCfgsFile(path));
  BRAID_ASSIGN_OR_RETURN(auto block, ResolveTeUbCfgs(&file, lw, gpu_sms));
  TeConfiguredBlock out{WithTeConfigs(lw, block), {}};
  out.notes.push_back("ub_cfgs " + OneLine(path) +
                      ": every GEMM as TransformerEngine runs the file (keys left out: TE's defaults)");
  for (const TeKeyConfig& k : block.keys) {
    for (const std::string& n : k.notes) out.notes.push_back(std::string(k.key->name) + ": " + n);
  }
  out.notes.insert(out.notes.end(), block.notes.begin(), block.notes.end());
  return out;
}

}  // namespace braid
