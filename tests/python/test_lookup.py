"""PresetTable.lookup gives the C++ loader's answers (`braid presets lookup
--json`) for every entry of the shipped preset files, exact and nearest."""

import os
import tempfile
import threading
import tomllib
import unittest

import braid
from braid_test_env import EXAMPLE_PRESETS, SHIPPED_PRESETS, cli_lookup


def entries(path):
    with open(path, "rb") as f:
        return tomllib.load(f)["preset"]


def checked_entries(path):
    """The entries compared with the CLI (a process each, about 0.2 s): every
    bf16 forward (fprop) entry of h100 and a100, and every eighth of the rest
    (training passes, FP8, h200, b200): the same lookup path, at a bounded
    cost (355 entries of the shipped files; every other one for nearest)."""
    out = []
    for i, e in enumerate(entries(path)):
        name = os.path.basename(path)
        every = (e.get("pass", "fprop") == "fprop" and e["dtype"] == "bf16"
                 and (name.startswith("h100") or name.startswith("a100")))
        if every or i % 8 == 0:
            out.append(e)
    return out


def key_of(e):
    return {f: e.get(f, "fprop") if f == "pass" else e[f] for f in ("gpu", "topology", "op", "tp", "dtype", "pass")}


def as_cli_json(r):
    """A LookupResult in the shape of `braid presets lookup --json`."""
    return {"match": r.match, "key": r.key, "config": r.config, "time_ns": r.time_ns, "distance": r.distance}


class ShippedPresets(unittest.TestCase):
    def check_against_cli(self, path, e, m, n, k, expect_match):
        table = braid.PresetTable.load(path)
        r = table.lookup(op=e["op"], m=m, n=n, k=k, tp=e["tp"], dtype=e["dtype"], gpu=e["gpu"],
                         topology=e["topology"], pass_=e.get("pass", "fprop"))
        want = cli_lookup(path, key_of(e), m, n, k)
        self.assertIsNotNone(r)
        self.assertIsNotNone(want)
        self.assertEqual(r.match, expect_match)
        got = as_cli_json(r)
        for field in ("match", "key", "config"):
            self.assertEqual(got[field], want[field], f"{field} of {e.get('layer')} at {m}x{n}x{k}")
        self.assertAlmostEqual(got["time_ns"], want["time_ns"], delta=1e-9 * abs(want["time_ns"]))
        self.assertAlmostEqual(got["distance"], want["distance"], places=9)
        return r

    def test_every_entry_exact_equals_cli(self):
        for path in SHIPPED_PRESETS:
            es = checked_entries(path)
            self.assertGreater(len(es), 10, path)
            for e in es:
                with self.subTest(file=os.path.basename(path), layer=e.get("layer")):
                    r = self.check_against_cli(path, e, e["m"], e["n"], e["k"], "exact")
                    self.assertEqual(r.distance, 0.0)
                    self.assertEqual(r.config["algorithm"], e["algorithm"])
                    self.assertEqual(r.time_ns, e["time_ns"])

    def test_every_entry_nearest_equals_cli(self):
        for path in SHIPPED_PRESETS:
            for e in checked_entries(path)[::2]:
                # Between shipped shapes: no entry has these sizes.
                m, n, k = e["m"] * 13 // 10 + 1, e["n"] * 9 // 10 + 1, e["k"] + 1
                with self.subTest(file=os.path.basename(path), layer=e.get("layer")):
                    r = self.check_against_cli(path, e, m, n, k, "nearest")
                    self.assertGreater(r.distance, 0.0)

    def test_config_has_every_knob_including_splits(self):
        table = braid.PresetTable.load(EXAMPLE_PRESETS)
        for e in entries(EXAMPLE_PRESETS):
            r = table.lookup(op=e["op"], m=e["m"], n=e["n"], k=e["k"], tp=e["tp"], dtype=e["dtype"],
                             gpu=e["gpu"], topology=e["topology"])
            self.assertEqual(set(r.config),
                             {"algorithm", "chunks", "splits", "streams", "comm_sms", "comm_engine", "comm_priority"})
            self.assertEqual(r.config["splits"], e.get("splits", []))
            self.assertEqual(r.config["chunks"], e["chunks"])
            self.assertEqual(r.backend, e["backend"])


