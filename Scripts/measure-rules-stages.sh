#!/usr/bin/env bash
# Issue 23 item 2 (docs/PERFORMANCE.md, "The rules' per-message work"): the classifier's per-message work
# beyond the automaton, two smsfilter binaries side by side.
#
#   bash Scripts/measure-rules-stages.sh BEFORE_BIN AFTER_BIN [REPS]      (REPS default 5)
#
# 1. callgrind (load-independent): `classify --threads 1 --labels-only` of 40,000 generated records
#    (`generate --count 40000 --seed 1`, one frame), `--rules embedded:rules` and the default rules + model,
#    on copies of the binaries stripped of debug info (valgrind cannot read Swift's DWARF). Instructions per
#    decoded input byte, per stage (inclusive counts of the named functions):
#      scan         AhoCorasick.forEachMatch(in:spans:) with its match callbacks (Latin word test, append)
#      normalise    Classifier._scanBatchNormalized minus the scan (unchanged-body checks, rewrites, split)
#      evaluate     Classifier._evaluate (sender, rules, body conditions, winner), of which
#        features   _BodyFeatures.scan (URLs, phone numbers, amounts)
#        senders    SenderInfo.classify and Classifier._senderMatches
#      batch        Classifier._classifyBatch minus _scanBatch and _evaluate (match sort by message)
#      model        Classifier._modelScanBatch (default rules + model only; binaries before the lazy model of
#                   2026-11-27), or Classifier._modelScoreCurrent (after: called from _evaluate, so it is
#                   taken out of the evaluate figure)
#      classify     BatchPipeline._classifyParsed (everything above)
# 2. `bench --matcher-only --threads 1 --repeat 1` on the same records, BEFORE and AFTER interleaved, REPS
#    rounds, medians: classifier and bare-automaton body MB/s for `--rules embedded:rules` and the default.
# SKIP_CALLGRIND=1 or SKIP_BENCH=1 leaves a part out; REUSE=1 re-reads the callgrind profiles of the last run.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:?usage: measure-rules-stages.sh BEFORE_BIN AFTER_BIN [REPS]}
AFTER=${2:?usage: measure-rules-stages.sh BEFORE_BIN AFTER_BIN [REPS]}
REPS=${3:-5}
WORK=${WORK:-.build/bench}
mkdir -p "$WORK"
G=$WORK/gen40k.jsonl.zst
[ -s "$G" ] || "$AFTER" generate --count 40000 --seed 1 -o "$G" --quiet --frame-size 0
GB=$(zstd -dcq "$G" | wc -c)

if [ "${SKIP_CALLGRIND:-0}" != 1 ]; then
  echo "callgrind: instructions per decoded byte ($GB bytes, 40,000 records)"
  for side in before after; do
    bin=$BEFORE; [ $side = after ] && bin=$AFTER
    cp "$bin" "$WORK/smsfilter-stages-$side"
    strip --strip-debug "$WORK/smsfilter-stages-$side"
  done
  for rules in embedded:rules default; do
    for side in before after; do
      args=(); [ $rules = default ] || args=(--rules "$rules")
      out=$WORK/callgrind-stages.$side.${rules//:/-}
      # (REUSE=1: annotate the profiles of an earlier run again.)
      [ "${REUSE:-0}" = 1 ] && [ -s "$out" ] || valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$WORK/smsfilter-stages-$side" classify "$G" -o /dev/null -q --threads 1 --labels-only "${args[@]}" 2>/dev/null
      callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null | python3 -c '
import re, sys
side, rules, gb = sys.argv[1], sys.argv[2], int(sys.argv[3])
keys = {"scan": "AhoCorasickAAC12forEachMatch2in5spans", "normalised": "ClassifierC20_scanBatchNormalized",
        "scanBatch": "ClassifierC10_scanBatch", "evaluate": "ClassifierC9_evaluate", "features": "_BodyFeaturesC4scan",
        "senderInfo": "SenderInfoV8classify_18defaultCountryCode", "senderMatches": "ClassifierC14_senderMatches",
        "batch": "ClassifierC14_classifyBatch", "model": "ClassifierC15_modelScanBatch",
        "modelLazy": "ClassifierC18_modelScoreCurrent", "classify": "_classifyParsed"}
got = dict.fromkeys(keys, 0)
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)", line)
    if not m: continue
    n = int(m.group(1).replace(",", ""))
    for k, name in keys.items():
        # The first (largest) line of each: the function itself, not a closure or specialisation inside it.
        if name in m.group(2) and got[k] == 0: got[k] = n
stages = {
    "scan": got["scan"],
    "normalise": max(0, got["normalised"] - got["scan"]) if got["normalised"] else 0,
    "evaluate": got["evaluate"] - got["modelLazy"],
    "  features": got["features"],
    "  senders": got["senderInfo"] + got["senderMatches"],
    "batch": got["batch"] - got["scanBatch"] - got["evaluate"],
    "model": got["model"] + got["modelLazy"],
    "classify": got["classify"],
}
print(f"{side} {rules}: " + ", ".join(f"{k.strip()} {v / gb:.2f}" for k, v in stages.items()))' "$side" "$rules" "$GB"
    done
  done
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  RES=$WORK/measure-rules-stages.tsv
  : > "$RES"
  for r in $(seq 1 "$REPS"); do
    echo "bench round $r of $REPS" >&2
    for side in before after; do
      bin=$BEFORE; [ $side = after ] && bin=$AFTER
      for rules in embedded:rules default; do
        args=(); [ $rules = default ] || args=(--rules "$rules")
        "$bin" bench "$G" --matcher-only --threads 1 --repeat 1 --json -q "${args[@]}" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(sys.argv[1], r["matcher"]["mbPerSecond"], r["automaton"]["mbPerSecond"])' "$side-$rules" >> "$RES"
      done
    done
  done
  python3 - "$RES" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, m, a = line.split()
    rows.setdefault(k, []).append((float(m), float(a)))
med = lambda k, i: statistics.median(r[i] for r in rows[k])
print(f"bench --matcher-only --threads 1, body MB/s, medians of {len(rows['before-default'])} interleaved rounds")
print("| measure | before | after |")
print("|---|---:|---:|")
for s in ("before", "after"):
    pass
cell = lambda f: " | ".join(f(s) for s in ("before", "after"))
print("| classifier, `--rules embedded:rules` | " + cell(lambda s: f"{med(s + '-embedded:rules', 0):.1f}") + " |")
print("| its bare automaton | " + cell(lambda s: f"{med(s + '-embedded:rules', 1):.1f}") + " |")
print("| rules alone ÷ their automaton (goal ≥ 0.6×) | " + cell(lambda s: f"{statistics.median(m / a for m, a in rows[s + '-embedded:rules']):.2f}×") + " |")
print("| classifier, default rules + model | " + cell(lambda s: f"{med(s + '-default', 0):.1f}") + " |")
print("| default ÷ rules alone (goal ≥ 0.8×) | " + cell(lambda s: f"{med(s + '-default', 0) / med(s + '-embedded:rules', 0):.2f}×") + " |")
EOF
fi
