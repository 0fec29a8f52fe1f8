"""braid.te_ub_cfgs equals `braid presets export-te`'s YAML parsed, for every
shipped preset file, model and TP degree, and lists in `notes` every knob the
YAML names in a comment as not expressible."""

import os
import tomllib
import unittest

import yaml

import braid
from braid_test_env import SHIPPED_PRESETS, braid as run_braid

MODELS = ["llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b", "qwen2-72b"]


def shipped_tps(path):
    with open(path, "rb") as f:
        es = tomllib.load(f)["preset"]
    return es[0]["topology"], sorted({e["tp"] for e in es})


def export_te(path, model, seq, batch, topology, tp):
    _, out, _ = run_braid("presets", "export-te", path, "--model", model, "--seq", str(seq), "--batch", str(batch),
                          "--topology", topology, "--tp", str(tp))
    return out


def comment_lines_by_key(text):
    """{ub_cfgs key: the '#' lines just above it} of export-te's YAML."""
    out, pending = {}, []
    for line in text.splitlines():
        if line.startswith("# "):
            pending.append(line[2:])
        elif line.endswith(":") and not line.startswith(" "):
            out[line[:-1]] = pending
            pending = []
        elif not line:
            pending = []
    return out


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
                            self.check_notes(text, got.notes)
                            checked += 1
        self.assertGreaterEqual(checked, 40)

    def check_notes(self, text, notes):
        for key, comments in comment_lines_by_key(text).items():
            for c in comments:
                # Knobs TE cannot express, approximations, and nearest matches are notes.
                if c.startswith(("not expressible", "nearest match", "serial:", "fused:", "comm_sms=0", "gemm_ar")):
                    self.assertIn(f"{key}: {c}", notes)
        for n in notes:
            key, _, c = n.partition(": ")
            self.assertIn(c, comment_lines_by_key(text)[key])

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
