#!/usr/bin/env python3
"""README.md's sim examples, from the real commands, so they cannot go stale.

    python3 docs/readme_examples.py BRAID --write   # rewrite the blocks in README.md
    python3 docs/readme_examples.py BRAID --check   # exit 1 with a diff where they differ (a CTest)

Each example is a block of README.md between `<!-- example N -->` and
`<!-- /example N -->`: the commands as a reader types them (`braid` for the
binary), a blank line, then what they print. The commands run in a scratch
folder on the default sim backend, whose figures do not depend on the
machine; example 2 (the cpu backend, this machine's timings) is kept by hand.
"""
import difflib
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
UB_YAML = "bench/megatron_bridge/userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192.yaml"


def run(braid, cwd, args):
    """Runs `braid args` (a shell-free list), returns stdout; fails loudly."""
    out = subprocess.run([braid, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        sys.exit(f"readme_examples: braid {shlex.join(args)} exited {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def indent(text):
    return "".join(("    " + line).rstrip() + "\n" for line in text.rstrip("\n").split("\n"))


def example1(braid, cwd):
    shown = """for a in serial "chunked --chunks 4 --streams 2" "ring --chunks 4 --streams 2"; do
  braid run --op gemm_rs --m 8192 --n 8192 --k 8192 --tp 8 --algo $a --db braid.db > /dev/null
done
braid report --db braid.db
"""
    for algo in ("serial", "chunked --chunks 4 --streams 2", "ring --chunks 4 --streams 2"):
        run(braid, cwd, ["run", "--op", "gemm_rs", "--m", "8192", "--n", "8192", "--k", "8192", "--tp", "8",
                         "--algo", *algo.split(), "--db", "braid.db"])
    return shown + "\n" + run(braid, cwd, ["report", "--db", "braid.db"])


def example3(braid, cwd):
    tune = ["tune", "--op", "gemm_rs", "--m", "8192", "--n", "8192", "--k", "8192", "--tp", "8", "--topology",
            "h100-sxm", "--db", "braid.db", "--out", "presets.toml", "--no-progress"]
    lookup = ["presets", "lookup", "presets.toml", "--op", "gemm_rs", "--m", "8192", "--n", "8192", "--k", "8192",
              "--tp", "8"]
    shown = """braid tune --op gemm_rs --m 8192 --n 8192 --k 8192 --tp 8 --topology h100-sxm \\
    --db braid.db --out presets.toml --no-progress
braid presets lookup presets.toml --op gemm_rs --m 8192 --n 8192 --k 8192 --tp 8
"""
    return shown + "\n" + run(braid, cwd, tune) + run(braid, cwd, lookup)


def gemm_rows(text):
    """The per-op table of a block run: its header and the GEMM rows (ops with a config)."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("op (worst rank"))
    rows = [line for line in lines[start + 1:] if line.strip() and not line.rstrip().endswith("-")]
    rows = [line for line in rows if re.match(r"^\S+\.(fprop|dgrad|wgrad)\s", line)]
    return lines[start], rows


def makespan_p50(text):
    return next(line.split()[1] + " " + line.split()[2] for line in text.split("\n") if line.startswith("makespan"))


def example4(braid, cwd):
    yaml = str(ROOT / UB_YAML)
    block = ["--model", "llama3-70b", "--seq", "8192", "--tp", "4", "--phase", "train"]
    first = run(braid, cwd, ["run", *block, "--ub-cfgs", yaml, "--no-db"])
    header, rows = gemm_rows(first)
    table = "\n".join([header, *rows[:2], "...", *rows[-2:]])
    tuned = run(braid, cwd, ["tune", *block, "--runtime", "te", "--baseline", yaml, "--out", "te.toml", "--db",
                             "braid.db", "--no-progress"])
    whole = next(line for line in tuned.split("\n") if line.startswith("whole block"))
    run(braid, cwd, ["presets", "export-te", "te.toml", "--model", "llama3-70b", "--seq", "8192", "--batch", "1",
                     "--tp", "4", "--topology", "h100-sxm", "--phase", "train", "-o", "te.yaml"])
    again = run(braid, cwd, ["run", *block, "--ub-cfgs", "te.yaml", "--no-db"])
    return f"""Y={UB_YAML}
braid run --model llama3-70b --seq 8192 --tp 4 --phase train --ub-cfgs $Y --no-db

{table}

braid tune --model llama3-70b --seq 8192 --tp 4 --phase train --runtime te --baseline $Y --out te.toml
{whole}

braid presets export-te te.toml --model llama3-70b --seq 8192 --batch 1 --tp 4 --topology h100-sxm \\
    --phase train -o te.yaml
braid run --model llama3-70b --seq 8192 --tp 4 --phase train --ub-cfgs te.yaml   # {makespan_p50(again)}, as tuned
"""


EXAMPLES = {1: example1, 3: example3, 4: example4}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("--write", "--check"):
        sys.exit(__doc__.strip().split("\n\n")[1])
    braid = os.path.abspath(sys.argv[1])
    text = README.read_text(encoding="utf-8")
    wanted = text
    with tempfile.TemporaryDirectory() as cwd:
        for n, build in EXAMPLES.items():
            pattern = re.compile(rf"(<!-- example {n} -->\n\n)(.*?)(\n<!-- /example {n} -->)", re.S)
            if not pattern.search(wanted):
                sys.exit(f"readme_examples: README.md has no <!-- example {n} --> ... <!-- /example {n} --> block")
            body = indent(build(braid, cwd))
            wanted = pattern.sub(lambda m, body=body: m.group(1) + body + m.group(3), wanted)
    if sys.argv[2] == "--write":
        README.write_text(wanted, encoding="utf-8")
        return 0
    if wanted == text:
        return 0
    sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), wanted.splitlines(True), "README.md",
                                               "README.md from the commands"))
    print("readme_examples: README.md's examples differ from what the commands print now; "
          "run python3 docs/readme_examples.py build/release/cli/braid --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
