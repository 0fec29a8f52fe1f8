#!/usr/bin/env python3
"""Trace import speed, Braid beside HolisticTraceAnalysis (HTA), in one run:

    python3 bench/import_vs_hta.py --braid build/release/cli/braid --hta-dir HTA_CHECKOUT \
        [--runs K] [--job DIR] [--hta-timeout S] [--python PY] FILE...

For each Kineto FILE, HTA's side is a fresh interpreter that loads the file
(alone in a temporary directory) with TraceAnalysis and calls
get_comm_comp_overlap; Braid's side is `braid import kineto FILE --json` into
a fresh SQLite store. Both are timed from process start to exit, so HTA pays
for importing pandas just as Braid pays for starting up: that is what a user
waits for. Each side takes the best of K runs (warm page cache for both);
peak memory is ru_maxrss from wait4, i.e. the largest single process of the
child's tree (HTA's parser pool workers are counted one at a time, not
summed). The overlap percentages of both are printed so that a speedup
never hides a wrong answer: HTA's comp_comm_overlap_pctg per rank against
the `hta.overlap_pct` that braid stores for each rank.

--job DIR does the same for a whole multi-rank directory (see
bench/make_rank_job.py); braid is given `DIR/`. A failing side prints its
last error line and the run goes on.

HTA runs under --python (default /usr/bin/python3: Debian's interpreter, so
Debian's pandas, which is the baseline the comparison names) with
PYTHONPATH=HTA_CHECKOUT. visualize=False: the default would build a plotly
figure and try to show it, which measures a browser, not an import.
"""
import argparse
import gzip
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HTA_CHILD = """
import json, sys
from hta.trace_analysis import TraceAnalysis
df = TraceAnalysis(trace_dir=sys.argv[1]).get_comm_comp_overlap(visualize=False)
print("HTA_OVERLAP " + json.dumps({int(r): float(p) for r, p in zip(df["rank"], df["comp_comm_overlap_pctg"])}))
"""


class Outcome:
    """One child process: wall seconds, peak RSS in MB, stdout, and an error
    line (None when it exited 0 within its time)."""

    def __init__(self, wall, peak_mb, stdout, error):
        self.wall, self.peak_mb, self.stdout, self.error = wall, peak_mb, stdout, error


