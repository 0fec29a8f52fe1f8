"""Bad input never crashes the interpreter: a missing or malformed preset file
raises braid.PresetError with the loader's message (the one the braid command
prints), wrong types TypeError, bad values ValueError."""

import os
import tempfile
import unittest

import braid
from braid_test_env import SHIPPED_PRESETS, braid as run_braid

GOOD_ENTRY = """
[[preset]]
gpu = "h100-sxm"
topology = "h100-sxm"
tp = 8
op = "gemm_rs"
dtype = "bf16"
m = 8192
n = 8192
k = 8192
algorithm = "ring"
chunks = 2
streams = 1
comm_sms = 0
comm_engine = "sm"
comm_priority = "high"
time_ns = 1000.0
speedup_vs_serial = 1.2
speedup_vs_te_default = 1.1
overlap_ratio = 0.9
tail_ns = 10.0
backend = "sim"
braid_version = "0.1.0"
date = "2026-11-21T22:00:00Z"
"""
HEADER = 'format = "braid-presets"\nversion = 1\n'

BAD_FILES = {
    "not_toml.toml": "this is = = not toml\n",
    "wrong_version.toml": 'format = "braid-presets"\nversion = 99\n' + GOOD_ENTRY,
    "missing_field.toml": HEADER + GOOD_ENTRY.replace('algorithm = "ring"\n', ""),
    "bad_algorithm.toml": HEADER + GOOD_ENTRY.replace('"ring"', '"spiral"'),
    "negative_size.toml": HEADER + GOOD_ENTRY.replace("m = 8192", "m = -8192"),
    "binary.toml": "\x00\x01\x02\xff",
}


class BadFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="latin-1") as f:
            f.write(text)
        return path

    def test_good_entry_loads(self):
        table = braid.PresetTable.load(self.write("good.toml", HEADER + GOOD_ENTRY))
        self.assertEqual(len(table), 1)
        self.assertEqual(table.lookup(op="gemm_rs", m=8192, n=8192, k=8192, tp=8).config["chunks"], 2)

    def test_bad_files_raise_preset_error_with_the_loaders_message(self):
        for name, text in BAD_FILES.items():
            with self.subTest(name=name):
                path = self.write(name, text)
                with self.assertRaises(braid.PresetError) as cm:
                    braid.PresetTable.load(path)
                message = str(cm.exception)
                self.assertIn(name, message)
                self.assertNotIn("\n", message)
                code, _, err = run_braid("presets", "show", path, check=False)
                self.assertEqual(code, 2)
                self.assertEqual(err, f"braid presets show: {message}\n")

    def test_missing_file(self):
        with self.assertRaisesRegex(braid.PresetError, "/no/such/presets.toml"):
            braid.PresetTable.load("/no/such/presets.toml")
        with self.assertRaises(braid.PresetError):
            braid.PresetTable.load(self.dir.name)  # a folder

    def test_paths_that_are_not_utf8_or_hold_a_nul(self):
        # bytes as the OS has them, not a cast error; a NUL is refused as open() does.
        missing = os.path.join(os.fsencode(self.dir.name), b"\xff\xfe.toml")
        with self.assertRaises(braid.PresetError):
            braid.PresetTable.load(missing)
        with self.assertRaises(braid.PresetError):
            braid.PresetTable.load(os.fsdecode(missing))  # the same name as a str with surrogate escapes
        with self.assertRaisesRegex(ValueError, "embedded null byte"):
            braid.PresetTable.load(os.path.join(self.dir.name, "p.toml\0x"))

    def test_devices_and_fifos_are_refused_at_once(self):
        # A read of /dev/zero never ends and opening a FIFO blocks: both are
        # refused by what they are, before any read.
        fifo = os.path.join(self.dir.name, "pipe.toml")
        os.mkfifo(fifo)
        for path, kind in (("/dev/zero", "a character device"), (fifo, "a FIFO")):
            with self.subTest(path=path):
                with self.assertRaisesRegex(braid.PresetError, f"is {kind}, not a preset file"):
                    braid.PresetTable.load(path)

    def test_parse_names_the_origin(self):
        with self.assertRaisesRegex(braid.PresetError, r"^mine\.toml:"):
            braid.PresetTable.parse("version = 1\nformat = 3\n", "mine.toml")

    def test_preset_error_is_one_exception_class(self):
        self.assertTrue(issubclass(braid.PresetError, Exception))
        self.assertFalse(issubclass(braid.PresetError, (ValueError, TypeError, OSError)))
        self.assertEqual(braid.PresetError.__module__, "braid")


class BadArguments(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = braid.PresetTable.load(SHIPPED_PRESETS[0])

    def lookup(self, **kw):
        args = dict(op="gemm_rs", m=8192, n=8192, k=8192, tp=8)
        args.update(kw)
        return self.table.lookup(**args)

    def test_sizes_below_one_are_value_errors(self):
        for field in ("m", "n", "k", "tp"):
            for bad in (-1, 0, -(2**40)):
                with self.subTest(field=field, value=bad):
                    with self.assertRaisesRegex(ValueError, f"^{field} must be at least 1 \\(got {bad}\\)$"):
                        self.lookup(**{field: bad})

    def test_tp_beyond_int_is_a_value_error(self):
        with self.assertRaisesRegex(ValueError, r"^tp must be at most 2147483647 \(got 1099511627776\)$"):
            self.lookup(tp=2**40)

    def test_unknown_names_are_value_errors(self):
        with self.assertRaisesRegex(ValueError, "gemm_xx"):
            self.lookup(op="gemm_xx")
        with self.assertRaisesRegex(ValueError, "int3"):
            self.lookup(dtype="int3")

    def test_wrong_types_are_type_errors(self):
        for kw in ({"m": "8192"}, {"m": 8192.0}, {"m": None}, {"op": 3}, {"gpu": 1}, {"m": 2**80}):
            with self.subTest(kw=kw):
                with self.assertRaises(TypeError):
                    self.lookup(**kw)
        with self.assertRaises(TypeError):
            self.table.lookup("gemm_rs", 8192, 8192, 8192, 8)  # keywords only
        with self.assertRaises(TypeError):
            self.table.lookup(op="gemm_rs", m=8192, n=8192, k=8192)  # tp missing
        with self.assertRaises(TypeError):
            braid.PresetTable.load(None)
        with self.assertRaises(TypeError):
            braid.PresetTable()  # tables come from load / parse

    def test_results_are_read_only(self):
        r = self.lookup()
        with self.assertRaises(AttributeError):
            r.match = "exact"
        r.config["chunks"] = 99  # a copy: the table is unchanged
        self.assertNotEqual(self.lookup().config["chunks"], 99)


if __name__ == "__main__":
    unittest.main()
