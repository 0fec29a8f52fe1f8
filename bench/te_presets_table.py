#!/usr/bin/env python3
"""Megatron-Bridge's hand-set TP-overlap presets beside TE's default and Braid's tuners (sim):

    python3 bench/te_presets_table.py --braid build/release/cli/braid [--only NAME]

Each TransformerEngine ub_cfgs YAML in bench/megatron_bridge/ is one of
Megatron-Bridge's presets (its header cites the source); its `# braid:` line
names the block it is for: model, seq, cp, batch, tp, dtype, topology. For
each one this runs, on the sim, a training block (`--phase train`):

- `braid run --ub-cfgs FILE`: the hand-set block, every GEMM as TE runs the file;
- `braid tune --runtime te --baseline FILE`: the hand-set block again, TE's
  default (no ub_cfgs) and the best that TE's ub_cfgs can express;
- `braid tune --runtime braid --baseline FILE`: the best of every plan Braid runs,

and prints one markdown table row per preset, the ratios as hand-set time
over tuned time (above 1: the tuner is faster). Both tuners take the file as
a candidate, so neither may come out slower than the hand-set block; a row
where one does is flagged, as is a hand-set time that the three commands do
not agree on. Stores and preset files go to a temporary directory.

Context parallelism: Braid has none. Megatron sizes TE's userbuffers as
seq_length x micro_batch / context_parallel_size tokens, so a cp=2 preset is
run as one CP rank's block of seq / 2 tokens; its attention is then attention
over seq / 2 tokens, not over a CP-split sequence (ring attention's KV
exchange between CP ranks is not modelled).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

PRESET_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "megatron_bridge")
BLOCK_KEYS = ("model", "seq", "cp", "batch", "tp", "dtype", "topology")


class BraidError(Exception):
    pass


def read_block(path):
    """The `# braid: key=value ...` line of a preset file, as a dict."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# braid:"):
                block = dict(kv.split("=", 1) for kv in line[len("# braid:"):].split())
                missing = [k for k in BLOCK_KEYS if k not in block]
                if missing:
                    sys.exit(f"{path}: the '# braid:' line lacks {', '.join(missing)}")
                for k in ("seq", "cp", "batch", "tp"):
                    block[k] = int(block[k])
                if block["seq"] % block["cp"]:
                    sys.exit(f"{path}: seq {block['seq']} is not a multiple of cp {block['cp']}")
                return block
    sys.exit(f"{path}: no '# braid: model=... seq=... cp=... batch=... tp=... dtype=... topology=...' line")


def run_json(args):
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        tail = " | ".join(out.stderr.strip().splitlines()[-3:]) or "(no message)"
        raise BraidError(f"`{' '.join(args)}` exited {out.returncode}: {tail}")
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError as e:
        raise BraidError(f"`{' '.join(args)}` printed no JSON object ({e})")


