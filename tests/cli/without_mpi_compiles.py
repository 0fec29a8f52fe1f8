#!/usr/bin/env python3
"""Every source that branches on BRAID_HAVE_MPI compiles without it too.

Usage: without_mpi_compiles.py BUILD_DIR SOURCE_DIR

A build with MPI never compiles the other side of those branches, and a
braid built without MPI (the GPU bundle) once failed on a function left
unused there (-Werror=unused-function). This takes each such source's
compile command from BUILD_DIR/compile_commands.json, drops the MPI
defines, and compiles it to nothing (-S -o /dev/null): same compiler, flags and warnings.
Exit 0 all compiled, 1 one did not (its errors printed), 77 no compile
database (skipped).
"""
import json
import os
import re
import shlex
import subprocess
import sys


def expand_unity_units(entries):
    """(entry, source) for every source the database compiles: a unity unit
    (cmake/BraidUnity.cmake) stands for the files it includes, each compiled
    with the unit's command."""
    for e in entries:
        yield e, e["file"]
        if re.search(r"/Unity/unity_[0-9]+_cxx\.cxx$", e["file"]):
            with open(os.path.join(e["directory"], e["file"]), encoding="utf-8") as f:
                for member in re.findall(r'^#include "([^"]+)"$', f.read(), re.M):
                    yield e, member


def main():
    build, source = sys.argv[1], sys.argv[2]
    db_path = os.path.join(build, "compile_commands.json")
    if not os.path.isfile(db_path):
        print(f"without_mpi_compiles: SKIPPED, no {db_path}")
        return 77
    with open(db_path, encoding="utf-8") as f:
        entries = json.load(f)
    users = set()
    for root, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for name in files:
            if name.endswith(".cc"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    if "BRAID_HAVE_MPI" in f.read():
                        users.add(os.path.realpath(path))
    checked, failed = 0, 0
    for e, member in expand_unity_units(entries):
        path = os.path.realpath(os.path.join(e["directory"], member))
        if path not in users:
            continue
        users.discard(path)  # one command per source is enough
        unit = e["file"]
        args = [member if a == unit else a for a in (e["arguments"] if "arguments" in e else shlex.split(e["command"]))]
        kept, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a == "-o":
                skip = True
                continue
            if a == "-c" or a.startswith("-DBRAID_HAVE_MPI") or a.endswith("SKIP_MPICXX=1"):
                continue
            kept.append(a)
        # -S, not -fsyntax-only: GCC warns of unused functions only when it compiles.
        run = subprocess.run(kept + ["-S", "-o", os.devnull], cwd=e["directory"], capture_output=True, text=True)
        checked += 1
        if run.returncode != 0:
            failed += 1
            print(f"FAIL: {os.path.relpath(path, source)} does not compile without BRAID_HAVE_MPI:\n{run.stderr}")
    print(f"without_mpi_compiles: {checked} source(s) checked, {failed} failed")
    if checked == 0:
        print("without_mpi_compiles: no source with BRAID_HAVE_MPI in the compile database")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
