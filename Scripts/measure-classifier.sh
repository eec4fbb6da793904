#!/usr/bin/env bash
# The issue-23 table (docs/PERFORMANCE.md, "The model's phrases without an automaton"): the classifier and
# the whole job of two smsfilter binaries side by side, interleaved in one run, medians of REPS rounds. Run
# on a noisy shared machine: compare the two columns of one run and the ratios, not absolute figures across
# runs.
#
#   bash Scripts/measure-classifier.sh BEFORE_BIN AFTER_BIN [REPS]       (REPS default 3)
#
# Input: `smsfilter generate --count 4300000 --seed 1` (about 1 GB of JSON Lines, seekable .zst of 4 MiB
# frames), made once in .build/bench/. Per round and binary:
#   bench --matcher-only --threads 1 (32 MiB of bodies): classifier and bare-automaton body MB/s, default
#     rules + model and `--rules embedded:rules`;
#   classify --labels-only --threads 2 (default; embedded:rules) and the whole job to .jsonl.zst, default,
#     under /usr/bin/time (wall, CPU = user + system, peak RSS);
# and per round `zstd -dc` and the codec floor `zstd -dc | zstd -1`.
# CALLGRIND=1 adds instructions per decoded byte of the model's scan (`_modelScanBatch`) and of the whole
# classification (`_classifyParsed`), `classify --threads 1 --labels-only` of 40,000 generated records,
# on copies of the binaries stripped of debug info (valgrind cannot read Swift's DWARF).
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:?usage: measure-classifier.sh BEFORE_BIN AFTER_BIN [REPS]}
AFTER=${2:?usage: measure-classifier.sh BEFORE_BIN AFTER_BIN [REPS]}
REPS=${3:-3}
WORK=${WORK:-.build/bench}
mkdir -p "$WORK"
IN=$WORK/gen4300k.jsonl.zst
[ -s "$IN" ] || "$AFTER" generate --count 4300000 --seed 1 -o "$IN" --quiet
BYTES=$(zstd -dcq "$IN" | wc -c)
RES=$WORK/measure-classifier.tsv
: > "$RES"

timed() {  # label command...: appends "label wall cpu rss_kib"
  local label=$1; shift
  /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S %M" "$@" > /dev/null 2>&1
  echo "$label $(tail -1 "$WORK/time.txt" | awk '{printf "%s %.2f %s", $1, $2 + $3, $4}')" >> "$RES"
}
bench() {  # label bin rules...: appends "label-matcher MB/s" and "label-automaton MB/s"
  local label=$1 bin=$2; shift 2
  "$bin" bench "$IN" --matcher-only --threads 1 --repeat 1 --matcher-bytes 32M --json -q "$@" \
    | python3 -c '
import json, sys
r = json.load(sys.stdin)
def mbs(k):
    f = r[k]
    return f["mbPerSecond"]
print(sys.argv[1] + "-matcher", round(mbs("matcher"), 1))
print(sys.argv[1] + "-automaton", round(mbs("automaton"), 1))' "$label" >> "$RES"
}

for r in $(seq 1 "$REPS"); do
  echo "round $r of $REPS" >&2
  timed zstd-dc zstd -dcq "$IN"
  timed floor bash -c "zstd -dcq '$IN' | zstd -q -1 -c"
  for side in before after; do
    bin=$BEFORE; [ $side = after ] && bin=$AFTER
    bench "$side-bench-default" "$bin"
    bench "$side-bench-rules" "$bin" --rules embedded:rules
    timed "$side-labels-default" "$bin" classify "$IN" -o /dev/null -q --threads 2 --labels-only
    timed "$side-labels-rules" "$bin" classify "$IN" -o /dev/null -q --threads 2 --labels-only --rules embedded:rules
    timed "$side-whole-default" "$bin" classify "$IN" -o "$WORK/out.jsonl.zst" -f -q --threads 2
  done
done
rm -f "$WORK/out.jsonl.zst"

python3 - "$RES" "$BYTES" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, *v = line.split()
    rows.setdefault(k, []).append([float(x) for x in v])
