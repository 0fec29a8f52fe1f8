#!/usr/bin/env python3
"""How many module boundaries the walks of `braid run`, `tune` and `import`
cross from the command's entry (cli/<command>_command.cc) to the store (db/),
from the include graph of the sources, for comparing two trees (issue 55):

    python3 cmake/module_walks.py                 # the working tree
    python3 cmake/module_walks.py --rev 48bce71   # a commit, read with git (no checkout)

The graph. Nodes are the source files of the modules (core, catalog,
kernels, profiler, db, pipeline, tuner, presets, cli, gui, python; tests/
and bench/ are not walked); a file's module is its top-level folder. Edges:

  - `#include "x"`: x resolved beside the including file, then in every
    module's include/ folders (system headers are not nodes);
  - a header to the .cc files that implement it: those of its module whose
    first quoted include it is (the tree's convention: a file includes its
    own header first). Calling what a header declares runs the code of
    those files: the call graph approximated at file level, so that work a
    command hands to a library (or to a helper file of cli/) is walked too.

The walk of a command is every edge u -> v with u reachable from the entry
and v reaching a file of db/ (the store, its codec): the paths from the
command to the store. Two figures per walk, both smaller when the command
reaches the store through fewer doors:

  - boundaries: the edges of the walk whose ends lie in different modules
    (each is one place where a path to the store leaves a module);
  - from cli: those of them that leave cli/ (the other modules the command's
    own code calls on its way to the store).

It also lists the distinct module pairs of the crossing edges.
"""
import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

MODULES = ["core", "catalog", "kernels", "profiler", "db", "pipeline", "tuner", "presets", "cli", "gui", "python"]
COMMANDS = {"run": "cli/run_command.cc", "tune": "cli/tune_command.cc", "import": "cli/import_command.cc"}
SOURCE = re.compile(r"\.(h|hpp|cc|cpp|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_tree(root, rev):
    """{path: text} of the module folders' sources, from a directory or a git revision."""
    files = {}
    if rev:
        listing = subprocess.run(["git", "-C", root, "ls-tree", "-r", "--name-only", rev, "--"] + MODULES,
                                 check=True, capture_output=True, text=True).stdout.split()
        for path in listing:
            if SOURCE.search(path):
                files[path] = subprocess.run(["git", "-C", root, "show", f"{rev}:{path}"], check=True,
                                             capture_output=True, text=True, errors="replace").stdout
        return files
    for module in MODULES:
        for dirpath, _, names in os.walk(os.path.join(root, module)):
            for name in names:
                if SOURCE.search(name):
                    path = os.path.relpath(os.path.join(dirpath, name), root)
                    with open(os.path.join(root, path), errors="replace") as f:
                        files[path] = f.read()
    return files


def module_of(path):
    return path.split("/", 1)[0]


def build_graph(files):
    include_dirs = sorted({p[:p.index("/include/") + len("/include/")] for p in files if "/include/" in p})
    edges = defaultdict(set)
    for path, text in files.items():
        here = os.path.dirname(path)
        first = True
        for name in INCLUDE.findall(text):
            candidates = [os.path.normpath(os.path.join(here, name))] + [d + name for d in include_dirs]
            target = next((c for c in candidates if c in files), None)
            if target and target != path:
                edges[path].add(target)
                own = first and path.endswith((".cc", ".cpp", ".cu")) and module_of(target) == module_of(path)
                if own:
                    edges[target].add(path)  # the header's implementation
            first = False
    return edges


def reachable(start, edges):
    seen, stack = {start}, [start]
    while stack:
        for v in edges.get(stack.pop(), ()):
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return seen


def walk(entry, edges, files):
    reverse = defaultdict(set)
    for u, vs in edges.items():
        for v in vs:
            reverse[v].add(u)
    to_store = set()
    for f in files:
        if module_of(f) == "db":
            to_store |= reachable(f, reverse)
    from_entry = reachable(entry, edges)
    return [(u, v) for u in from_entry for v in edges.get(u, ()) if v in to_store]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--rev", help="a git revision of --root to read instead of its working tree")
    parser.add_argument("--edges", action="store_true", help="also list each walk's crossing edges")
    args = parser.parse_args()
    files = read_tree(args.root, args.rev)
    edges = build_graph(files)
    print(f"tree: {args.rev or args.root}")
    print(f"{'command':8} {'boundaries':>10} {'from cli':>8}  module pairs")
    for command, entry in COMMANDS.items():
        if entry not in files:
            print(f"{command:8} (no {entry})")
            continue
        crossing = sorted((u, v) for u, v in walk(entry, edges, files) if module_of(u) != module_of(v))
        from_cli = [e for e in crossing if module_of(e[0]) == "cli"]
        pairs = sorted({(module_of(u), module_of(v)) for u, v in crossing})
        print(f"{command:8} {len(crossing):>10} {len(from_cli):>8}  " + ", ".join(f"{a}->{b}" for a, b in pairs))
        if args.edges:
            for u, v in crossing:
                print(f"    {u} -> {v}")


if __name__ == "__main__":
    sys.exit(main())
