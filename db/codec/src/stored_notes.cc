// A run's notes JSON and its layer note (braid/stored_text.h).
#include <exception>

#include "braid/notes_keys.h"
#include "braid/stored_text.h"

namespace braid {

namespace {

using Json = nlohmann::json;

// Checks the notes fields the readers use, so printing cannot meet a type it
// does not expect. Returns the problem, or "" when the notes are whole.
std::string NotesProblem(const Json& n) {
  auto bad = [](const char* key, const char* want) {
    return std::string("notes field '") + key + "' that is not " + want;
  };
  if (!n.is_object()) return "notes JSON that is not an object";
  if (n.contains(note::kComputeDtype) && !n[note::kComputeDtype].is_string())
    return bad(note::kComputeDtype, "a string");
  for (const char* key : {note::kNotes, note::kFiles}) {
    if (!n.contains(key)) continue;
    if (!n[key].is_array()) return bad(key, "an array of strings");
    for (const Json& s : n[key]) {
      if (!s.is_string()) return bad(key, "an array of strings");
    }
  }
  if (n.contains(note::kVerify) && !n[note::kVerify].is_null()) {
    const Json& v = n[note::kVerify];
    if (!v.is_object() || !v.value("ok", Json()).is_boolean() || !v.value("max_rel_error", Json()).is_number() ||
        !v.value("worst_rank", Json()).is_number_integer()) {
      return bad(note::kVerify, "{ok, max_rel_error, worst_rank} or null");
    }
  }
  if (n.contains(note::kLinkEmulation)) {
    const Json& l = n[note::kLinkEmulation];
    if (!l.is_object() || !l.value("gbps", Json()).is_number() || !l.value("latency_us", Json()).is_number()) {
      return bad(note::kLinkEmulation, "{gbps, latency_us}");
    }
  }
  if (n.contains(note::kErrorBand) && !(n[note::kErrorBand].is_number() && n[note::kErrorBand].get<double>() >= 0 &&
                                        n[note::kErrorBand].get<double>() <= 1)) {
    return bad(note::kErrorBand, "a number from 0 to 1");
  }
  if (n.contains(note::kErrorBandAssumed) && !n[note::kErrorBandAssumed].is_boolean()) {
    return bad(note::kErrorBandAssumed, "a boolean");
  }
  if (n.contains(note::kLowerBound)) {
    const Json& l = n[note::kLowerBound];
    if (!l.is_object() || !l.value("compute_alone_ns", Json()).is_number() ||
        !l.value("comm_alone_ns", Json()).is_number()) {
      return bad(note::kLowerBound, "{compute_alone_ns, comm_alone_ns, lower_bound_ns}");
    }
  }
  if (n.contains(note::kLayer)) {
    const Json& l = n[note::kLayer];
    if (!l.is_object() || !l.value("describe", Json()).is_string() || !l.value("ops", Json()).is_array()) {
      return bad(note::kLayer, "{describe, ops[], ...}");
    }
  }
  if (n.contains(note::kHta)) {
    if (!n[note::kHta].is_array()) return bad(note::kHta, "an array");
    for (const Json& h : n[note::kHta]) {
      if (!h.is_object() || !h.value("rank", Json()).is_number_integer()) {
        return bad(note::kHta, "an array of {rank, ...}");
      }
      for (const char* key : {"overlap_pct", "idle_pct", "compute_pct"}) {
        if (h.contains(key) && !h[key].is_number()) return bad(note::kHta, "an array of numeric figures");
      }
    }
  }
  return "";
}

}  // namespace

Result<Json> DecodeNotesText(std::string_view text, std::string_view where) {
  Json notes = Json::parse(text, nullptr, false);
  if (notes.is_discarded()) return DamagedStore(where, "notes JSON that does not parse");
  try {
    if (std::string problem = NotesProblem(notes); !problem.empty()) return DamagedStore(where, problem);
  } catch (const std::exception& e) {  // nlohmann's accessors; not expected after the type checks
    return DamagedStore(where, std::string("notes JSON that does not parse: ") + e.what());
  }
  return notes;
}

Json LayerJson(const LayerWorkload& lw, const Plan* plan, const std::vector<OpFigures>* figures) {
  Json ops = Json::array();
  // An iso plan has an op per part; only a plan with the layer's ops names their methods.
  const bool methods = plan != nullptr && plan->ops.size() == lw.ops.size();
  const bool timed = methods && figures != nullptr && figures->size() == lw.ops.size();
  for (size_t i = 0; i < lw.ops.size(); ++i) {
    const LayerOp& op = lw.ops[i];
    Json o = {{"name", op.name}, {"pass", PassName(op.pass)}};
    // Attention and a Ulysses MLP GEMM move nothing: no method of their own
    // (the plan files them under the run's).
    const bool communicates = op.kind != LayerOpKind::kAttention && op.kind != LayerOpKind::kRowLocalGemm;
    if (methods && communicates) o["method"] = AlgorithmName(plan->ops[i].method);
    // What the GEMM ran with (its own config, the run's, or what a train
    // plan derived), or without a plan its own config only.
    if (methods && communicates) {
      o["config"] = ConfigJson(plan->ops[i].config);
    } else if (op.config) {
      o["config"] = ConfigJson(*op.config);
    }
    if (timed) {
      const OpFigures& f = (*figures)[i];
      o["time_ns"] = f.time_ns;
      o["compute_ns"] = f.compute_ns;
      o["comm_ns"] = f.comm_ns;
      o["exposed_comm_ns"] = f.exposed_comm_ns;
      o["overlap_ratio"] = f.overlap_ratio;
    }
    if (op.kind == LayerOpKind::kAttention) {
      o["kind"] = "attention";
      o["flops_per_rank"] = op.flops;
    } else {
      const bool local = op.kind == LayerOpKind::kLocalGemm || op.kind == LayerOpKind::kRowLocalGemm;
      o["kind"] = local ? "gemm" : std::string(OpName(op.gemm.op));
      o["m"] = op.gemm.m;
      o["n"] = op.gemm.n;
      o["k"] = op.gemm.k;
    }
    ops.push_back(std::move(o));
  }
  Json note = {{"model", lw.model.name},
               {"seq", lw.seq},
               {"batch", lw.batch},
               {"phase", PhaseName(lw.phase)},
               {"sequence_parallel", lw.sequence_parallel},
               {"describe", lw.Describe()},
               {"ops", ops}};
  if (lw.ulysses) note["ulysses"] = true;  // absent on tensor-parallel blocks: older notes read the same
  return note;
}

const Json* LayerNote(const Json& notes) {
  if (!notes.is_object()) return nullptr;
  const auto it = notes.find(note::kLayer);
  return it != notes.end() && it->is_object() ? &*it : nullptr;
}

std::vector<LayerOpNote> LayerOpsOf(const Json& notes) {
  std::vector<LayerOpNote> out;
  const Json* layer = LayerNote(notes);
  if (layer == nullptr) return out;
  const auto ops = layer->find("ops");
  if (ops == layer->end() || !ops->is_array()) return out;
  auto text = [](const Json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto number = [](const Json& o, const char* key) -> std::optional<double> {
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
  };
  for (const Json& o : *ops) {
    if (!o.is_object()) continue;
    LayerOpNote note{text(o, "name"), text(o, "pass"), text(o, "method"), text(o, "config"), std::nullopt};
    // Stores before per-op configs kept the GEMM's own as its Describe() text.
    if (const auto c = o.find("config"); c != o.end() && c->is_object()) {
      if (Result<OverlapConfig> config = ConfigFromJson(*c); config.ok()) note.config = config->Describe();
    }
    if (const std::optional<double> t = number(o, "time_ns")) {
      note.figures = OpFigures{*t, number(o, "compute_ns").value_or(0), number(o, "comm_ns").value_or(0),
                               number(o, "exposed_comm_ns").value_or(0), number(o, "overlap_ratio").value_or(0)};
    }
    out.push_back(std::move(note));
  }
  return out;
}

const LayerOpNote* OpOfStep(std::string_view step, const std::vector<LayerOpNote>& ops) {
  const LayerOpNote* best = nullptr;
  for (const LayerOpNote& op : ops) {
    if (!InOpScope(step, op.name)) continue;
    if (best == nullptr || op.name.size() > best->name.size()) best = &op;
  }
  return best;
}

Json HtaNote(const Json& notes, int rank) {
  if (!notes.is_object()) return nullptr;
  const auto it = notes.find(note::kHta);
  if (it == notes.end() || !it->is_array()) return nullptr;
  for (const Json& h : *it) {
    if (h.is_object() && h.value("rank", -1) == rank) {
      Json out = h;
      out.erase("rank");
      return out;
    }
  }
  return nullptr;
}

std::string DescribeStoredWorkload(bool has_workload, const Workload& w, const Json& notes) {
  if (const Json* layer = LayerNote(notes)) {
    const auto ops = layer->find("ops");
    const size_t n = ops != layer->end() && ops->is_array() ? ops->size() : 0;
    const auto d = layer->find("describe");
    return (d != layer->end() && d->is_string() ? d->get<std::string>() : std::string("layer")) + " (" +
           std::to_string(n) + " ops)";
  }
  if (has_workload) return w.Describe();
  return "imported trace, " + std::to_string(w.tp) + " rank(s)";
}

}  // namespace braid
