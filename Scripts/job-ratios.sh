#!/usr/bin/env bash
# Issue 23's ratios for one smsfilter binary, measured in one run (`make bench` prints them):
#
#   bash Scripts/job-ratios.sh BIN ARCHIVE.jsonl.zst [ROUNDS]        (ROUNDS default 3; medians)
#
# Per round, interleaved so that every figure sees the same load of a shared machine:
#   zstd -dc of the archive, and the codec floor `zstd -dc | zstd -1`;
#   classify --labels-only --threads 2, default (rules + model) and --rules embedded:rules;
#   the whole job to .jsonl.zst, default, --threads 2 (wall, CPU = user + system, peak RSS);
#   bench --matcher-only --threads 1 (32 MiB of bodies): the classifier and its bare automaton, default and
#   --rules embedded:rules.
# The ratios are the issue's goals: labels-only ÷ zstd -dc in CPU ≤ 8×; whole job ÷ codec floor in wall
# ≤ 2×; classifier with the model ÷ the rules alone ≥ 0.8×; the rules' classifier ÷ their bare automaton
# ≥ 0.6×; peak RSS of the whole job < 64 MiB. docs/PERFORMANCE.md quotes this script's tables.
set -euo pipefail
BIN=${1:?usage: job-ratios.sh BIN ARCHIVE [ROUNDS]}
IN=${2:?usage: job-ratios.sh BIN ARCHIVE [ROUNDS]}
ROUNDS=${3:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/smsfilter-job-ratios.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
RES=$WORK/results
: > "$RES"
BYTES=$(zstd -dcq "$IN" | wc -c)

timed() {  # label command...: appends "label wall cpu rss_kib"
  local label=$1; shift
  /usr/bin/time -o "$WORK/time" -f "%e %U %S %M" "$@" > /dev/null 2>&1
  echo "$label $(tail -1 "$WORK/time" | awk '{printf "%s %.2f %s", $1, $2 + $3, $4}')" >> "$RES"
}
bench() {  # label rules...: appends "label-matcher MB/s" and "label-automaton MB/s"
  local label=$1; shift
  "$BIN" bench "$IN" --matcher-only --threads 1 --repeat 1 --matcher-bytes 32M --json -q "$@" \
    | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(sys.argv[1] + "-matcher", round(r["matcher"]["mbPerSecond"], 1))
print(sys.argv[1] + "-automaton", round(r["automaton"]["mbPerSecond"], 1))' "$label" >> "$RES"
}

for r in $(seq 1 "$ROUNDS"); do
  echo "job-ratios: round $r of $ROUNDS" >&2
  timed zstd-dc zstd -dcq "$IN"
  timed floor bash -c "zstd -dcq '$IN' | zstd -q -1 -c"
  timed labels-default "$BIN" classify "$IN" -o - -q --threads 2 --labels-only
  timed labels-rules "$BIN" classify "$IN" -o - -q --threads 2 --labels-only --rules embedded:rules
  timed whole-default "$BIN" classify "$IN" -o "$WORK/out.jsonl.zst" -f -q --threads 2
  bench bench-default
  bench bench-rules --rules embedded:rules
done

python3 - "$RES" "$BYTES" "$IN" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, *v = line.split()
    rows.setdefault(k, []).append([float(x) for x in v])
med = lambda k, i=0: statistics.median(r[i] for r in rows[k])
n = len(rows["zstd-dc"])
print(f"{sys.argv[3]}: {int(sys.argv[2]):,} decoded bytes; medians of {n} rounds, 2 threads unless said")
print()
print("| measure | figure | goal |")
print("|---|---:|---|")
print(f"| `zstd -dc`: wall / CPU | {med('zstd-dc'):.2f} s / {med('zstd-dc', 1):.2f} s | |")
print(f"| codec floor `zstd -dc \\| zstd -1`: wall / CPU | {med('floor'):.2f} s / {med('floor', 1):.2f} s | |")
print(f"| `--labels-only`, default rules + model: wall / CPU | {med('labels-default'):.2f} s / {med('labels-default', 1):.2f} s | |")
print(f"| `--labels-only`, `--rules embedded:rules`: wall / CPU | {med('labels-rules'):.2f} s / {med('labels-rules', 1):.2f} s | |")
print(f"| whole job to .jsonl.zst, default: wall / CPU | {med('whole-default'):.2f} s / {med('whole-default', 1):.2f} s | |")
print(f"| labels-only default ÷ `zstd -dc`, CPU | **{med('labels-default', 1) / med('zstd-dc', 1):.1f}×** | ≤ 8× |")
print(f"| whole job ÷ codec floor, wall | **{med('whole-default') / med('floor'):.2f}×** | ≤ 2× |")
print(f"| bench --matcher-only --threads 1: classifier, default rules + model (body MB/s) | {med('bench-default-matcher'):.1f} | |")
print(f"| … rules alone (body MB/s) | {med('bench-rules-matcher'):.1f} | |")
print(f"| … bare automaton of the rules' phrases / of rules + model phrases (MB/s) | {med('bench-rules-automaton'):.0f} / {med('bench-default-automaton'):.0f} | |")
print(f"| classifier with the model ÷ the rules alone | **{med('bench-default-matcher') / med('bench-rules-matcher'):.2f}×** | ≥ 0.8× |")
print(f"| the rules' classifier ÷ their bare automaton | **{med('bench-rules-matcher') / med('bench-rules-automaton'):.2f}×** | ≥ 0.6× |")
print(f"| peak RSS, whole job, default | **{med('whole-default', 2) / 1024:.1f} MiB** | < 64 MiB |")
print(f"| peak RSS, labels-only, default | {med('labels-default', 2) / 1024:.1f} MiB | |")
PY
