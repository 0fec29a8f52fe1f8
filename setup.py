"""Builds the Python module `braid` with scikit-build: CMake configures
python/CMakeLists.txt on its own, which builds only core/, catalog/, presets/ and the
module (no SQLite, BLAS, Qt or CUDA needed), and installs the extension.

    pip install --no-build-isolation .
"""

import re
from pathlib import Path

from skbuild import setup

ROOT = Path(__file__).resolve().parent
VERSION = re.search(r"project\(braid VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)

setup(
    name="braid",
    version=VERSION,
    description="Braid's overlap presets (runtime loader, TransformerEngine ub_cfgs) for Python runtimes",
    long_description=(ROOT / "python" / "README.md").read_text(),
    long_description_content_type="text/markdown",
    python_requires=">=3.8",
    packages=["braid"],
    package_dir={"braid": "python/braid"},
    package_data={"braid": ["_braid.pyi", "py.typed"]},
    cmake_source_dir="python",
    cmake_args=[
        # A user's compiler may warn where ours does not; warnings stay warnings here.
        "-DBRAID_WERROR=OFF",
    ],
    zip_safe=False,
)
