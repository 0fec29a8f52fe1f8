#include "presets_command.h"

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "braid/presets.h"
#include "cli_exit.h"
#include "run_record.h"
#include "run_report.h"
#include "workload_flags.h"

namespace braid::cli {

void AddPresetsOptions(CLI::App* sub, PresetsArgs* a) {
  sub->require_subcommand(1);
  a->show = sub->add_subcommand("show", "list the entries of a preset file");
  a->lookup = sub->add_subcommand("lookup", "the entry a runtime would pick for one workload");
  for (CLI::App* s : {a->show, a->lookup}) {
    s->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    s->add_option("file", a->file, "preset file")->required();
    s->add_flag("--json", a->json, "print JSON");
  }
  a->lookup->add_option("--op", a->op, "ag_gemm | gemm_rs | gemm_ar")->required();
  a->lookup->add_option("--m", a->m, "rows of A and C (K/M/G suffixes)")->required();
  a->lookup->add_option("--n", a->n, "columns of B and C")->required();
  a->lookup->add_option("--k", a->k, "inner dimension")->required();
  a->lookup->add_option("--tp", a->tp, "tensor-parallel degree P")->required();
  a->lookup->add_option("--dtype", a->dtype, "bf16 | fp16 | fp32")->capture_default_str();
  a->lookup->add_option("--gpu", a->gpu, "GPU name")->capture_default_str();
  a->lookup->add_option("--topology", a->topology, "topology name")->capture_default_str();
}

namespace {

nlohmann::json KeyJson(const PresetKey& k) {
  const Workload& w = k.workload;
  nlohmann::json j = {{"gpu", k.gpu}, {"topology", k.topology}, {"op", OpName(w.op)}, {"m", w.m}, {"n", w.n},
                      {"k", w.k},     {"dtype", DTypeName(w.dtype)}, {"tp", w.tp}};
  if (!k.layer.empty()) j["layer"] = k.layer;
  return j;
}

nlohmann::json PresetJson(const Preset& p) {
  return {{"key", KeyJson(p.key)},
          {"config", ConfigJson(p.config)},
          {"time_ns", p.time_ns},
          {"speedup_vs_serial", p.speedup_vs_serial},
          {"speedup_vs_te_default", p.speedup_vs_te_default},
          {"overlap_ratio", p.overlap_ratio},
          {"tail_ns", p.tail_ns},
          {"backend", p.backend},
          {"braid_version", p.braid_version},
          {"date", p.date}};
}

int Show(const PresetsArgs& a, const PresetTable& table) {
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Preset& p : table.presets()) list.push_back(PresetJson(p));
    std::cout << nlohmann::json{{"version", kPresetFormatVersion}, {"presets", list}}.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "gpu        topology        workload                                  config                                        time        vs serial  backend\n";
  for (const Preset& p : table.presets()) {
    char speed[32];
    std::snprintf(speed, sizeof speed, "%.2fx", p.speedup_vs_serial);
    std::cout << Pad(p.key.gpu, 11) << Pad(p.key.topology, 16) << Pad(p.key.workload.Describe(), 42)
              << Pad(p.config.Describe(), 46) << Pad(FormatDuration(p.time_ns), 12) << Pad(speed, 11) << p.backend
              << (p.key.layer.empty() ? "" : "  " + p.key.layer) << "\n";
  }
  if (table.size() == 0) std::cout << "(no presets)\n";
  return kExitOk;
}

int Lookup(const PresetsArgs& a, const PresetTable& table) {
  auto parsed = WorkloadFromFlags(a.op, a.m, a.n, a.k, a.tp, a.dtype);
  if (!parsed.ok()) return ReportError("presets lookup", parsed.status());
  const Workload& w = *parsed;
  const LookupResult r = table.Lookup(w, a.gpu, a.topology);
  nlohmann::json j = {{"match", PresetMatchName(r.match)}};
  if (r.preset != nullptr) {
    j["key"] = KeyJson(r.preset->key);
    j["config"] = ConfigJson(r.preset->config);
    j["time_ns"] = r.preset->time_ns;
    j["distance"] = r.distance;
  }
  if (a.json) {
    std::cout << j.dump(2) << "\n";
  } else if (r.preset != nullptr) {
    std::cout << PresetMatchName(r.match) << ": " << r.preset->key.workload.Describe() << " -> "
              << r.preset->config.Describe() << " (" << FormatDuration(r.preset->time_ns) << ", " << r.preset->backend
              << ")\n";
  }
  if (r.preset == nullptr) {
    return ReportError("presets lookup", Status::Internal("no preset for " + w.Describe() + " on " + a.gpu + " / " +
                                                          a.topology + " in " + a.file));
  }
  return kExitOk;
}

}  // namespace

int ExecutePresets(const PresetsArgs& a) {
  auto table = PresetTable::Load(a.file);
  const char* cmd = a.show->parsed() ? "presets show" : "presets lookup";
  if (!table.ok()) return ReportError(cmd, table.status());
  return a.show->parsed() ? Show(a, *table) : Lookup(a, *table);
}

}  // namespace braid::cli
