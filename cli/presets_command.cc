#include "presets_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "braid/backend_kind.h"
#include "braid/layer_workload.h"
#include "braid/model_files.h"
#include "braid/presets.h"
#include "braid/run_record.h"
#include "braid/safe_write.h"
#include "braid/sim_backend.h"
#include "braid/sim_block.h"
#include "braid/size_parse.h"
#include "braid/status_context.h"
#include "braid/te_export.h"
#include "braid/te_export_setup.h"
#include "braid/te_ub_cfgs.h"
#include "braid/topology_files.h"
#include "cli_exit.h"
#include "run_report.h"
#include "workload_flags.h"

namespace braid::cli {

void AddPresetsOptions(CLI::App* sub, PresetsArgs* a) {
  sub->require_subcommand(1);
  a->show = sub->add_subcommand("show", "list the entries of a preset file");
  a->lookup = sub->add_subcommand("lookup", "the entry a runtime would pick for one workload");
  a->export_te = sub->add_subcommand("export-te", "write a model block's configs as TransformerEngine ub_cfgs YAML");
  for (CLI::App* s : {a->show, a->lookup, a->export_te}) {
    s->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    s->add_option("file", a->file, "preset file")->required();
  }
  for (CLI::App* s : {a->show, a->lookup}) s->add_flag("--json", a->json, "print JSON");
  a->lookup->add_option("--op", a->op, "ag_gemm | gemm_rs | gemm_ar")->required();
  a->lookup->add_option("--m", a->m, "rows of A and C (K/M/G suffixes)")->required();
  a->lookup->add_option("--n", a->n, "columns of B and C")->required();
  a->lookup->add_option("--k", a->k, "inner dimension")->required();
  a->lookup->add_option("--tp", a->tp, "tensor-parallel degree P")->required();
  a->lookup->add_option("--dtype", a->dtype, "bf16 | fp16 | fp32 | fp8_e4m3 | fp8_e5m2")->capture_default_str();
  a->lookup->add_option("--gpu", a->gpu, "GPU name")->capture_default_str();
  a->lookup->add_option("--topology", a->topology, "topology name")->capture_default_str();
  a->lookup->add_option("--pass", a->pass, "fprop | dgrad | wgrad: which GEMM of the linear layer")
      ->capture_default_str();
  a->lookup->add_option("--backend", a->backend,
                        "sim | cpu | cuda: only entries that backend measured (default: the GPU backends, cuda "
                        "preferred; cpu entries answer only when asked for)");

  CLI::App* te = a->export_te;
  te->add_option("--model", a->model, "model name or .toml file")->required();
  te->add_option("--seq", a->seq, "sequence length")->required();
  te->add_option("--batch", a->batch, "batch size")->required();
  te->add_option("--topology", a->te_topology, "topology name or .toml file")->required();
  te->add_option("--tp", a->te_tp, "tensor-parallel degree P (default: the file's only TP for this gpu/topology)");
  te->add_option("--gpu", a->te_gpu, "GPU name (default: the topology's GPU)");
  te->add_option("--dtype", a->dtype, "bf16 | fp16 | fp32 | fp8_e4m3 | fp8_e5m2")->capture_default_str();
  te->add_option("--phase", a->te_phase,
                 "prefill | train: the forward's 4 fprop keys, or train's 12 (fprop, dgrad, wgrad of each layer)")
      ->capture_default_str();
  te->add_option("-o,--output", a->output, "write the YAML to this file (atomically; - for stdout) instead of stdout");
  te->add_flag("--nearest", a->nearest,
               "where a preset's config is not expressible in TE, write TE's nearest setting (default: refuse), "
               "and print the sim's time of both blocks");
}

namespace {

nlohmann::json KeyJson(const PresetKey& k) {
  const Workload& w = k.workload;
  nlohmann::json j = {{"gpu", k.gpu}, {"topology", k.topology},      {"op", OpName(w.op)}, {"m", w.m}, {"n", w.n},
                      {"k", w.k},     {"dtype", DTypeName(w.dtype)}, {"tp", w.tp}};
  if (!k.layer.empty()) j["layer"] = k.layer;
  j["pass"] = PassName(k.pass);
  return j;
}

nlohmann::json PresetJson(const Preset& p) {
  nlohmann::json j = {{"key", KeyJson(p.key)},
                      {"config", ConfigJson(p.config)},
                      {"time_ns", p.time_ns},
                      {"speedup_vs_serial", p.speedup_vs_serial},
                      {"speedup_vs_te_default", p.speedup_vs_te_default},
                      {"overlap_ratio", p.overlap_ratio},
                      {"tail_ns", p.tail_ns},
                      {"backend", p.backend},
                      {"braid_version", p.braid_version},
                      {"date", p.date}};
  if (p.error_band > 0) j["error_band"] = p.error_band;
  return j;
}

// "sim ±12 %" where the file gives the sim figure's band.
std::string BackendCell(const Preset& p) {
  if (p.error_band <= 0) return p.backend;
  char band[32];
  std::snprintf(band, sizeof band, " ±%.0f %%", p.error_band * 100);
  return p.backend + band;
}

nlohmann::json DpPresetJson(const DpPreset& p) {
  const DpPresetKey& k = p.key;
  nlohmann::json j = {{"gpu", k.gpu},
                      {"topology", k.topology},
                      {"model", k.model},
                      {"tokens", k.tokens},
                      {"tp", k.tp},
                      {"dp", k.dp},
                      {"zero", std::string(ZeroStageName(k.zero))},
                      {"dtype", std::string(DTypeName(k.dtype))},
                      {"schedule", std::string(DpScheduleName(p.schedule))},
                      {"bucket_params", p.bucket_params},
                      {"prefetch", p.prefetch},
                      {"comm_sms", p.comm_sms},
                      {"step_ns", p.step_ns},
                      {"speedup_vs_megatron", p.speedup_vs_megatron},
                      {"backend", p.backend},
                      {"braid_version", p.braid_version},
                      {"date", p.date}};
  if (p.schedule == DpSchedule::kDecomposed) {
    j["decomposed_layers"] = p.decomposed_layers;
    j["decomposition"] = std::string(AlgorithmName(p.decomposition));
    j["decomposition_chunks"] = p.decomposition_chunks;
  }
  return j;
}

std::string DpPresetLine(const DpPreset& p) {
  const DpPresetKey& k = p.key;
  char line[512];
  std::snprintf(line, sizeof line,
                "dp  %s %s %s tokens=%lld tp=%d dp=%d zero=%s: %s bucket=%lld prefetch=%d comm_sms=%d, step %s "
                "(%.3fx Megatron's DP defaults) %s\n",
                k.gpu.c_str(), k.topology.c_str(), k.model.c_str(), static_cast<long long>(k.tokens), k.tp, k.dp,
                std::string(ZeroStageName(k.zero)).c_str(), std::string(DpScheduleName(p.schedule)).c_str(),
                static_cast<long long>(p.bucket_params), p.prefetch, p.comm_sms, FormatDuration(p.step_ns).c_str(),
                p.speedup_vs_megatron, p.backend.c_str());
  return line;
}

int Show(const PresetsArgs& a, const PresetTable& table) {
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Preset& p : table.presets()) list.push_back(PresetJson(p));
    nlohmann::json dp = nlohmann::json::array();
    for (const DpPreset& p : table.dp_presets()) dp.push_back(DpPresetJson(p));
    PresetFile file;
    file.presets = table.presets();
    file.dp_presets = table.dp_presets();
    std::cout << nlohmann::json{{"version", PresetFormatVersionFor(file)}, {"presets", list}, {"dp_presets", dp}}.dump(
                     2)
              << "\n";
    return kExitOk;
  }
  // Names grow (cluster topologies, "-loopback" keys): the first two columns fit the longest.
  size_t gpu_w = 11, topo_w = 16, config_w = 46;
  for (const Preset& p : table.presets()) {
    gpu_w = std::max(gpu_w, DisplayColumns(p.key.gpu) + 1);
    topo_w = std::max(topo_w, DisplayColumns(p.key.topology) + 1);
    config_w = std::max(config_w, DisplayColumns(p.config.Describe()) + 1);
  }
  std::cout << Pad("gpu", gpu_w) << Pad("topology", topo_w) << Pad("workload", 42) << Pad("config", config_w)
            << "time        vs serial  backend\n";
  for (const Preset& p : table.presets()) {
    char speed[32];
    std::snprintf(speed, sizeof speed, "%.2fx", p.speedup_vs_serial);
    std::cout << Pad(p.key.gpu, gpu_w) << Pad(p.key.topology, topo_w) << Pad(p.key.workload.Describe(), 42)
              << Pad(p.config.Describe(), config_w) << Pad(FormatDuration(p.time_ns), 12) << Pad(speed, 11)
              << BackendCell(p) << (p.key.layer.empty() ? "" : "  " + p.key.layer)
              << (p.key.pass == Pass::kFprop ? "" : "  " + std::string(PassName(p.key.pass))) << "\n";
  }
  for (const DpPreset& p : table.dp_presets()) std::cout << DpPresetLine(p);
  if (table.size() == 0 && table.dp_presets().empty()) std::cout << "(no presets)\n";
  return kExitOk;
}