med = lambda k, i: statistics.median(r[i] for r in rows[k])
print(f"input: {int(sys.argv[2]):,} decoded bytes; medians of {len(rows['zstd-dc'])} rounds")
print(f"zstd -dc: {med('zstd-dc', 0):.2f} s wall / {med('zstd-dc', 1):.2f} s CPU;"
      f" codec floor (zstd -dc | zstd -1): {med('floor', 0):.2f} s / {med('floor', 1):.2f} s")
print("| measure | before | after | goal |")
print("|---|---:|---:|---|")
for label, key in [("`--labels-only`, default, 2 threads: wall / CPU", "labels-default"),
                   ("… `--rules embedded:rules`", "labels-rules"),
                   ("whole job to .jsonl.zst, default, 2 threads: wall / CPU", "whole-default")]:
    print(f"| {label} | " + " | ".join(f"{med(s + '-' + key, 0):.2f} s / {med(s + '-' + key, 1):.2f} s" for s in ("before", "after")) + " | |")
cells = lambda f: " | ".join(f(s) for s in ("before", "after"))
print(f"| labels-only default ÷ `zstd -dc`, CPU | " + cells(lambda s: f"{med(s + '-labels-default', 1) / med('zstd-dc', 1):.1f}×") + " | ≤ 8× |")
print(f"| whole job ÷ codec floor, wall | " + cells(lambda s: f"{med(s + '-whole-default', 0) / med('floor', 0):.2f}×") + " | ≤ 2× |")
print(f"| bench classifier, default rules + model (body MB/s) | " + cells(lambda s: f"{med(s + '-bench-default-matcher', 0):.1f}") + " | |")
print(f"| … ÷ the rules alone | " + cells(lambda s: f"{med(s + '-bench-default-matcher', 0) / med(s + '-bench-rules-matcher', 0):.2f}×") + " | ≥ 0.8× |")
print(f"| … rules alone (body MB/s) | " + cells(lambda s: f"{med(s + '-bench-rules-matcher', 0):.1f}") + " | |")
print(f"| … rules alone ÷ their bare automaton | " + cells(lambda s: f"{med(s + '-bench-rules-matcher', 0) / med(s + '-bench-rules-automaton', 0):.2f}×") + " | ≥ 0.6× |")
print(f"| bare automaton, rules' phrases / rules + model phrases (MB/s) | " + cells(lambda s: f"{med(s + '-bench-rules-automaton', 0):.0f} / {med(s + '-bench-default-automaton', 0):.0f}") + " | |")
print(f"| peak RSS, whole job, default, 2 threads | " + cells(lambda s: f"{med(s + '-whole-default', 2) / 1024:.1f} MiB") + " | < 64 MiB |")
print(f"| peak RSS, labels-only, default, 2 threads | " + cells(lambda s: f"{med(s + '-labels-default', 2) / 1024:.1f} MiB") + " | |")
EOF

if [ "${CALLGRIND:-0}" = 1 ]; then
  G=$WORK/gen40k.jsonl.zst
  [ -s "$G" ] || "$AFTER" generate --count 40000 --seed 1 -o "$G" --quiet --frame-size 0
  GB=$(zstd -dcq "$G" | wc -c)
  for side in before after; do
    bin=$BEFORE; [ $side = after ] && bin=$AFTER
    cp "$bin" "$WORK/smsfilter-$side"
    strip --strip-debug "$WORK/smsfilter-$side"
    for rules in default embedded:rules; do
      args=(); [ $rules = default ] || args=(--rules "$rules")
      out=$WORK/callgrind.$side.${rules//:/-}
      valgrind --tool=callgrind --callgrind-out-file="$out" "$WORK/smsfilter-$side" classify "$G" -o /dev/null -q \
        --threads 1 --labels-only "${args[@]}" 2>/dev/null
      callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null | python3 -c '
import re, sys
side, rules, gb = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = {"_modelScanBatch": None, "_classifyParsed": None, "PROGRAM TOTALS": None}
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)", line)
    if not m: continue
    n = int(m.group(1).replace(",", ""))
    for k in want:
        if k in m.group(2) and want[k] is None: want[k] = n
print(f"callgrind {side} {rules}: " + ", ".join(f"{k} {v / gb:.1f}/byte" for k, v in want.items() if v))' "$side" "$rules" "$GB"
    done
  done
fi
