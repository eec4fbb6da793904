#!/usr/bin/env bash
# Measures the two goals of issue 24 (`make bench-spark`, after `make build`; not part of `make test-spark`):
#
#   1. Overhead of splitting at 256 MB splits: CPU (user + system, of the child processes) of
#      `smsfilter plan` plus one `smsfilter classify --range` per split, against one `smsfilter classify` of
#      the whole archive, all at --threads 1 (CPU rather than wall time, so that the machine's other load
#      blurs it less). The difference is everything splitting adds: the plan, each run's start (rules and
#      model loaded), the edges (the frame before a split decoded for its last byte, the archive's head read
#      for the format, the last record read on past END).
#   2. local[2] against one process: `smsfilter classify --threads 2` of the whole archive against
#      `spark-submit --master local[2] smsfilter_job.py --split-size SPLIT` (at least 8 splits), in pairs run
#      one after the other, wall times. The job's own time (its "in N s" line: plan to the last task) and
#      spark-submit's total (JVM, Python driver and workers included) are both given.
#
# Both with the embedded default rules and model (what the job runs without --rules), whole labelled records
# written (.zst), --threads-per-task 1. Prints a table and the medians; BENCH_OUT=FILE also writes them as
# JSON. The CPU columns of the pairs: classify's, and everything spark-submit waited for (the JVM, and the
# smsfilter and Python processes reaped under it).
#
# Environment: ROUNDS (pairs and overhead rounds, default 3), RECORDS (records generated, default 4,600,000:
# about 1.1 GB decoded, 260+ frames of 4 MiB), SPLIT (the job's --split-size, default 128M: 8 splits),
# ONLY (overhead or pairs: one of the two measures), PYTHON, KEEP_TMP=1, BENCH_DIR (where the archive is made
# and kept between runs; default a scratch folder).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN="$root/.build/release/smsfilter"
JOB="$here/smsfilter_job.py"
PYTHON="$(command -v "${PYTHON:-python3}" || true)"
ROUNDS=${ROUNDS:-3}
RECORDS=${RECORDS:-4600000}
SPLIT=${SPLIT:-128M}

