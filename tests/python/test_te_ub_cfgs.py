"""braid.te_ub_cfgs equals `braid presets export-te`'s YAML parsed, for every
shipped preset file, model and TP degree, and for a training step's twelve
keys, and lists in `notes` every knob the YAML names in a comment as not
expressible and every key it leaves out."""

import os
import tempfile
import tomllib
import unittest

import yaml

import braid
from braid_test_env import SHIPPED_TE_PRESETS as SHIPPED_PRESETS, braid as run_braid

MODELS = ["llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b", "qwen2-72b"]


def shipped_tps(path):
    with open(path, "rb") as f:
        es = tomllib.load(f)["preset"]
    return es[0]["topology"], sorted({e["tp"] for e in es})


def export_te(path, model, seq, batch, topology, tp, phase="prefill", dtype="bf16", nearest=False):
    _, out, _ = run_braid("presets", "export-te", path, "--model", model, "--seq", str(seq), "--batch", str(batch),
                          "--topology", topology, "--tp", str(tp), "--phase", phase, "--dtype", dtype,
                          *(["--nearest"] if nearest else []))
    return out


OMITTED = ": (omitted)"


def comment_lines_by_key(text):
    """{ub_cfgs key: the '#' lines just above it} of export-te's YAML; a key
    left out has its lines end in '# <key>: (omitted)'."""
    out, pending = {}, []
    for line in text.splitlines():
        if line.startswith("# ") and line.endswith(OMITTED):
            out[line[2:-len(OMITTED)]] = pending
            pending = []
        elif line.startswith("# "):
            pending.append(line[2:])
        elif line.endswith(":") and not line.startswith(" "):
            out[line[:-1]] = pending
            pending = []
        elif not line:
            pending = []
    return out


def check_notes(test, text, notes):
    """Every note stands in the YAML as a comment of its key, and every
    comment that says what the dict cannot is a note."""
    for key, comments in comment_lines_by_key(text).items():
        for c in comments:
            # Knobs TE cannot express, approximations, nearest matches and left-out keys are notes.
            if c.startswith(("not expressible", "nearest match", "serial:", "fused:", "comm_sms=0", "gemm_ar",
                             "omitted:")) and not c.startswith("nearest settings for"):
                test.assertIn(f"{key}: {c}", notes)
    for n in notes:
        key, _, c = n.partition(": ")
        test.assertIn(c, comment_lines_by_key(text)[key])


class EqualsExportTe(unittest.TestCase):
    def test_every_model_and_tp_equals_the_yaml_parsed(self):
        checked = 0
        for path in SHIPPED_PRESETS:
            topology, tps = shipped_tps(path)
            table = braid.PresetTable.load(path)
            for model in MODELS:
                for tp in tps:
                    for seq in (4096, 3072):  # 3072: shapes between the tuned ones (nearest matches)
                        with self.subTest(file=os.path.basename(path), model=model, tp=tp, seq=seq):
                            text = export_te(path, model, seq, 1, topology, tp)
                            got = braid.te_ub_cfgs(path, model=model, seq=seq, batch=1, tp=tp, topology=topology)
                            self.assertEqual(got.ub_cfgs, yaml.safe_load(text))
                            self.assertEqual(list(got.ub_cfgs), ["qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop"])
                            # A loaded table gives the same as its path.
                            self.assertEqual(braid.te_ub_cfgs(table, model=model, seq=seq, batch=1, tp=tp,
                                                              topology=topology), got)
                            check_notes(self, text, got.notes)
                            checked += 1
        self.assertGreaterEqual(checked, 40)

    def test_unexpressible_knobs_are_notes_not_lost(self):
        # The shipped files choose knobs TE lacks (fused, streams, ...): some export has notes.
        topology, tps = shipped_tps(SHIPPED_PRESETS[0])
        notes = []
        for tp in tps:
            notes += braid.te_ub_cfgs(SHIPPED_PRESETS[0], model="llama3-70b", seq=3072, batch=1, tp=tp,
                                      topology=topology).notes
        self.assertTrue(any("nearest match" in n for n in notes), notes)
        self.assertTrue(all(n.split(": ", 1)[0] in ("qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop")
                            for n in notes))

    def test_tp_left_out_needs_a_single_tp_in_the_file(self):
        topology, tps = shipped_tps(SHIPPED_PRESETS[0])
        self.assertGreater(len(tps), 1)
        with self.assertRaisesRegex(ValueError, r"several TP degrees .*: pass tp="):
            braid.te_ub_cfgs(SHIPPED_PRESETS[0], model="llama3-70b", seq=4096, batch=1, topology=topology)


