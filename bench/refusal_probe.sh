#!/usr/bin/env bash
# The hostile requests of issue 53, each run once with /usr/bin/time: what
# each costs to refuse (or to take) and what it says. One row per case:
#
#   case | exit | seconds | peak MB | store left | first line of stderr
#
#   bench/refusal_probe.sh [BRAID=build/release/cli/braid] [WORK=/tmp/braid_refusal_probe]
#
# The bar (issue 53): every refused request under 1 s and 200 MB, exit 2,
# one line, no store left behind. Builds its inputs in WORK (about 5 MB of
# gzip; the 2 GiB ones are made by streaming, never held).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
braid=$(realpath "${1:-$root/build/release/cli/braid}")
work=${2:-/tmp/braid_refusal_probe}
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# ---- inputs ----
python3 - <<'EOF'
import gzip, json, sqlite3, zlib, os

def gz_stream(path, head, body_block, blocks, tail):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        f.write(c.compress(head))
        for _ in range(blocks):
            f.write(c.compress(body_block))
        f.write(c.compress(tail))
        f.write(c.flush())

event = b'{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 1}}'
# Valid JSON padded with 2 GiB of spaces; 2 GiB of zeros.
gz_stream("spaces.json.gz", b'{"traceEvents": [' + event, b" " * (1 << 24), 128, b"]}")
gz_stream("zeros.json.gz", b"", bytes(1 << 24), 128, b"")
# A job whose rank and world size are 2^24.
os.makedirs("huge_rank", exist_ok=True)
with open("huge_rank/rank0.json", "w") as f:
    f.write('{"distributedInfo": {"rank": 16777215, "world_size": 16777216}, "traceEvents": [%s]}' % event.decode())
# An nsys export with one 20 MB kernel name used by 400 rows.
db = sqlite3.connect("long_name.sqlite")
db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
db.execute("INSERT INTO StringIds VALUES (1, ?)", ("k" * (20 << 20),))
db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
           " contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
           " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL)")
db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, 1, 1, 1)",
               [(1000 + 10 * i, 1005 + 10 * i, i) for i in range(400)])
db.commit()
db.close()
# The same with the 20 MB string as the NVTX range name of 400 ranges.
db = sqlite3.connect("long_nvtx.sqlite")
db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(1, "k"), (2, "r" * (20 << 20))])
db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
           " contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
           " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL)")
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 1005, 0, 1, 7, 1, 1, 1, 1)")
db.execute("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER, text TEXT,"
           " textId INTEGER, globalTid INTEGER)")
db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, NULL, 2, 1)", [(1000 + 10 * i, 1008 + 10 * i) for i in range(400)])
db.commit()
db.close()
# A GPU file with a rate no GPU has, and a topology naming it.
with open("tiny_gpu.toml", "w") as f:
    f.write('name = "tiny"\nsm_count = 132\ntflops_bf16 = 1e-300\ntflops_fp16 = 989\ntflops_fp32 = 67\n'
            'hbm_gbs = 3350\nhbm_efficiency = 0.8\ntile_m = 128\ntile_n = 128\nefficiency_bf16 = 0.8\n'
            'efficiency_fp16 = 0.8\nefficiency_fp32 = 0.7\nlaunch_us = 2.0\nevent_wait_us = 1.0\n'
            'copy_engines = 2\nsource = "probe"\n')
with open("tiny_topo.toml", "w") as f:
    f.write('name = "t"\ngpu = "%s/tiny_gpu.toml"\ngpus_per_node = 8\nnodes = 1\n[intra]\nkind = "nvlink"\n'
            'bandwidth_gbs = 450\nlatency_us = 2\nsource = "probe"\n' % os.getcwd())
# A "secret" file of another kind, for readers pointed at it.
with open("secret.toml", "w") as f:
    f.write('api_token_do_not_print = "x"\n')
