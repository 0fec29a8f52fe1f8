"""The lookup benchmark runs and prints its figures (the figures themselves
are read by people, not checked: they depend on the machine)."""

import os
import re
import subprocess
import sys
import unittest

from braid_test_env import SOURCE_DIR

BENCH = os.path.join(SOURCE_DIR, "python", "bench", "lookup_bench.py")


class Bench(unittest.TestCase):
    def test_prints_lookups_per_second(self):
        p = subprocess.run([sys.executable, BENCH, "--seconds", "0.3", "--cxx", ""], capture_output=True,
                           text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("table: 1064 presets", p.stdout)
        for kind in ("exact", "nearest"):
            self.assertRegex(p.stdout, rf"python: lookup {kind} +[\d,]+ lookups/s +\d+ ns per lookup")
            self.assertRegex(p.stdout, rf"python: lookup {kind} +[\d,]+ lookups/s in total from 2 threads")
        self.assertTrue(all(int(x.replace(",", "")) > 0 for x in re.findall(r"([\d,]+) lookups/s", p.stdout)))


if __name__ == "__main__":
    unittest.main()