# llama3-70b's training step at seq 4096, batch 1, TP 8 (layer_workload.h):
# (layer op, op, m, n, k) of every GEMM with a ub_cfgs key.
TRAIN_GEMMS = [
    ("qkv.fprop", "ag_gemm", 4096, 10240, 8192), ("out_proj.fprop", "gemm_rs", 4096, 8192, 8192),
    ("fc1.fprop", "ag_gemm", 4096, 57344, 8192), ("fc2.fprop", "gemm_rs", 4096, 8192, 28672),
    ("fc2.dgrad", "ag_gemm", 4096, 28672, 8192), ("fc2.wgrad", "ag_gemm", 8192, 28672, 4096),
    ("fc1.dgrad", "gemm_rs", 4096, 8192, 57344), ("fc1.wgrad", "ag_gemm", 8192, 57344, 4096),
    ("out_proj.dgrad", "ag_gemm", 4096, 8192, 8192), ("out_proj.wgrad", "ag_gemm", 8192, 8192, 4096),
    ("qkv.dgrad", "gemm_rs", 4096, 8192, 10240), ("qkv.wgrad", "ag_gemm", 8192, 10240, 4096),
]
TRAIN_KEYS = ["qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop", "fc2_dgrad", "fc2_wgrad", "fc1_dgrad", "fc1_wgrad",
              "proj_dgrad", "proj_wgrad", "qkv_dgrad", "qkv_wgrad"]
# TE's own choices for a training step: ring all-gathers, pipelined
# reduce-scatters, bulk column backward, external row wgrads.
TE_LIKE = {"qkv.fprop": "ring", "out_proj.fprop": "chunked", "fc1.fprop": "ring", "fc2.fprop": "chunked",
           "fc2.dgrad": "ring", "fc2.wgrad": "external", "fc1.dgrad": "bulk", "fc1.wgrad": "bulk",
           "out_proj.dgrad": "ring", "out_proj.wgrad": "external", "qkv.dgrad": "bulk", "qkv.wgrad": "bulk"}


# TE's own knobs per method (te_ub_cfgs.h), so that an export of them is exact.
TE_KNOBS = {
    ("ring", "ag_gemm"): 'comm_sms = 0\ncomm_engine = "ce"',
    ("ring", "gemm_rs"): 'comm_sms = 1\ncomm_engine = "ce"',
    "chunked": 'comm_sms = 16\ncomm_engine = "sm"\nsm_margin = true',
    "bulk": 'comm_sms = 16\ncomm_engine = "sm"\nsm_margin = true',
    "external": 'comm_sms = 0\ncomm_engine = "sm"',
    "serial": 'comm_sms = 0\ncomm_engine = "sm"',
}


def write_train_presets(directory, methods):
    """A version 4 preset file with one exact preset per train GEMM, `methods[op]` each."""
    entries = []
    for name, op, m, n, k in TRAIN_GEMMS:
        entries.append(f"""[[preset]]
gpu = "h100-sxm"
topology = "h100-sxm"
layer = "llama3-70b/{name}"
pass = "{name.split('.')[1]}"
tp = 8
op = "{op}"
dtype = "bf16"
m = {m}
n = {n}
k = {k}
algorithm = "{methods[name]}"
chunks = {4 if methods[name] == "chunked" else 1}
streams = 1
{TE_KNOBS.get((methods[name], op), TE_KNOBS.get(methods[name], 'comm_sms = 0'))}
comm_priority = "high"
time_ns = 100000.0
speedup_vs_serial = 1.25
speedup_vs_te_default = 1.05
overlap_ratio = 0.8
tail_ns = 0.0
backend = "sim"
simulated = true
braid_version = "0.1.0"
date = "2026-11-21T12:00:00Z"
""")
    path = os.path.join(directory, "train.toml")
    with open(path, "w") as f:
        f.write('format = "braid-presets"\nversion = 4\n\n' + "\n".join(entries))
    return path