def measure(braid, path, block, scratch):
    """Hand-set, TE default and both tuners' block times (ns) for one preset."""
    name = os.path.splitext(os.path.basename(path))[0]
    shape = ["--model", block["model"], "--seq", str(block["seq"] // block["cp"]), "--batch", str(block["batch"]),
             "--tp", str(block["tp"]), "--phase", "train", "--dtype", block["dtype"], "--topology", block["topology"]]
    run = run_json([braid, "run", *shape, "--ub-cfgs", path, "--no-db", "--json"])
    tuned = {}
    for runtime in ("te", "braid"):
        db = os.path.join(scratch, f"{name}-{runtime}.db")
        tuned[runtime] = run_json([braid, "tune", *shape, "--runtime", runtime, "--baseline", path, "--db", db,
                                   "--out", db[:-3] + ".toml", "--no-progress", "--json"])["block"]
    te, br = tuned["te"], tuned["braid"]
    row = {
        "hand": te["baseline"]["time_ns"],
        "te_default": te["te_default"]["time_ns"],
        "te_tuned": te["tuned"]["time_ns"],
        "braid_tuned": br["tuned"]["time_ns"],
        "warnings": [],
    }
    hands = {"braid run --ub-cfgs": run["metrics"]["makespan_ns"]["p50"], "tune --runtime te": row["hand"],
             "tune --runtime braid": br["baseline"]["time_ns"]}
    if max(hands.values()) > min(hands.values()) * 1.001:
        row["warnings"].append("hand-set block times disagree: " +
                               ", ".join(f"{k} {v / 1e6:.3f} ms" for k, v in hands.items()))
    if abs(br["te_default"]["time_ns"] - row["te_default"]) > row["te_default"] * 0.001:
        row["warnings"].append(f"TE default differs between the tunes: {row['te_default'] / 1e6:.3f} ms (te) vs "
                               f"{br['te_default']['time_ns'] / 1e6:.3f} ms (braid)")
    for label, key in (("--runtime te", "te_tuned"), ("--runtime braid", "braid_tuned")):
        if row[key] > row["hand"] * 1.0005:
            row["warnings"].append(f"{label} tuned ({row[key] / 1e6:.3f} ms) is slower than the hand-set block "
                                   f"({row['hand'] / 1e6:.3f} ms), which it had as a candidate: a Braid bug")
        if row[key] > row["te_default"] * 1.0005:
            row["warnings"].append(f"{label} tuned ({row[key] / 1e6:.3f} ms) is slower than TE's default "
                                   f"({row['te_default'] / 1e6:.3f} ms): a Braid bug")
    if row["braid_tuned"] > row["te_tuned"] * 1.0005:
        row["warnings"].append(f"--runtime braid ({row['braid_tuned'] / 1e6:.3f} ms) is slower than --runtime te "
                               f"({row['te_tuned'] / 1e6:.3f} ms), whose space it contains")
    return row


def ratio(hand, tuned):
    r = hand / tuned
    return f"{r:.3f}×" if r >= 0.9995 else f"**{r:.3f}× ⚠**"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--braid", required=True, help="the braid binary")
    ap.add_argument("--only", help="one preset: its file name, with or without .yaml")
    ap.add_argument("--presets", default=PRESET_DIR, help="folder of preset YAML files (default: %(default)s)")
    a = ap.parse_args()
    if not (os.path.isfile(a.braid) and os.access(a.braid, os.X_OK)):
        sys.exit(f"--braid {a.braid}: not an executable file")
    files = [f for f in os.listdir(a.presets) if f.endswith(".yaml")]
    if a.only:
        files = [f for f in files if f in (a.only, a.only + ".yaml")]
        if not files:
            sys.exit(f"--only {a.only}: no such preset in {a.presets}")
    if not files:
        sys.exit(f"{a.presets}: no .yaml presets")

    blocks = {f: read_block(os.path.join(a.presets, f)) for f in files}
    # Rows grouped by model, then GPU, then dtype.
    files.sort(key=lambda f: (blocks[f]["model"], blocks[f]["topology"], blocks[f]["dtype"], f))

    start = time.monotonic()
    rows, warnings, cp_rows = [], [], False
    with tempfile.TemporaryDirectory(prefix="braid-te-presets-") as scratch:
        for f in files:
            path = os.path.join(a.presets, f)
            name = f[:-len(".yaml")]
            block = blocks[f]
            try:
                m = measure(a.braid, path, block, scratch)
            except BraidError as e:
                sys.exit(f"te_presets_table: braid failed on {name}: {e}")
            warnings += [f"{name}: {w}" for w in m["warnings"]]
            seq = str(block["seq"])
            if block["cp"] > 1:
                seq = f"{block['seq'] // block['cp']} ({block['seq']}/cp{block['cp']})†"
                cp_rows = True
            if block["batch"] != 1:
                seq += f" ×{block['batch']}"
            rows.append([name, block["model"], block["topology"], str(block["tp"]), seq, block["dtype"],
                         f"{m['hand'] / 1e6:.3f}", f"{m['te_default'] / 1e6:.3f}", f"{m['te_tuned'] / 1e6:.3f}",
                         f"{m['braid_tuned'] / 1e6:.3f}", ratio(m["hand"], m["te_tuned"]),
                         ratio(m["hand"], m["braid_tuned"])])
    wall = time.monotonic() - start

    print("Megatron-Bridge TP-overlap presets: one transformer block's training step (forward and backward), "
          "sim, each GPU's block time in ms.\n")
    print("| preset | model | gpu | tp | seq | dtype | hand-set (ms) | TE default (ms) | --runtime te tuned (ms) "
          "| --runtime braid tuned (ms) | te-tuned vs hand-set | braid-tuned vs hand-set |")
    print("|---|---|---|---|---|---|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print("\nRatios: hand-set time / tuned time (above 1: the tuner is faster; ⚠: the hand-set block is faster).")
    if cp_rows:
        print("\n† CP: Braid has no context parallelism. TE's userbuffers hold seq × micro-batch / CP tokens, so "
              "these rows run one CP rank's block of seq / CP tokens; attention over a CP-split sequence is not "
              "attention over that many tokens (ring attention's KV exchange is not modelled).")
    if warnings:
        print("\nWarnings:")
        for w in warnings:
            print(f"- {w}")
    print(f"\nWall time: {wall:.1f} s for {len(rows)} preset(s), {3 * len(rows)} braid commands.")


if __name__ == "__main__":
    main()