int Lookup(const PresetsArgs& a, const PresetTable& table) {
  auto parsed = WorkloadFromFlags(a.op, a.m, a.n, a.k, a.tp, a.dtype);
  if (!parsed.ok()) return ReportError("presets lookup", parsed.status());
  const Workload& w = *parsed;
  if (!a.backend.empty() && !BackendKindNamed(a.backend)) {
    return ReportError("presets lookup",
                       Status::Invalid("unknown --backend '" + OneLine(a.backend) + "' (known: sim, cpu, cuda)"));
  }
  auto pass = ParsePass(a.pass);
  if (!pass.ok()) return ReportError("presets lookup", Status::Invalid("--pass: " + pass.status().message()));
  const LookupResult r = table.Lookup(w, a.gpu, a.topology, a.backend, *pass);
  nlohmann::json j = {{"match", PresetMatchName(r.match)}};
  if (r.preset != nullptr) {
    j["key"] = KeyJson(r.preset->key);
    j["config"] = ConfigJson(r.preset->config);
    j["time_ns"] = r.preset->time_ns;
    j["distance"] = r.distance;
    j["backend"] = r.preset->backend;
  }
  if (a.json) {
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (r.preset != nullptr) {
    std::cout << PresetMatchName(r.match) << ": " << r.preset->key.workload.Describe() << " -> "
              << r.preset->config.Describe() << " (" << FormatDuration(r.preset->time_ns) << ", " << r.preset->backend
              << ")\n";
  }
  if (r.preset == nullptr) {
    const std::string backends = a.backend.empty() ? "the GPU backends (cuda, sim)" : "backend " + a.backend;
    return ReportError(
        "presets lookup",
        Status::Internal("no preset for " + w.Describe() + (*pass == Pass::kFprop ? "" : " " + a.pass) + " on " +
                         a.gpu + " / " + a.topology + " measured by " + backends + " in " + a.file));
  }
  return kExitOk;
}

// --tp when given (the table's only degree otherwise: PrepareTeExport).
Result<std::optional<int>> GivenTp(const PresetsArgs& a) {
  if (a.export_te->get_option("--tp")->count() == 0) return std::optional<int>();
  if (a.te_tp < 1) return Status::Invalid("--tp must be at least 1 (got " + std::to_string(a.te_tp) + ")");
  return std::optional<int>(a.te_tp);
}

// prefill or train: the phases whose blocks are sequence parallel, which
// TE's userbuffer overlap needs (decode's block is not: one token a sequence).
Result<Phase> ExportPhase(const std::string& name) {
  auto phase = ParsePhase(name);
  if (phase.ok() && *phase != Phase::kDecode) return phase;
  return Status::Invalid("--phase '" + OneLine(name) +
                         "': export-te writes prefill or train (the sequence-parallel phases TE's userbuffer "
                         "overlap serves)");
}

// The library's field names as export-te's flags.
Status FlagWorded(const Status& s) {
  std::string m = s.message();
  for (auto [field, flag] : {std::pair{"`runtime` te", "--runtime te"}, {"(`nearest`)", "(--nearest)"}}) {
    const size_t at = m.find(field);
    if (at != std::string::npos) m.replace(at, std::string_view(field).size(), flag);
  }
  return StatusOf(s.code(), m);
}

// What the nearest settings cost: the sim's time of the block as the
// presets tuned it and as TE runs the file (read back as `run --ub-cfgs`
// reads it).
Result<std::string> TimeNearest(const TeUbCfgs& cfgs, const LayerWorkload& lw, const std::string& topology) {
  LayerWorkload tuned = lw;
  for (LayerOp& op : tuned.ops) {
    for (const TeUbCfg& c : cfgs.layers) {
      if (c.key == TeLayerKey(op.name)) op.config = c.preset_config;
    }
  }
  BRAID_ASSIGN_OR_RETURN(auto file, ParseTeUbCfgsYaml(TeUbCfgsYaml(cfgs), "the exported ub_cfgs"));
  BRAID_ASSIGN_OR_RETURN(auto hw, LoadSimHardware(topology));
  BRAID_ASSIGN_OR_RETURN(auto resolved, ResolveTeUbCfgs(&file, lw, hw.gpu.sm_count));
  // Presets looked up one GEMM at a time may not form a block Braid plans
  // (a nearest match's wgrad beside another shape's dgrad): said, not timed.
  const Result<double> tuned_ns = SimulateBlockNs(tuned, topology);
  BRAID_ASSIGN_OR_RETURN(auto te_ns, SimulateBlockNs(WithTeConfigs(lw, resolved), topology));
  BRAID_ASSIGN_OR_RETURN(auto defaults, ResolveTeUbCfgs(nullptr, lw, hw.gpu.sm_count));
  BRAID_ASSIGN_OR_RETURN(auto default_ns, SimulateBlockNs(WithTeConfigs(lw, defaults), topology));
  std::string keys;
  for (const TeUbCfg& c : cfgs.layers) {
    if (c.nearest) keys += (keys.empty() ? "" : ", ") + c.key;
  }
  char file_text[96], presets_text[96], defaults_text[120];
  std::snprintf(file_text, sizeof file_text, ": this file runs the block in %.1f us on the sim", te_ns / 1e3);
  if (tuned_ns.ok()) {
    std::snprintf(presets_text, sizeof presets_text, ", the presets' configs in %.1f us (%+.1f %%)", *tuned_ns / 1e3,
                  *tuned_ns > 0 ? (te_ns / *tuned_ns - 1) * 100 : 0.0);
  }
  std::snprintf(defaults_text, sizeof defaults_text, ", TE's defaults in %.1f us%s", default_ns / 1e3,
                te_ns > default_ns ? " (slower than TE's defaults: tune with --runtime te)" : "");
  const std::string presets_part =
      tuned_ns.ok() ? std::string(presets_text)
                    : ", the presets' configs form no block Braid plans (" + tuned_ns.status().message() + ")";
  return "nearest settings for " + keys + file_text + presets_part + defaults_text;
}

int ExportTe(const PresetsArgs& a, const PresetTable& table) {
  const char* cmd = "presets export-te";
  auto model = LoadModel(a.model);
  if (!model.ok()) return ReportError(cmd, model.status());
  auto topo = LoadTopology(a.te_topology);
  if (!topo.ok()) return ReportError(cmd, topo.status());
  auto seq = ParseSize(a.seq, "--seq");
  if (!seq.ok()) return ReportError(cmd, seq.status());
  auto batch = ParseSize(a.batch, "--batch");
  if (!batch.ok()) return ReportError(cmd, batch.status());
  auto dtype = ParseDType(a.dtype);
  if (!dtype.ok()) return ReportError(cmd, dtype.status());
  auto phase = ExportPhase(a.te_phase);
  if (!phase.ok()) return ReportError(cmd, phase.status());
  auto tp = GivenTp(a);
  if (!tp.ok()) return ReportError(cmd, tp.status());
  TeExportRequest request{*model, *topo, *seq, *batch, *phase, *dtype, *tp, std::nullopt, a.file, a.nearest};
  if (!a.te_gpu.empty()) request.gpu = a.te_gpu;
  auto prepared = PrepareTeExport(request, table);
  if (!prepared.ok()) return ReportError(cmd, prepared.status());
  const LayerWorkload* lw = &prepared->block;
  auto cfgs = BuildTeUbCfgs(table, *lw, prepared->gpu, prepared->topology, prepared->info);
  if (!cfgs.ok()) return ReportError(cmd, FlagWorded(cfgs.status()));
  if (std::any_of(cfgs->layers.begin(), cfgs->layers.end(), [](const TeUbCfg& c) { return c.nearest; })) {
    auto timed = TimeNearest(*cfgs, *lw, a.te_topology);
    if (!timed.ok()) return ReportError(cmd, timed.status());
    std::fprintf(stderr, "braid presets export-te: %s\n", timed->c_str());
    cfgs->header.push_back(*timed);
  }
  const std::string yaml = TeUbCfgsYaml(*cfgs);
  if (a.output.empty()) {
    std::cout << yaml;
    return kExitOk;
  }
  if (Status s = WriteFileAtomically(a.output, yaml, /*allow_stdout=*/true); !s.ok()) return ReportError(cmd, s);
  return kExitOk;
}

}  // namespace

int ExecutePresets(const PresetsArgs& a) {
  const char* cmd = a.show->parsed() ? "presets show" : a.lookup->parsed() ? "presets lookup" : "presets export-te";
  // The output must be writable before anything is computed.
  if (a.export_te->parsed() && !a.output.empty() && a.output != "-") {
    if (auto target = ResolveWriteTarget(a.output); !target.ok()) return ReportError(cmd, target.status());
  }
  auto table = PresetTable::Load(a.file);
  if (!table.ok()) return ReportError(cmd, table.status());
  if (a.export_te->parsed()) return ExportTe(a, *table);
  return a.show->parsed() ? Show(a, *table) : Lookup(a, *table);
}

}  // namespace braid::cli
