#!/usr/bin/env bash
# The per-byte budget (issue 36 item 3; docs/PERFORMANCE.md, "The per-byte budget"): instructions per decoded
# input byte, counted by callgrind (repeatable: the load of a shared machine does not enter), per stage, and a
# check against the budget written in Benchmarks/budget.json. `make budget` runs it on the release binary.
#
#   bash Scripts/budget.sh [BIN] [--write]       (BIN default .build/release/smsfilter)
#
# Runs, each `classify FILE -o /dev/null -q --threads 1 --labels-only` under `valgrind --tool=callgrind`
# (a copy of BIN stripped of debug info: valgrind cannot read Swift's DWARF; SWIFT_DETERMINISTIC_HASHING=1):
#   - the generated corpus `generate --count 40000 --seed 1 --frame-size 0` (9.3 MB decoded, one frame),
#     with the default (rules + model) and with the rules alone (`--rules embedded:rules`), and its first
#     2,000 records with the default (to take the start-up out of the whole job, below);
#   - each corpus of ../shared/corpora named in the budget (when present), default and rules alone.
# Per run, per decoded byte (inclusive counts of the named functions, from `callgrind_annotate`):
#   read           _RecordReader.readAll: zstd decoding (ZSTD_decompressStream, shown apart) and framing
#   JSON scanning  _ParseScratch.parse
#   automaton      AhoCorasick.forEachMatch(in:spans:) with its match callbacks, plus (the bulk scan since
#                  issue 36's automaton work) AhoCorasick.forEachMatchState(in:spans:positions:) with its expansion of the
#                  match positions into matches
#   normalisation  Classifier._scanBatchNormalized minus the automaton
#   evaluation     Classifier._evaluate minus the model (senders, rules, body conditions, winner)
#   the model      Classifier._modelScoreCurrent (scored in _weigh, only where it can decide)
#   batch          Classifier._classifyBatch minus _scanBatch (or, inlined, _scanBatchNormalized and
#                  _modelPrepareBatch) and _evaluate (matches sorted by message)
#   classification BatchPipeline._classifyParsed (every classifier stage above)
#   writing        _ClassifyWorker.emit (the labels)
#   whole job      (all instructions of the run − those of the 2,000-record run) ÷ (its bytes − theirs):
#                  the job's cost per byte with the start-up (rules, model, tables) taken out
# The budget: Benchmarks/budget.json holds, per measure, the budget (the figures measured when it was written,
# plus a margin) and the issue's goal. The check FAILS (exit 1) when a measure exceeds its budget: the
# classification with the default and with the rules alone, and the whole job, on the generated corpus; the
# classification with the default and with the rules alone on each shared corpus present. A goal missed is
# printed, not failed. `--write` writes the budget anew from this run's figures (+ the file's margin); a
# change that adds rules or features states its cost against the budget before it does that.
# REUSE=1 re-reads the profiles of the last run (WORK, default .build/budget).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/smsfilter
WRITE=0
for a in "$@"; do
  case $a in
    --write) WRITE=1 ;;
    *) BIN=$a ;;
  esac
done
BUDGET=${BUDGET:-Benchmarks/budget.json}
CORPORA=${CORPORA:-../shared/corpora}
WORK=${WORK:-.build/budget}
[ -s "$BUDGET" ] || { echo "budget: no budget file at $BUDGET" >&2; exit 2; }
. Scripts/lib/callgrind.sh
callgrind_setup budget "$BIN" "$WORK"   # S: the stripped copy; G: the generated corpus
G2=$WORK/gen40k-first2k.jsonl.zst
[ -s "$G2" ] || zstd -dcq "$G" | sed -n 1,2000p | zstd -q -3 -o "$G2"

RES=$WORK/results.tsv
: > "$RES"
measure() {  # name file rules: one callgrind run, one line of figures in RES
  local name=$1 file=$2 rules=$3 args=() out
  [ "$rules" = default ] || args=(--rules "$rules")
  out=$WORK/callgrind.$name.${rules//:/-}
  if [ "${REUSE:-0}" != 1 ] || [ ! -s "$out" ]; then
    echo "budget: callgrind, $name, $rules" >&2
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
      "$S" classify "$file" -o /dev/null -q --threads 1 --labels-only "${args[@]}" 2> "$out.log" \
      || { echo "budget: the run failed ($out.log)" >&2; exit 2; }
  fi
  callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null | python3 -c '
import re, sys
name, rules, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
keys = {"total": "PROGRAM TOTALS", "read": "_RecordReaderC7readAll", "decode": "ZSTD_decompressStream",
        "json": "_ParseScratchC5parse", "automaton": "AhoCorasickAAC12forEachMatch2in5spans",
        "automatonStates": "AhoCorasickAAC17forEachMatchState2in5spans",
        "normalised": "ClassifierC20_scanBatchNormalized", "scanBatch": "ClassifierC10_scanBatch",
        "evaluate": "ClassifierC9_evaluate", "model": "ClassifierC18_modelScoreCurrent",
        "batch": "ClassifierC14_classifyBatch", "modelPrepare": "ClassifierC18_modelPrepareBatch",
        "classification": "_classifyParsed",
        "writing": "_ClassifyWorkerC4emit"}
got = dict.fromkeys(keys, 0)
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)", line)
    if not m: continue
    n = int(m.group(1).replace(",", ""))
    for k, sym in keys.items():
        # The first (largest) line of each: the function itself, not a closure or specialisation inside it.
        if sym in m.group(2) and got[k] == 0: got[k] = n
got["automaton"] += got["automatonStates"]
if got["classification"] == 0:
    sys.exit("budget: no _classifyParsed in the profile of " + name)
stages = {"read": got["read"], "decode": got["decode"], "json": got["json"], "automaton": got["automaton"],
          "normalisation": max(0, got["normalised"] - got["automaton"]) if got["normalised"] else 0,
          "evaluation": got["evaluate"] - got["model"], "model": got["model"],
          # (`_scanBatch` inlined into `_classifyBatch` leaves no line of its own: its two parts instead.)
          "batch": got["batch"] - (got["scanBatch"] or got["normalised"] + got["modelPrepare"]) - got["evaluate"],
          "classification": got["classification"], "writing": got["writing"], "total": got["total"]}
print(name, rules, nbytes, *(f"{k}={v}" for k, v in stages.items()))' "$name" "$rules" "$(zstd -dcq "$file" | wc -c)" >> "$RES"
}