fail() { printf 'bench-spark: FAIL: %s\n' "$*" >&2; exit 1; }
[ -x "$BIN" ] || fail "$BIN is missing: run \`make build\`"
[ -n "$PYTHON" ] || fail "python3 not found"
command -v java >/dev/null || fail "Spark needs Java 17 (\`make test-spark\` installs it)"
"$PYTHON" -c 'import pyspark' 2>/dev/null || fail "pyspark is not importable (\`make test-spark\` installs it)"
SPARK_SUBMIT="$("$PYTHON" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')/bin/spark-submit"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smsfilter-spark-bench.XXXXXX")
cleanup() { if [ "${KEEP_TMP:-0}" = 1 ]; then echo "bench-spark: kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT
DATA="${BENCH_DIR:-$TMP}"
mkdir -p "$DATA"
# The Spark configuration of test.sh (lib.sh): quiet, local, 1 GB for the driver.
# shellcheck source=integrations/spark/lib.sh
source "$here/lib.sh"
spark_quiet_local "$TMP" "$PYTHON"

ARCHIVE="$DATA/bench-$RECORDS.jsonl.zst"
if [ ! -s "$ARCHIVE" ]; then
    echo "bench-spark: generating $RECORDS records (seekable, 4 MiB frames) into $ARCHIVE"
    "$BIN" generate --count "$RECORDS" --seed 24 -o "$ARCHIVE" -q -f
fi

exec "$PYTHON" - "$BIN" "$JOB" "$SPARK_SUBMIT" "$ARCHIVE" "$TMP" "$ROUNDS" "$SPLIT" "${BENCH_OUT:-}" "${ONLY:-}" <<'PYEOF'
import json, os, platform, re, resource, statistics, subprocess, sys, time

binary, job, submit, archive, tmp, rounds, split, bench_out, only = sys.argv[1:10]
rounds = int(rounds)


def timed(args, **kw):
    """Runs args; returns (wall seconds, CPU seconds of the child, completed process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    done = subprocess.run(args, capture_output=True, **kw)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit("bench-spark: FAIL: %s exited %d: %s" % (args[:3], done.returncode,
                                                          done.stderr.decode(errors="replace")[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def plan(split_size):
    wall, cpu, done = timed([binary, "plan", "--json", "--split-size", split_size, archive])
    return wall, cpu, json.loads(done.stdout)


med = statistics.median


def load():
    return os.getloadavg()[0]


_, _, whole_plan = plan("1T")
decoded = whole_plan["decodedBytes"]
_, _, p256 = plan("256M")
_, _, pjob = plan(split)
print("bench-spark: %s: %d bytes, %d decoded, %d frames (%s); 256M: %d splits; %s: %d splits; %s, %d cores, load %.1f"
      % (os.path.basename(archive), os.path.getsize(archive), decoded, whole_plan["frames"], whole_plan["frameIndex"],
         len(p256["splits"]), split, len(pjob["splits"]), platform.platform(), os.cpu_count(), load()), flush=True)
if len(pjob["splits"]) < 8:
    sys.exit("bench-spark: FAIL: --split-size %s gives %d splits, not 8 or more" % (split, len(pjob["splits"])))

out = os.path.join(tmp, "out.jsonl.zst")
results = {"archive": {"bytes": os.path.getsize(archive), "decodedBytes": decoded, "frames": whole_plan["frames"]},
           "machine": "%s, %d cores" % (platform.platform(), os.cpu_count()), "overhead": [], "pairs": []}

# 1. Overhead at 256 MB splits (CPU, --threads 1). "start" is one run's fixed cost: a classify of an empty
# archive (process start, the default rules and model loaded, an empty output written).
empty = os.path.join(tmp, "empty.jsonl")
open(empty, "w").close()
print("\n1. splitting overhead, %d splits of 256M, --threads 1, CPU seconds" % len(p256["splits"]), flush=True)
print("   round  whole   plan   start  splits (sum)  plan + starts  all splits - whole   load", flush=True)
for r in range(rounds if only != "pairs" else 0):
    start_cpu = med([timed([binary, "classify", "-q", "-f", "--threads", "1", "-o", out + ".empty.zst", empty])[1]
                     for _ in range(5)])
    # The whole run first in odd rounds, last in even ones (the machine's load drifts).
    if r % 2 == 0:
        _, whole_cpu, _ = timed([binary, "classify", "-q", "-f", "--threads", "1", "-o", out, archive])
    plan_wall, plan_cpu, p = plan("256M")
    split_cpu = 0.0
    for s in p["splits"]:
        _, cpu, _ = timed([binary, "classify", "-q", "-f", "--threads", "1", "--range", s["range"], "-o", out, archive])
        split_cpu += cpu
    if r % 2 == 1:
        _, whole_cpu, _ = timed([binary, "classify", "-q", "-f", "--threads", "1", "-o", out, archive])
    fixed = (plan_cpu + len(p["splits"]) * start_cpu) / whole_cpu
    overhead = (plan_cpu + split_cpu - whole_cpu) / whole_cpu
    results["overhead"].append({"whole": whole_cpu, "plan": plan_cpu, "start": start_cpu, "splits": split_cpu,
                                "planAndStarts": fixed, "overhead": overhead, "load": load()})
    print("   %5d  %5.1f  %5.3f  %5.3f  %12.1f  %12.1f%%  %+17.1f%%  %5.1f"
          % (r + 1, whole_cpu, plan_cpu, start_cpu, split_cpu, 100 * fixed, 100 * overhead, load()), flush=True)

# 2. local[2] against classify --threads 2, in pairs.
print("\n2. local[2], --split-size %s (%d tasks), against classify --threads 2, wall seconds" % (split, len(pjob["splits"])),
      flush=True)
print("   pair  classify   job  total   job/classify  total/classify  CPU: classify  spark-submit  load", flush=True)
for r in range(rounds if only != "overhead" else 0):
    classify_wall, classify_cpu, _ = timed([binary, "classify", "-q", "-f", "--threads", "2", "-o", out, archive])
    manifest = os.path.join(tmp, "manifest.txt")
    open(manifest, "w").write(archive + "\n")
    total_wall, total_cpu, done = timed([submit, "--master", "local[2]", job, "--log-level", "ERROR", "--manifest", manifest,
                                 "--output-prefix", os.path.join(tmp, "job"), "--binary", binary, "--split-size", split,
                                 "--threads-per-task", "1"], stdin=subprocess.DEVNULL)
    text = (done.stdout + done.stderr).decode(errors="replace")
    found = re.search(r"smsfilter-job: 1 archives \(0 damaged\) in ([0-9.]+) s", text)
    tasks = re.search(r"split into (\d+) tasks", text)
    if not found or not tasks:
        sys.exit("bench-spark: FAIL: the job printed no summary:\n" + text[-3000:])
    job_wall = float(found.group(1))
    pair = {"classify": classify_wall, "job": job_wall, "total": total_wall, "tasks": int(tasks.group(1)),
            "classifyCPU": classify_cpu, "sparkSubmitCPU": total_cpu, "load": load()}
    results["pairs"].append(pair)
    print("   %4d  %8.1f  %5.1f  %5.1f   %12.2f  %14.2f  %13.1f  %12.1f  %4.1f"
          % (r + 1, classify_wall, job_wall, total_wall, job_wall / classify_wall, total_wall / classify_wall,
             classify_cpu, total_cpu, load()), flush=True)

def median_of(values):
    values = list(values)
    return med(values) if values else float("nan")


summary = {
    "planAndStartsMedian": median_of(o["planAndStarts"] for o in results["overhead"]),
    "overheadMedian": median_of(o["overhead"] for o in results["overhead"]),
    "jobOverClassifyMedian": median_of(p["job"] / p["classify"] for p in results["pairs"]),
    "totalOverClassifyMedian": median_of(p["total"] / p["classify"] for p in results["pairs"]),
}
results["summary"] = summary
print("\nmedians: at 256M splits, plan + per-task starts %.1f%% and all split runs against the whole run %+.1f%% "
      "(goal < 5%%); local[2] job / classify --threads 2 %.2f×, "
      "spark-submit total / classify %.2f× (goal ≤ 1.15×)"
      % (100 * summary["planAndStartsMedian"], 100 * summary["overheadMedian"], summary["jobOverClassifyMedian"], summary["totalOverClassifyMedian"]))
if bench_out:
    open(bench_out, "w").write(json.dumps(results, indent=2) + "\n")
PYEOF
