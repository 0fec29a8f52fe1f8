"""What the Python tests share: where the braid command and the sources are
(ctest sets BRAID_EXE and BRAID_SOURCE_DIR; PYTHONPATH points at the build
tree's python/ folder), and how to ask the C++ command for the same answer."""

import json
import os
import subprocess
import unittest

SOURCE_DIR = os.environ.get("BRAID_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BRAID_EXE = os.environ.get("BRAID_EXE", "")
SHIPPED_PRESETS = [
    os.path.join(SOURCE_DIR, "presets", "tuned", name) for name in ("h100-sxm.toml", "a100-sxm.toml", "h200-sxm.toml", "b200-sxm.toml")
]
# Tuned for TransformerEngine (`tune --runtime te`): they export exactly.
SHIPPED_TE_PRESETS = [
    os.path.join(SOURCE_DIR, "presets", "tuned", "te", name) for name in ("h100-sxm.toml", "a100-sxm.toml", "h200-sxm.toml", "b200-sxm.toml")
]
EXAMPLE_PRESETS = os.path.join(SOURCE_DIR, "presets", "examples", "example.toml")

# Sanitizer runtimes preloaded into an uninstrumented interpreter must not
# reach the braid command (built with its own).
_CHILD_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def braid(*args, check=True):
    """Runs the braid command; returns (exit code, stdout, stderr)."""
    if not BRAID_EXE:
        raise unittest.SkipTest("BRAID_EXE is not set (run the tests through ctest)")
    p = subprocess.run([BRAID_EXE, *args], capture_output=True, text=True, timeout=120, env=_CHILD_ENV)
    if check and p.returncode != 0:
        raise AssertionError(f"braid {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_lookup(path, key, m, n, k):
    """`braid presets lookup --json` for a preset key's gpu/topology/op/tp/dtype/pass at size (m, n, k)."""
    code, out, _ = braid(
        "presets", "lookup", path, "--json", "--op", key["op"], "--m", str(m), "--n", str(n), "--k", str(k),
        "--tp", str(key["tp"]), "--dtype", key["dtype"], "--gpu", key["gpu"], "--topology", key["topology"],
        "--pass", key.get("pass", "fprop"), check=False)
    return json.loads(out) if code == 0 else None