measure generated "$G" default
measure generated "$G" embedded:rules
measure generated-first2k "$G2" default
for c in $(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1])).get("corpora", {})))' "$BUDGET"); do
  f=$CORPORA/$c.jsonl.zst
  if [ -s "$f" ]; then
    measure "$c" "$f" default
    measure "$c" "$f" embedded:rules
  else
    echo "budget: $f not present: its budget is not checked" >&2
  fi
done

python3 - "$RES" "$BUDGET" "$WRITE" "$BIN" <<'PY'
import datetime, json, math, subprocess, sys
res, path, write, binary = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
runs = {}
for line in open(res):
    name, rules, nbytes, *kv = line.split()
    runs[(name, rules)] = {"bytes": int(nbytes), **{k: int(v) for k, v in (x.split("=") for x in kv)}}
budget = json.load(open(path))
per = lambda r, k: r[k] / r["bytes"]

stages = [("read (decoding + framing)", "read"), ("… of which zstd decoding", "decode"), ("JSON scanning", "json"),
          ("the rules' automaton", "automaton"), ("normalisation", "normalisation"), ("the rules' evaluation", "evaluation"),
          ("the model", "model"), ("batch bookkeeping", "batch"), ("**classification**", "classification"),
          ("writing (labels)", "writing")]
names = [n for n in ["generated"] + list(budget.get("corpora", {})) if (n, "default") in runs]
print("Instructions per decoded byte (callgrind; `classify --threads 1 --labels-only`), default rules + model / rules alone:")
print()
print("| stage | " + " | ".join(names) + " |")
print("|---|" + "---:|" * len(names))
for label, k in stages:
    cells = []
    for n in names:
        d, r = runs[(n, "default")], runs[(n, "embedded:rules")]
        cells.append(f"{per(d, k):.2f} / {per(r, k):.2f}" if k not in ("model",) else f"{per(d, k):.2f} / –")
    print(f"| {label} | " + " | ".join(cells) + " |")
g, g2 = runs[("generated", "default")], runs[("generated-first2k", "default")]
whole = (g["total"] - g2["total"]) / (g["bytes"] - g2["bytes"])
print(f"| **whole job, `--labels-only`, default** (start-up taken out) | {whole:.2f} |" + " |" * (len(names) - 1))
print(f"\n(decoded bytes: " + ", ".join(f"{n} {runs[(n, 'default')]['bytes']:,}" for n in names) + ")")

measured = {("generated", "default"): per(g, "classification"),
            ("generated", "rules"): per(runs[("generated", "embedded:rules")], "classification"),
            ("generated", "wholeJob"): whole}
for n in names[1:]:
    measured[(n, "default")] = per(runs[(n, "default")], "classification")
    measured[(n, "rules")] = per(runs[(n, "embedded:rules")], "classification")

what = {"default": "classification, default rules + model", "rules": "classification, rules alone",
        "wholeJob": "whole job, --labels-only, default"}
margin = budget.get("margin", 0.03)
if write:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    budget["date"] = datetime.date.today().isoformat()
    budget["measuredAt"] = commit
    for (n, k), v in measured.items():
        entry = budget["generated"][k] if n == "generated" else budget["corpora"][n].setdefault(k, {})
        entry["measured"] = round(v, 2)
        entry["budget"] = math.ceil(v * (1 + margin) * 10) / 10
        if "goal" in entry:
            entry["goalNote"] = "met" if v <= entry["goal"] else f"goal, missed: {v:.1f} measured"
    with open(path, "w") as f:
        json.dump(budget, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"\nbudget: wrote {path} (measured + {margin:.0%})")

print(f"\nThe budget ({path}, written {budget['date']} at {budget.get('measuredAt', '?')}, machine {budget.get('machine', '?')}):\n")
print("| corpus | measure | now | budget | goal |")
print("|---|---|---:|---:|---|")
failed = []
for (n, k), v in measured.items():
    entry = budget["generated"].get(k) if n == "generated" else budget["corpora"].get(n, {}).get(k)
    if entry is None:
        continue
    over = v > entry["budget"]
    if over:
        failed.append(f"{n}: {what[k]} {v:.2f} > {entry['budget']}")
    goal = entry.get("goal")
    g_cell = "" if goal is None else (f"≤ {goal}: met" if v <= goal else f"≤ {goal}: missed, {v:.1f} measured")
    print(f"| {n} | {what[k]} | {v:.2f} | {entry['budget']}{' **OVER**' if over else ''} | {g_cell} |")
if failed:
    print("\nbudget: FAILED, over the budget: " + "; ".join(failed), file=sys.stderr)
    sys.exit(1)
print("\nbudget: every measure within its budget")
PY
