"""`pip install --no-build-isolation .` works with Debian's packages only:
a copy of the sources the module needs is installed into a fresh virtual
environment (no index, so nothing is downloaded) and imported from there.
ctest sets BRAID_PIP_PYTHON to an interpreter that has scikit-build."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from braid_test_env import SOURCE_DIR

# What setup.py's build reads: python/CMakeLists.txt builds core/, catalog/ and presets/.
NEEDED = ["setup.py", "pyproject.toml", "CMakeLists.txt", "cmake", "core", "catalog", "presets", "python"]

CHECK = """
import json, sys, braid
t = braid.PresetTable.load(sys.argv[1])
r = t.lookup(op="gemm_rs", m=8192, n=8192, k=28672, tp=8)
c = braid.te_ub_cfgs(t, model="llama3-70b", seq=8192, batch=1, tp=8, topology="h100-sxm")
print(json.dumps({"file": braid.__file__, "match": r.match, "keys": sorted(c.ub_cfgs)}))
"""


class PipInstall(unittest.TestCase):
    def test_installs_into_a_fresh_venv_and_imports(self):
        py = os.environ.get("BRAID_PIP_PYTHON")
        if not py:
            self.skipTest("BRAID_PIP_PYTHON is not set (run through ctest)")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_PRELOAD")}
        env["SKBUILD_BUILD_OPTIONS"] = "-j2"
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            for name in NEEDED:
                a, b = os.path.join(SOURCE_DIR, name), os.path.join(src, name)
                if os.path.isdir(a):
                    shutil.copytree(a, b, ignore=shutil.ignore_patterns("__pycache__", "_skbuild"))
                else:
                    os.makedirs(src, exist_ok=True)
                    shutil.copy(a, b)
            env["CCACHE_BASEDIR"] = tmp  # when ccache is the launcher: hits across runs in other temp dirs
            venv = os.path.join(tmp, "venv")
            subprocess.run([py, "-m", "venv", "--system-site-packages", venv], check=True, env=env, timeout=300)
            pip = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index",
                                  src], capture_output=True, text=True, env=env, timeout=1500)
            self.assertEqual(pip.returncode, 0, pip.stdout[-3000:] + pip.stderr[-3000:])
            run = subprocess.run([os.path.join(venv, "bin", "python"), "-c", CHECK,
                                  os.path.join(SOURCE_DIR, "presets", "tuned", "te", "h100-sxm.toml")],
                                 capture_output=True, text=True, env=env, cwd=tmp, timeout=120)
            self.assertEqual(run.returncode, 0, run.stderr)
            import json
            out = json.loads(run.stdout)
            self.assertTrue(out["file"].startswith(os.path.join(venv, "lib")), out["file"])
            self.assertIn(out["match"], ("exact", "nearest"))
            self.assertEqual(out["keys"], ["fc1_fprop", "fc2_fprop", "proj_fprop", "qkv_fprop"])
            site = os.path.dirname(out["file"])
            self.assertTrue(os.path.exists(os.path.join(site, "_braid.pyi")))
            self.assertTrue(os.path.exists(os.path.join(site, "py.typed")))


if __name__ == "__main__":
    unittest.main()
