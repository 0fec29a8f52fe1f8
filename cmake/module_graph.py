#!/usr/bin/env python3
"""Braid's target dependency edges from CMake's --graphviz output, one
`a -> b` line each (libraries and programs, not tests), for comparing two
trees:

    cmake -S . -B /tmp/g -DBRAID_BUILD_TESTS=OFF -DBRAID_BUILD_BENCH=OFF --graphviz=/tmp/g/braid.dot
    python3 cmake/module_graph.py /tmp/g/braid.dot

The layering rule itself is enforced when configuring (BraidLayering.cmake).
"""
import re
import sys


def main(path):
    dot = open(path).read()
    names = {n: re.sub(r"\\n\(.*\)$", "", label) for n, label in re.findall(r'"(node\d+)" \[ label = "([^"]+)"', dot)}
    ours = {n: label for n, label in names.items() if label.startswith("braid") and not label.endswith("_tests")}
    edges = sorted({(ours[a], ours[b]) for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', dot)
                    if a in ours and b in ours})
    for a, b in edges:
        print(f"{a} -> {b}")


if __name__ == "__main__":
    main(sys.argv[1])