def run_timed(argv, env=None, timeout=None):
    """Runs argv in its own session; a timeout kills the whole session, so
    HTA's pool workers go with it."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err, env=env, start_new_session=True)
        fired = threading.Event()

        def kill():
            fired.set()
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        # wait4 rather than Popen.wait: it hands back the child's rusage.
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if timer:
            timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        lines = [l for l in err.read().decode("utf-8", "replace").splitlines() if l.strip()]
        error = None
        if fired.is_set():
            error = f"timed out after {timeout:.0f} s"
        elif child.returncode != 0:
            error = lines[-1] if lines else f"exit status {child.returncode}"
        return Outcome(wall, usage.ru_maxrss / 1024.0, stdout, error)


def best_of(runs, once):
    """The fastest of `runs` successful runs and the highest peak seen; stops
    at the first failure, since a timed-out HTA run would only time out again."""
    best, peak = None, 0.0
    for _ in range(runs):
        o = once()
        if o.error:
            return o
        peak = max(peak, o.peak_mb)
        if best is None or o.wall < best.wall:
            best = o
    best.peak_mb = peak
    return best


def hta_once(args, trace_dir):
    env = dict(os.environ, PYTHONPATH=args.hta_dir)
    o = run_timed([args.python, "-c", HTA_CHILD, trace_dir], env=env, timeout=args.hta_timeout)
    if not o.error:
        line = next((l for l in o.stdout.splitlines() if l.startswith("HTA_OVERLAP ")), None)
        if line is None:
            o.error = "HTA printed no overlap table"
        else:
            o.overlap = {int(k): v for k, v in json.loads(line[len("HTA_OVERLAP "):]).items()}
    return o


def braid_once(args, target):
    with tempfile.TemporaryDirectory() as d:
        o = run_timed([args.braid, "import", "kineto", target, "--db", os.path.join(d, "run.db"), "--json"])
    if not o.error:
        try:
            ranks = json.loads(o.stdout)["ranks"]
            o.overlap = {int(r["rank"]): float(r["hta"]["overlap_pct"]) for r in ranks}
        except (ValueError, KeyError, TypeError) as e:
            o.error = f"unreadable --json output ({e!r})"
    return o


def sizes_mb(paths):
    """Compressed and inflated size, the latter by streaming (a job's
    inflated total is larger than memory would like)."""
    packed = inflated = 0
    for p in paths:
        packed += os.path.getsize(p)
        if p.endswith(".gz"):
            with gzip.open(p, "rb") as f:
                while chunk := f.read(1 << 20):
                    inflated += len(chunk)
        else:
            inflated += os.path.getsize(p)
    return packed / 1e6, inflated / 1e6


def compare_overlap(label, hta, braid):
    """One line per rank when few, else a summary; a difference above 0.01
    (HTA rounds to two decimals) is a disagreement."""
    if hta.error or braid.error:
        return
    h, b = hta.overlap, braid.overlap
    if sorted(h) != sorted(b):
        print(f"  overlap {label}: rank sets differ (HTA {sorted(h)}, braid {sorted(b)}); paired in order")
        pairs = list(zip(sorted(h), sorted(b)))
    else:
        pairs = [(r, r) for r in sorted(h)]
    bad = [(rh, h[rh], b[rb]) for rh, rb in pairs if abs(h[rh] - b[rb]) > 0.01]
    if len(pairs) <= 8:
        for rh, rb in pairs:
            mark = "" if abs(h[rh] - b[rb]) <= 0.01 else "  DISAGREE"
            print(f"  overlap {label} rank {rh}: HTA {h[rh]:.2f} %  braid {b[rb]:.2f} %{mark}")
    else:
        worst = max(abs(h[rh] - b[rb]) for rh, rb in pairs)
        print(f"  overlap {label}: {len(pairs) - len(bad)}/{len(pairs)} ranks agree, max |diff| {worst:.2f} points")
        for r, hv, bv in bad[:8]:
            print(f"    rank {r}: HTA {hv:.2f} %  braid {bv:.2f} %  DISAGREE")


def check_hta(args):
    env = dict(os.environ, PYTHONPATH=args.hta_dir)
    o = run_timed([args.python, "-c", "import hta.trace_analysis"], env=env, timeout=120)
    if o.error:
        print(f"HTA cannot be imported by {args.python} with PYTHONPATH={args.hta_dir}: {o.error}", file=sys.stderr)
        sys.exit(2)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--braid", required=True)
    p.add_argument("--hta-dir", required=True, help="HTA checkout (the folder holding hta/)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--job", help="a directory of rank files, timed as one import")
    p.add_argument("--hta-timeout", type=float, default=600.0, help="seconds per HTA run")
    p.add_argument("--python", default="/usr/bin/python3", help="interpreter for HTA")
    p.add_argument("files", nargs="*")
    args = p.parse_args()
    if args.runs < 1 or not (args.files or args.job):
        p.error("need --runs >= 1 and at least one FILE or --job")
    check_hta(args)
    # Both sides are timed on the same machine in turn; a busy machine (a
    # build beside the run) slows them unequally, so the table says so.
    load_before = os.getloadavg()[0]

    rows = []
    for path in args.files:
        path = os.path.abspath(path)
        with tempfile.TemporaryDirectory() as d:
            # HTA takes a directory; the symlink makes it see this file alone.
            os.symlink(path, os.path.join(d, os.path.basename(path)))
            hta = best_of(args.runs, lambda: hta_once(args, d))
        braid = best_of(args.runs, lambda: braid_once(args, path))
        rows.append((os.path.basename(path), sizes_mb([path]), hta, braid))
    if args.job:
        job = os.path.abspath(args.job)
        names = sorted(n for n in os.listdir(job) if n.endswith((".json", ".json.gz")))
        hta = best_of(args.runs, lambda: hta_once(args, job))
        braid = best_of(args.runs, lambda: braid_once(args, job + "/"))
        label = f"{os.path.basename(job)}/ ({len(names)} files)"
        rows.append((label, sizes_mb([os.path.join(job, n) for n in names]), hta, braid))

    print(f"best of {args.runs} runs; HTA under {args.python}; peak = largest process (ru_maxrss); "
          f"1-min load {load_before:.2f} before, {os.getloadavg()[0]:.2f} after, {os.cpu_count()} CPUs")
    head = f"{'file':<40} {'gz MB':>7} {'json MB':>8} {'HTA s':>8} {'Braid s':>8} {'HTA/Braid':>9} {'HTA peak MB':>11} {'Braid peak MB':>13}"
    print(head)
    print("-" * len(head))
    for name, (gz, raw), hta, braid in rows:
        hs = ("timeout" if "timed out" in hta.error else "failed") if hta.error else f"{hta.wall:.2f}"
        bs = "failed" if braid.error else f"{braid.wall:.3f}"
        ratio = "-" if hta.error or braid.error else f"{hta.wall / braid.wall:.1f}x"
        hp = "-" if hta.error else f"{hta.peak_mb:.0f}"
        bp = "-" if braid.error else f"{braid.peak_mb:.0f}"
        print(f"{name:<40} {gz:>7.1f} {raw:>8.1f} {hs:>8} {bs:>8} {ratio:>9} {hp:>11} {bp:>13}")
    for name, _, hta, braid in rows:
        if hta.error:
            print(f"  HTA {name}: {hta.error}")
        if braid.error:
            print(f"  braid {name}: {braid.error}")
        compare_overlap(name, hta, braid)


if __name__ == "__main__":
    main()
