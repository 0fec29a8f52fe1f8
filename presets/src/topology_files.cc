#include "braid/topology_files.h"

#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "builtin_topologies.h"

namespace braid {

namespace {

std::string Where(std::string_view origin, const toml::source_region& src) {
  // ostringstream sidesteps a GCC 12 -Wrestrict false positive on string +.
  std::ostringstream out;
  out << origin;
  if (src.begin.line > 0) out << ':' << src.begin.line << ':' << src.begin.column;
  return out.str();
}

// Reads typed fields of one table, naming file, line and field on error.
class FieldReader {
 public:
  FieldReader(const toml::table& t, std::string_view origin, std::string prefix)
      : t_(t), origin_(origin), prefix_(std::move(prefix)) {}

  Result<std::string> String(const char* key, bool required = true, std::string dflt = "") const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return Missing(key, required, std::move(dflt));
    if (auto v = n->value<std::string>()) return *v;
    return Bad(*n, key, "must be a string");
  }
  Result<double> Positive(const char* key) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return Status::Invalid(std::string(origin_) + ": missing field '" + Name(key) + "'");
    auto v = n->value<double>();
    if (!v || !(*v > 0)) return Bad(*n, key, "must be a positive number");
    return *v;
  }
  Result<int> Count(const char* key) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return Status::Invalid(std::string(origin_) + ": missing field '" + Name(key) + "'");
    auto v = n->value<int64_t>();
    if (!v || *v < 1 || *v > 4096) return Bad(*n, key, "must be an integer between 1 and 4096");
    return int(*v);
  }
  Result<bool> Bool(const char* key, bool dflt) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return dflt;
    if (auto v = n->value<bool>()) return *v;
    return Bad(*n, key, "must be true or false");
  }

 private:
  std::string Name(const char* key) const { return prefix_ + key; }
  Result<std::string> Missing(const char* key, bool required, std::string dflt) const {
    if (!required) return dflt;
    return Status::Invalid(std::string(origin_) + ": missing field '" + Name(key) + "'");
  }
  Status Bad(const toml::node& n, const char* key, const char* rule) const {
    return Status::Invalid(Where(origin_, n.source()) + ": " + Name(key) + " " + rule);
  }
  const toml::table& t_;
  std::string_view origin_;
  std::string prefix_;
};

Result<Link> ReadLink(const toml::table& root, const char* table, std::string_view origin) {
  const toml::table* t = root[table].as_table();
  if (t == nullptr) {
    return Status::Invalid(std::string(origin) + ": missing table [" + table + "]");
  }
  FieldReader f(*t, origin, std::string(table) + ".");
  Link link;
  auto kind = f.String("kind");
  if (!kind.ok()) return kind.status();
  auto lk = ParseLinkKind(*kind);
  if (!lk.ok()) {
    return Status::Invalid(Where(origin, t->get("kind")->source()) + ": " + table + ".kind: " +
                           lk.status().message());
  }
  link.kind = *lk;
  auto bw = f.Positive("bandwidth_gbs");
  if (!bw.ok()) return bw.status();
  link.bandwidth_gbs = *bw;
  auto lat = f.Positive("latency_us");
  if (!lat.ok()) return lat.status();
  link.latency_us = *lat;
  auto p2p = f.Bool("peer_to_peer", true);
  if (!p2p.ok()) return p2p.status();
  link.peer_to_peer = *p2p;
  auto src = f.String("source");
  if (!src.ok()) return src.status();
  link.source = *src;
  return link;
}

}  // namespace

Result<Topology> ParseTopologyToml(std::string_view text, std::string_view origin) {
  // Debian's toml++ is built with exceptions; none leaves this function.
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    return Status::Invalid(Where(origin, e.source()) + ": " + std::string(e.description()));
  }
  FieldReader f(root, origin, "");
  Topology t;
  auto name = f.String("name");
  if (!name.ok()) return name.status();
  t.name = *name;
  auto gpu = f.String("gpu");
  if (!gpu.ok()) return gpu.status();
  t.gpu = *gpu;
  auto per_node = f.Count("gpus_per_node");
  if (!per_node.ok()) return per_node.status();
  t.gpus_per_node = *per_node;
  auto nodes = f.Count("nodes");
  if (!nodes.ok()) return nodes.status();
  t.nodes = *nodes;
  auto intra = ReadLink(root, "intra", origin);
  if (!intra.ok()) return intra.status();
  t.intra = *intra;
  if (t.nodes > 1) {
    auto inter = ReadLink(root, "inter", origin);
    if (!inter.ok()) return inter.status();
    t.inter = *inter;
  }
  return t;
}

std::vector<std::string> BuiltinTopologyNames() {
  std::vector<std::string> names;
  for (const EmbeddedFile& f : kBuiltinTopologies) names.emplace_back(f.name);
  return names;
}

Result<Topology> LoadTopology(std::string_view name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string_view::npos ||
                       name_or_path.ends_with(".toml");
  if (!is_path) {
    for (const EmbeddedFile& f : kBuiltinTopologies) {
      if (f.name == name_or_path) return ParseTopologyToml(f.text, std::string(f.name) + ".toml");
    }
    std::string known;
    for (const std::string& n : BuiltinTopologyNames()) known += (known.empty() ? "" : ", ") + n;
    return Status::NotFound("unknown topology '" + std::string(name_or_path) + "' (known: " + known +
                            "; or give a path to a .toml file)");
  }
  std::ifstream in{std::string(name_or_path)};
  if (!in) return Status::NotFound("cannot read topology file '" + std::string(name_or_path) + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ParseTopologyToml(ss.str(), name_or_path);
}

}  // namespace braid