class TrainPhase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def both(self, path, nearest=False):
        text = export_te(path, "llama3-70b", 4096, 1, "h100-sxm", 8, phase="train", nearest=nearest)
        got = braid.te_ub_cfgs(path, model="llama3-70b", seq=4096, batch=1, tp=8, topology="h100-sxm", phase="train",
                               nearest=nearest)
        self.assertEqual(got.ub_cfgs, yaml.safe_load(text))
        check_notes(self, text, got.notes)
        return got

    def test_twelve_keys_equal_the_yaml_parsed(self):
        got = self.both(write_train_presets(self.dir.name, TE_LIKE))
        self.assertEqual(list(got.ub_cfgs), TRAIN_KEYS)
        self.assertEqual(got.ub_cfgs["qkv_wgrad"]["method"], "bulk")
        self.assertEqual(got.ub_cfgs["fc2_wgrad"]["method"], "external")
        self.assertEqual(got.ub_cfgs["fc2_dgrad"]["method"], "ring_exchange")
        self.assertFalse(any("nearest match" in n or "omitted" in n for n in got.notes), got.notes)

    def test_a_key_te_refuses_is_left_out_with_a_note(self):
        methods = dict(TE_LIKE, **{"qkv.dgrad": "ring", "fc2.wgrad": "serial"})
        path = write_train_presets(self.dir.name, methods)
        # Not what TE runs: refused exactly, written as the nearest with notes.
        with self.assertRaisesRegex(braid.PresetError, "fc2_wgrad: serial .* not expressible in TE.*`nearest`"):
            braid.te_ub_cfgs(path, model="llama3-70b", seq=4096, batch=1, tp=8, topology="h100-sxm", phase="train")
        got = self.both(path, nearest=True)
        self.assertEqual(list(got.ub_cfgs), [k for k in TRAIN_KEYS if k not in ("qkv_wgrad", "fc2_wgrad")])
        self.assertIn("qkv_wgrad: omitted: qkv_dgrad is ring_exchange, not bulk: TE refuses a qkv_wgrad entry then "
                      "and runs this wgrad GEMM without overlap (not the preset's bulk chunks=1 streams=1 comm_sms=16 "
                      "sm_margin)", got.notes)
        self.assertTrue(any(n.startswith("fc2_wgrad: omitted: braid config serial") for n in got.notes), got.notes)

    def test_prefill_is_the_default(self):
        path = write_train_presets(self.dir.name, TE_LIKE)
        args = dict(model="llama3-70b", seq=4096, batch=1, tp=8, topology="h100-sxm")
        self.assertEqual(braid.te_ub_cfgs(path, **args), braid.te_ub_cfgs(path, phase="prefill", **args))
        self.assertEqual(list(braid.te_ub_cfgs(path, **args).ub_cfgs), TRAIN_KEYS[:4])

    def test_shipped_training_presets_export(self):
        args = dict(seq=4096, batch=1, tp=8, topology="h100-sxm", phase="train")
        got = braid.te_ub_cfgs(SHIPPED_PRESETS[0], model="llama3-70b", **args)
        keys = list(got.ub_cfgs)
        for key in ("qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop", "qkv_dgrad", "proj_dgrad", "fc1_dgrad",
                    "fc2_dgrad"):
            self.assertIn(key, keys)
        self.assertTrue(set(keys) <= set(TRAIN_KEYS), keys)