class GpuAndTopologyDefaults(unittest.TestCase):
    def setUp(self):
        self.table = braid.PresetTable.load(SHIPPED_PRESETS[0])
        self.e = entries(SHIPPED_PRESETS[0])[0]

    def test_left_out_means_the_tables_only_one(self):
        e = self.e
        full = self.table.lookup(op=e["op"], m=e["m"], n=e["n"], k=e["k"], tp=e["tp"], gpu=e["gpu"],
                                 topology=e["topology"])
        short = self.table.lookup(op=e["op"], m=e["m"], n=e["n"], k=e["k"], tp=e["tp"])
        self.assertEqual(short.key, full.key)
        self.assertEqual(short.config, full.config)

    def test_several_gpus_need_a_choice(self):
        with open(SHIPPED_PRESETS[0]) as f:
            text = f.read()
        with open(SHIPPED_PRESETS[1]) as f:
            other = f.read()
        text += "\n" + other[other.index("[[preset]]"):]
        table = braid.PresetTable.parse(text, "both.toml")
        with self.assertRaisesRegex(ValueError, r"several values of gpu \(h100-sxm, a100-sxm\): pass gpu="):
            table.lookup(op="gemm_rs", m=4096, n=4096, k=4096, tp=4)
        r = table.lookup(op="gemm_rs", m=4096, n=4096, k=4096, tp=4, gpu="a100-sxm")
        self.assertEqual(r.key["gpu"], "a100-sxm")

    def test_nothing_matches_gives_none(self):
        e = self.e
        self.assertIsNone(self.table.lookup(op=e["op"], m=e["m"], n=e["n"], k=e["k"], tp=e["tp"], gpu="rtx4090"))
        self.assertIsNone(self.table.lookup(op=e["op"], m=e["m"], n=e["n"], k=e["k"], tp=64))
        empty = braid.PresetTable.parse('format = "braid-presets"\nversion = 1\n')
        self.assertEqual(len(empty), 0)
        self.assertIsNone(empty.lookup(op="gemm_rs", m=1, n=1, k=1, tp=1))


class Passes(unittest.TestCase):
    """Version 2 files key presets by pass; pass_ picks one (default fprop)."""

    TEXT = (
        'format = "braid-presets"\nversion = 2\n'
        + "".join(
            '[[preset]]\ngpu = "h100-sxm"\ntopology = "h100-sxm"\ntp = 8\nop = "gemm_rs"\ndtype = "bf16"\n'
            f'm = 8192\nn = 8192\nk = 28672\n{extra}algorithm = "{algo}"\nchunks = 1\nstreams = 1\ncomm_sms = 0\n'
            "time_ns = 1.0\nspeedup_vs_serial = 1.0\nspeedup_vs_te_default = 1.0\noverlap_ratio = 0.0\n"
            'tail_ns = 0.0\nbackend = "sim"\nbraid_version = "0.1.0"\ndate = "2026-11-26"\n'
            for extra, algo in (("", "ring"), ('pass = "dgrad"\n', "bulk"))
        )
    )

    def test_each_pass_answers_for_itself(self):
        table = braid.PresetTable.parse(self.TEXT, "passes.toml")
        self.assertEqual(len(table), 2)
        shape = dict(op="gemm_rs", m=8192, n=8192, k=28672, tp=8)
        self.assertEqual(table.lookup(**shape).config["algorithm"], "ring")
        dgrad = table.lookup(**shape, pass_="dgrad")
        self.assertEqual(dgrad.config["algorithm"], "bulk")
        self.assertEqual(dgrad.key["pass"], "dgrad")
        self.assertIsNone(table.lookup(**shape, pass_="wgrad"))
        with self.assertRaisesRegex(ValueError, "unknown pass 'bprop'"):
            table.lookup(**shape, pass_="bprop")


