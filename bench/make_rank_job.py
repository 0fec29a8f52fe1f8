#!/usr/bin/env python3
"""A multi-rank Kineto job made from single-rank traces, for timing imports
of a whole job when only a few real traces are at hand:

    python3 bench/make_rank_job.py OUT_DIR N TRACE.json.gz [TRACE2 ...]

writes OUT_DIR/rank_0.json.gz .. rank_<N-1>.json.gz, cycling through the
given traces. Each copy gets distributedInfo.rank = i and world_size = N
(distributedInfo is added when missing) so that importers see N distinct
ranks of one job rather than N copies of one rank; nothing else changes
(json load, set the two fields, compact dump in Kineto's line layout: see
kineto_text; gzip level 6). OUT_DIR must be absent or empty, so that a
stale rank from an earlier, larger job never joins.
"""
import gzip
import json
import os
import sys


def refuse(message):
    print(f"make_rank_job: {message}", file=sys.stderr)
    sys.exit(2)


def kineto_text(trace):
    """Compact JSON laid out as Kineto lays it out: one top-level key, and
    one trace event, per line, with a space after each colon. Layout matters
    to HTA: it finds a file's rank with the regex '"rank":\\s+(\\d+)', read
    line by line, so a one-line dump without spaces leaves every file at
    rank 0 (it keeps only one of them), and a one-line dump with spaces
    makes it inflate the whole file just to find the rank."""
    def dump(value):
        return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)

    lines = []
    for key, value in trace.items():
        if key == "traceEvents" and isinstance(value, list):
            events = ",\n".join(dump(e) for e in value)
            lines.append(f"{dump(key)}: [\n{events}\n]")
        else:
            lines.append(f"{dump(key)}: {dump(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv):
    if len(argv) < 3:
        refuse("usage: make_rank_job.py OUT_DIR N TRACE.json.gz [TRACE2 ...]")
    out_dir, n_text, traces = argv[0], argv[1], argv[2:]
    try:
        n = int(n_text)
    except ValueError:
        refuse(f"N must be an integer, got '{n_text}'")
    if n < 1:
        refuse(f"N must be at least 1, got {n}")
    if os.path.exists(out_dir) and (not os.path.isdir(out_dir) or os.listdir(out_dir)):
        refuse(f"{out_dir} exists and is not an empty directory")
    os.makedirs(out_dir, exist_ok=True)

    # Each source is parsed once; the copies differ only in the two fields.
    sources = []
    for path in traces:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            sources.append(json.load(f))

    for i in range(n):
        trace = sources[i % len(sources)]
        info = trace.setdefault("distributedInfo", {})
        info["rank"] = i
        info["world_size"] = n
        # mtime=0: the same inputs give the same bytes, run after run.
        with gzip.GzipFile(os.path.join(out_dir, f"rank_{i}.json.gz"), "wb", compresslevel=6, mtime=0) as f:
            f.write(kineto_text(trace).encode("utf-8"))
    print(f"wrote {n} ranks to {out_dir}")


if __name__ == "__main__":
    main(sys.argv[1:])