class Fp8(unittest.TestCase):
    def test_shipped_fp8_training_presets_set_fp8_buf_where_fp8_moves(self):
        for path in SHIPPED_PRESETS:
            topology = os.path.basename(path)[: -len(".toml")]
            if topology == "a100-sxm":
                continue
            with self.subTest(topology=topology):
                args = dict(seq=4096, batch=1, tp=8, topology=topology, phase="train")
                got = braid.te_ub_cfgs(path, model="llama3-70b", dtype="fp8_e4m3", **args)
                text = export_te(path, "llama3-70b", 4096, 1, topology, 8, phase="train", dtype="fp8_e4m3")
                self.assertEqual(got.ub_cfgs, yaml.safe_load(text))
                # All-gathers move FP8 (TE's default); reduce-scatters bf16.
                self.assertEqual(got.ub_cfgs["qkv_fprop"]["fp8_buf"], 1)
                self.assertEqual(got.ub_cfgs["fc1_fprop"]["fp8_buf"], 1)
                self.assertEqual(got.ub_cfgs["proj_fprop"]["fp8_buf"], 0)
                self.assertEqual(got.ub_cfgs["fc2_fprop"]["fp8_buf"], 0)
                for key, cfg in got.ub_cfgs.items():
                    self.assertIn(cfg["fp8_buf"], (0, 1), key)
                    self.assertNotEqual(cfg.get("atomic_gemm", 0), 1, key)
                bf16 = braid.te_ub_cfgs(path, model="llama3-70b", **args)
                self.assertTrue(all("fp8_buf" not in cfg for cfg in bf16.ub_cfgs.values()), "bf16 exports unchanged")

    def test_a100_has_no_fp8_presets(self):
        a100 = [p for p in SHIPPED_PRESETS if p.endswith("a100-sxm.toml")][0]
        with self.assertRaisesRegex(braid.PresetError, "no preset for qkv .*fp8_e4m3"):
            braid.te_ub_cfgs(a100, model="llama3-70b", seq=4096, batch=1, tp=8, topology="a100-sxm",
                             dtype="fp8_e4m3")


class TeArgumentErrors(unittest.TestCase):
    path = SHIPPED_PRESETS[0]

    def call(self, **kw):
        args = dict(model="llama3-70b", seq=4096, batch=1, tp=8, topology="h100-sxm")
        args.update(kw)
        return braid.te_ub_cfgs(self.path, **args)

    def test_bad_values(self):
        with self.assertRaisesRegex(ValueError, r"seq must be at least 1 \(got -1\)"):
            self.call(seq=-1)
        with self.assertRaisesRegex(ValueError, r"batch must be at least 1 \(got 0\)"):
            self.call(batch=0)
        with self.assertRaisesRegex(ValueError, r"tp must be at least 1"):
            self.call(tp=-8)
        with self.assertRaises(ValueError):
            self.call(dtype="int3")
        with self.assertRaises(ValueError):  # 16 ranks do not fit an 8-GPU topology
            self.call(tp=16)
        with self.assertRaises(ValueError):  # tokens not divisible by tp (sequence parallelism)
            self.call(seq=4095)
        for phase in ("decode", "training"):
            with self.assertRaisesRegex(ValueError, f"phase '{phase}': te_ub_cfgs takes prefill or train"):
                self.call(phase=phase)

    def test_bad_types(self):
        with self.assertRaises(TypeError):
            self.call(seq="4096")
        with self.assertRaises(TypeError):
            self.call(seq=4096.0)
        with self.assertRaises(TypeError):
            braid.te_ub_cfgs(42, model="llama3-70b", seq=4096, batch=1, tp=8, topology="h100-sxm")
        with self.assertRaises(TypeError):
            braid.te_ub_cfgs(self.path, "llama3-70b", 4096, 1, 8, "h100-sxm")  # keywords only

    def test_bad_files_and_names(self):
        with self.assertRaisesRegex(braid.PresetError, "unknown model 'gpt-99'"):
            self.call(model="gpt-99")
        with self.assertRaisesRegex(braid.PresetError, "unknown topology"):
            self.call(topology="h900")
        with self.assertRaisesRegex(braid.PresetError, "no presets for gpu rtx4090"):
            braid.te_ub_cfgs(self.path, model="llama3-70b", seq=4096, batch=1, topology="h100-sxm", gpu="rtx4090")
        with self.assertRaisesRegex(braid.PresetError, "no preset for qkv"):
            self.call(gpu="rtx4090")
        with self.assertRaisesRegex(braid.PresetError, f"no preset for qkv .* in {self.path}$"):
            braid.te_ub_cfgs(braid.PresetTable.load(self.path), model="llama3-70b", seq=4096, batch=1, tp=8,
                             topology="h100-sxm", gpu="rtx4090")
        with self.assertRaisesRegex(braid.PresetError, "/no/such.toml"):
            braid.te_ub_cfgs("/no/such.toml", model="llama3-70b", seq=4096, batch=1, tp=8, topology="h100-sxm")


if __name__ == "__main__":
    unittest.main()