class ResultsOutliveTheirTable(unittest.TestCase):
    def test_result_keeps_the_table_alive(self):
        r = braid.PresetTable.load(SHIPPED_PRESETS[0]).lookup(op="gemm_rs", m=4096, n=4096, k=4096, tp=2)
        import gc
        gc.collect()
        self.assertEqual(r.key["op"], "gemm_rs")
        self.assertIn("gemm_rs", repr(r))

    def test_pathlike_and_bytes_paths(self):
        import pathlib
        a = braid.PresetTable.load(pathlib.Path(SHIPPED_PRESETS[0]))
        b = braid.PresetTable.load(os.fsencode(SHIPPED_PRESETS[0]))
        self.assertEqual(len(a), len(b))
        self.assertEqual(len(a), len(entries(SHIPPED_PRESETS[0])))

    def test_an_embedded_null_byte_is_a_value_error_not_another_file(self):
        # Before: "good.toml\0x" loaded good.toml (the C++ reader stopped at the NUL).
        for path in (SHIPPED_PRESETS[0] + "\0x", os.fsencode(SHIPPED_PRESETS[0]) + b"\0x"):
            with self.assertRaisesRegex(ValueError, "embedded null byte"):
                braid.PresetTable.load(path)
            with self.assertRaisesRegex(ValueError, "embedded null byte"):
                braid.te_ub_cfgs(path, model="llama3-8b", seq=8192, batch=1, topology="h100-sxm", tp=8)


class Gil(unittest.TestCase):
    def test_lookup_runs_without_the_gil(self):
        table = braid.PresetTable.load(SHIPPED_PRESETS[0])
        table.lookup(op="gemm_rs", m=4096, n=4096, k=4096, tp=4)
        self.assertTrue(braid._braid._lookup_released_gil())

    def test_threads_get_the_same_answers(self):
        table = braid.PresetTable.load(SHIPPED_PRESETS[0])
        queries = [(e["op"], e["m"] + i, e["n"], e["k"], e["tp"]) for i, e in enumerate(entries(SHIPPED_PRESETS[0]))]
        expected = [table.lookup(op=o, m=m, n=n, k=k, tp=tp).key for o, m, n, k, tp in queries]
        failures = []

        def worker():
            for _ in range(20):
                got = [table.lookup(op=o, m=m, n=n, k=k, tp=tp).key for o, m, n, k, tp in queries]
                if got != expected:
                    failures.append(got)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])



class DataParallel(unittest.TestCase):
    """lookup_dp answers a [[dp_preset]] (format version 5) by its exact key."""

    TEXT = (
        'format = "braid-presets"\nversion = 5\n[[dp_preset]]\ngpu = "h100-sxm"\ntopology = "h100-sxm-4node-ib"\n'
        'model = "llama3-70b"\ntokens = 8192\ntp = 8\ndp = 4\nzero = "1"\ndtype = "bf16"\nschedule = "decomposed"\n'
        'bucket_params = 40000000\ndecomposed_layers = 2\ndecomposition = "direct"\ndecomposition_chunks = 1\n'
        'prefetch = 1\ncomm_sms = 8\nstep_ns = 7.3e8\nspeedup_vs_megatron = 1.04\nbackend = "sim"\n'
        'braid_version = "0.1.0"\ndate = "2026-11-29"\n'
    )

    def test_the_key_answers_and_others_do_not(self):
        table = braid.PresetTable.parse(self.TEXT, "dp.toml")
        d = table.lookup_dp(model="llama3-70b", tokens=8192, tp=8, dp=4, zero="1")
        self.assertEqual(d["schedule"], "decomposed")
        self.assertEqual(d["bucket_params"], 40000000)
        self.assertEqual(d["decomposed_layers"], 2)
        self.assertEqual(d["decomposition"], "direct")
        self.assertEqual(d["comm_sms"], 8)
        self.assertAlmostEqual(d["speedup_vs_megatron"], 1.04)
        self.assertIsNone(table.lookup_dp(model="llama3-70b", tokens=8192, tp=8, dp=16, zero="1"))
        self.assertIsNone(table.lookup_dp(model="llama3-70b", tokens=8192, tp=8, dp=4, zero="3"))
        with self.assertRaises(ValueError):
            table.lookup_dp(model="llama3-70b", tokens=8192, tp=8, dp=4, zero="7")
        with self.assertRaises(ValueError):
            table.lookup_dp(model="llama3-70b", tokens=0, tp=8, dp=4)


if __name__ == "__main__":
    unittest.main()
