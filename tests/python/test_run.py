"""braid.run: one config through the run pipeline on the sim backend, the
same library call as `braid run`, so both give the same record."""

import json
import os
import signal
import sqlite3
import tempfile
import threading
import time
import unittest

import braid
from braid_test_env import braid as run_braid

RING = dict(op="gemm_rs", m=4096, n=4096, k=4096, tp=4, algorithm="ring", chunks=2, iters=2, warmup=0)


class Run(unittest.TestCase):
    def test_the_record_equals_braid_run_json(self):
        record = braid.run(**RING)
        _, out, _ = run_braid("run", "--backend", "sim", "--op", "gemm_rs", "--m", "4096", "--n", "4096", "--k",
                              "4096", "--tp", "4", "--algo", "ring", "--chunks", "2", "--iters", "2", "--warmup", "0",
                              "--no-db", "--json")
        cli = json.loads(out)
        self.assertIsNone(record["run"])
        self.assertEqual(record["config"], cli["config"])
        self.assertEqual(record["workload"], cli["workload"])
        self.assertEqual(record["metrics"], cli["metrics"])
        self.assertEqual(record["lower_bound"], cli["lower_bound"])
        self.assertLessEqual(record["metrics"]["efficiency"]["p50"], 1.0)

    def test_a_store_keeps_the_run_for_braid_report(self):
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "runs.db")
            record = braid.run(**RING, db=db)
            self.assertIsInstance(record["run"], int)
            _, out, _ = run_braid("report", "--db", db, "--run", str(record["run"]), "--json")
            self.assertEqual(json.loads(out)["metrics"], record["metrics"])

    def test_a_model_block_runs_too(self):
        record = braid.run(model="llama3-8b", seq=1024, tp=4, algorithm="ring", iters=1, warmup=0)
        self.assertEqual(record["workload"]["model"], "llama3-8b")
        self.assertGreater(record["metrics"]["makespan_ns"]["p50"], 0)

    def test_a_ub_cfgs_file_runs_every_gemm_as_braid_run_does(self):
        with tempfile.TemporaryDirectory() as d:
            yaml_path = os.path.join(d, "ub.yaml")
            with open(yaml_path, "w") as f:
                f.write("qkv_dgrad: {method: bulk, num_sm: 4, set_sm_margin: 0}\n"
                        "qkv_wgrad: {method: bulk, num_sm: 24, set_sm_margin: 0}\n"
                        "proj_fprop: {method: pipeline, num_sm: 24, num_splits: 4, set_sm_margin: 1}\n")
            args = dict(model="llama3-8b", seq=1024, tp=4, phase="train", iters=1, warmup=0)
            record = braid.run(**args, ub_cfgs=yaml_path)
            _, out, _ = run_braid("run", "--model", "llama3-8b", "--seq", "1024", "--tp", "4", "--phase", "train",
                                  "--iters", "1", "--warmup", "0", "--ub-cfgs", yaml_path, "--no-db", "--json")
            cli = json.loads(out)
            self.assertEqual(record["metrics"], cli["metrics"])
            ops = {op["name"]: op for op in record["workload"]["ops"]}
            self.assertEqual(ops["qkv.wgrad"]["config"]["comm_sms"], 24)
            self.assertEqual(ops["out_proj.fprop"]["config"]["sm_margin"], True)
            self.assertGreater(ops["qkv.dgrad"]["time_ns"], 0)
            with open(yaml_path, "w") as f:
                f.write("proj_fprop: {atomic_gemm: 1}\n")
            with self.assertRaisesRegex(ValueError, "proj_fprop: atomic_gemm 1"):
                braid.run(**args, ub_cfgs=yaml_path)

    def test_bad_input_is_value_error_in_field_words_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "runs.db")
            for kwargs, says in (
                (dict(comm_sms=132), "`comm_sms` 132 leaves no SM"),
                (dict(algorithm="zigzag"), "zigzag"),
                (dict(topology="no-such-topology"), "no-such-topology"),
                (dict(comm_priority="urgent"), "comm_priority"),
            ):
                with self.subTest(**kwargs):
                    with self.assertRaises(ValueError) as e:
                        braid.run(**{**RING, **kwargs}, db=db)
                    self.assertIn(says, str(e.exception))
                    self.assertNotIn("--", str(e.exception))
            self.assertFalse(os.path.exists(db), "a refused run leaves no store")

    def test_paths_are_str_bytes_or_pathlike_and_never_hold_a_nul(self):
        # A NUL would end the path on the C++ side: "x.db\0junk" wrote x.db.
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "x.db")
            for bad in (db + "\0junk", os.fsencode(db) + b"\0junk"):
                with self.subTest(path=bad):
                    with self.assertRaisesRegex(ValueError, "embedded null byte"):
                        braid.run(**RING, db=bad)
            self.assertEqual(os.listdir(d), [])
            # bytes, not UTF-8 ones included, and os.PathLike work as in open().
            raw = os.path.join(os.fsencode(d), b"\xff\xfe.db")
            self.assertIsInstance(braid.run(**RING, db=raw)["run"], int)
            self.assertTrue(os.path.exists(raw))
            import pathlib
            self.assertIsInstance(braid.run(**RING, db=pathlib.Path(d) / "p.db")["run"], int)

    def test_fp8_comm_dtype_sets_what_transfers_move(self):
        fp8 = dict(RING, m=8192, n=8192, k=8192, tp=8, dtype="fp8_e4m3")  # bandwidth-bound transfers
        bf16_partials = braid.run(**fp8)  # auto: reduce-scatters move bf16 partials
        fp8_partials = braid.run(**fp8, comm_dtype="fp8_e4m3")
        self.assertEqual(fp8_partials["config"]["comm_dtype"], "fp8_e4m3")
        self.assertNotIn("comm_dtype", bf16_partials["config"])
        self.assertGreater(bf16_partials["metrics"]["comm_ns"]["p50"], 1.6 * fp8_partials["metrics"]["comm_ns"]["p50"])

    def test_fp8_misuse_is_value_error_in_field_words(self):
        for kwargs, says in (
            (dict(dtype="bf16", comm_dtype="fp8_e4m3"), "`comm_dtype` fp8_e4m3 applies to FP8 GEMMs only"),
            (dict(dtype="fp8_e4m3", comm_dtype="fp8_e4m3", algorithm="chunked"), "only ring and bidir_ring"),
            (dict(dtype="fp8_e4m3", comm_dtype="int4"), "unknown dtype 'int4'"),
            (dict(dtype="fp8"), "ambiguous"),
            (dict(dtype="fp8_e4m3", topology="a100-sxm"), "no fp8_e4m3 tensor cores"),
        ):
            with self.subTest(**kwargs):
                with self.assertRaises(ValueError) as e:
                    braid.run(**{**RING, **kwargs})
                self.assertIn(says, str(e.exception))
                self.assertNotIn("--", str(e.exception))

    def test_the_stored_run_is_one_row(self):
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "runs.db")
            braid.run(**RING, db=db)
            with sqlite3.connect(db) as c:
                self.assertEqual(c.execute("SELECT COUNT(*) FROM runs").fetchone()[0], 1)

    def test_ctrl_c_ends_the_run_between_iterations_and_stores_nothing(self):
        # About 4 s uninterrupted on the 2-core build machine (2000 iterations
        # of a train-phase block); SIGINT comes 0.3 s in, from another thread
        # as a terminal's would.
        long_run = dict(model="llama3-8b", seq=4096, tp=8, phase="train", algorithm="ring", chunks=4, iters=2000,
                        warmup=0)
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "runs.db")
            timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
            start = time.monotonic()
            timer.start()
            try:
                with self.assertRaises(KeyboardInterrupt):
                    braid.run(**long_run, db=db)
            finally:
                timer.join()
            self.assertLess(time.monotonic() - start, 3.0, "seen mid-run, not once the run was over")
            self.assertFalse(os.path.exists(db), "an interrupted run stores nothing and creates no store")


if __name__ == "__main__":
    unittest.main()