# A preset file with direct for gemm_ar (run refuses that combination).
with open("direct_ar.toml", "w") as f:
    f.write('format = "braid-presets"\nversion = 5\n[[preset]]\ngpu = "h100-sxm"\ntopology = "h100-sxm"\n'
            'op = "gemm_ar"\nm = 4096\nn = 4096\nk = 4096\ntp = 8\ndtype = "bf16"\nalgorithm = "direct"\n'
            'chunks = 2\nstreams = 1\ncomm_sms = 0\ncomm_engine = "sm"\ncomm_priority = "high"\n'
            'time_ns = 1000.0\nspeedup_vs_serial = 1.0\nspeedup_vs_te_default = 1.0\noverlap_ratio = 0.5\n'
            'tail_ns = 10.0\nbackend = "sim"\nsimulated = true\nbraid_version = "0.1.0"\ndate = "2026-12-02"\n')
EOF
ln -s "$work/elsewhere.toml" "dangling.toml.lock"
newline_dir=$'new\nline'
mkdir -p "$newline_dir"

printf '%-44s | %4s | %7s | %7s | %-5s | %s\n' "case" "exit" "seconds" "peak MB" "store" "first line"
probe() {
  local name=$1 db=$2
  shift 2
  [[ -n $db ]] && rm -f "$db" "$db-wal" "$db-shm"
  set +e
  /usr/bin/time -f '%e %M' -o time.txt "$@" > out.txt 2> err.txt
  local rc=$?
  set -e
  read -r secs kb < <(tail -n 1 time.txt)
  local left=no
  [[ -n $db && -e $db ]] && left=yes
  printf '%-44s | %4s | %7s | %7s | %-5s | %s\n' "$name" "$rc" "$secs" "$((kb / 1024))" "$left" \
    "$(head -n 1 err.txt | cut -c1-150)"
}

probe "kineto: 2 GiB of spaces in gzip" p.db "$braid" import kineto spaces.json.gz --db p.db
probe "kineto: 2 GiB of zeros in gzip" p.db "$braid" import kineto zeros.json.gz --db p.db
probe "kineto: rank and world 2^24" p.db "$braid" import kineto huge_rank --db p.db
probe "nsys: a 20 MB name on 400 rows (taken, cut)" p.db "$braid" import nsys long_name.sqlite --db p.db
probe "nsys: a 20 MB NVTX name on 400 ranges" p.db "$braid" import nsys long_nvtx.sqlite --db p.db
probe "tune --iters 1000000" p.db "$braid" tune --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 --iters 1000000 \
  --no-progress --db p.db --out out.toml
probe "run --seq 6148914691236517206 --batch 3" p.db "$braid" run --model llama3-8b --seq 6148914691236517206 \
  --batch 3 --tp 8 --algo ring --db p.db
probe "run --seq 4G --batch 4G" p.db "$braid" run --model llama3-8b --seq 4G --batch 4G --tp 8 --algo ring --db p.db
probe "run on a GPU of tflops_bf16 1e-300" p.db "$braid" run --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 8 \
  --algo ring --topology tiny_topo.toml --db p.db
probe "run --iters 2000000" p.db "$braid" run --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 --algo ring --iters 2000000 --db p.db
probe "run with 40M events" p.db "$braid" run --model llama3-8b --seq 4096 --tp 8 --phase train --algo ring \
  --chunks 8 --iters 3000 --db p.db
probe "presets lookup: direct for gemm_ar" "" "$braid" presets lookup direct_ar.toml --op gemm_ar --m 4096 \
  --n 4096 --k 4096 --tp 8
probe "topology file that is another kind" p.db "$braid" run --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 \
  --algo ring --topology secret.toml --db p.db
probe "a newline in --db's folder" "" "$braid" run --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 \
  --db "$newline_dir/x/p.db"
probe "tune --out at a dangling symlink lock" p.db "$braid" tune --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 \
  --iters 1 --warmup 0 --no-progress --db p.db --out dangling.toml
[[ -e elsewhere.toml ]] && echo "!! the lock's symlink target was created" || echo "(the lock's symlink target was not created)"
if grep -q api_token_do_not_print err.txt out.txt 2>/dev/null; then echo "!! a key of the other file was echoed"; fi
