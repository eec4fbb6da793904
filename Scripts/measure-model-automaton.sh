#!/usr/bin/env bash
# The model's two ways of finding its phrases, side by side (issue 36 item 1; docs/PERFORMANCE.md, "The model
# in the automaton"): the hashed scan (`_ModelFeatures.swift`, the default) and one Aho-Corasick automaton
# over every phrase (`_ModelAutomaton.swift`, chosen by SMSFILTER_MODEL_SCAN=automaton), on the same binary
# and the same models.
#
#   bash Scripts/measure-model-automaton.sh [BIN]      (BIN default .build/release/smsfilter)
#
# Models: the default (rules + embedded model) on the generated corpus (`generate --count 40000 --seed 1
# --frame-size 0`, as Scripts/budget.sh) and on each corpus of ../shared/corpora; and models learned with
# `smsfilter learn`'s defaults (word uni- and bigrams, text n-grams 1–4) on uci_sms_spam and on thai_sms,
# each run on its own corpus (`--rules MODEL.yaml`: the model alone).
# Per run and scan: `classify FILE -o /dev/null -q --threads 1 --labels-only` under callgrind (a copy of BIN
# stripped of debug info; SWIFT_DETERMINISTIC_HASHING=1), `Classifier._modelScoreCurrent` inclusive (the
# model's stage, as budget.sh reads it) per decoded byte; with CACHE=1 also callgrind's cache simulation
# (D1 and last-level data misses of that function, per 1,000 decoded bytes). Agreement: `classify --explain`
# of the whole corpus (labels, folders, deciding phrases and spans) under both scans, compared with `cmp`.
# SMSFILTER_MODEL_SCAN_VERBOSE=1 makes the binary name the automaton it built (engine, size) on standard error.
# Prints one Markdown table. WORK (default .build/model-automaton) keeps the profiles; REUSE=1 re-reads them.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/smsfilter}
CORPORA=${CORPORA:-../shared/corpora}
WORK=${WORK:-.build/model-automaton}
. Scripts/lib/callgrind.sh
callgrind_setup measure-model-automaton "$BIN" "$WORK"   # S: the stripped copy; G: the generated corpus

# The learned models (learn's defaults; the labels mapped as docs/QUALITY.md does).
learn() {  # name corpus map
  local out=$WORK/$1.yaml
  [ "${REUSE:-0}" = 1 ] && [ -s "$out" ] && return
  "$S" learn --quiet --force --map "$3" -o "$out" "$2"
}
RUNS=("generated $G default")
for c in uci_sms_spam thai_sms india_bank_sms nus_sms_zh mudou_spam_zh; do
  [ -s "$CORPORA/$c.jsonl.zst" ] && RUNS+=("$c $CORPORA/$c.jsonl.zst default")
done
if [ -s "$CORPORA/uci_sms_spam.jsonl.zst" ]; then
  learn uci-learned "$CORPORA/uci_sms_spam.jsonl.zst" 'spam=junk,ham=none'
  RUNS+=("uci_sms_spam/learned $CORPORA/uci_sms_spam.jsonl.zst $WORK/uci-learned.yaml")
fi
if [ -s "$CORPORA/thai_sms.jsonl.zst" ]; then
  learn thai-learned "$CORPORA/thai_sms.jsonl.zst" 'OTP=transaction,scam=junk,spam=promotion,OK=none'
  RUNS+=("thai_sms/learned $CORPORA/thai_sms.jsonl.zst $WORK/thai-learned.yaml")
fi

# The automaton's engine: `automaton` (the builder's choice: the compact DFA for the default model),
# `automaton-dfa` (dense), `automaton-compact`, `automaton-nfa`; AUTOMATA lists those to measure.
AUTOMATA=${AUTOMATA:-automaton automaton-dfa}
CACHE_ARGS=()
[ "${CACHE:-0}" = 1 ] && CACHE_ARGS=(--cache-sim=yes)
RES=$WORK/results.tsv
: > "$RES"
for run in "${RUNS[@]}"; do
  read -r name file rules <<< "$run"
  args=()
  [ "$rules" = default ] || args=(--rules "$rules")
  tag=${name//\//-}
  bytes=$(zstd -dcq "$file" | wc -c)
  for scan in hashed $AUTOMATA; do
    env=()
    [ "$scan" = hashed ] || env=(SMSFILTER_MODEL_SCAN="$scan")
    out=$WORK/callgrind.$tag.$scan
    if [ "${REUSE:-0}" != 1 ] || [ ! -s "$out" ]; then
      echo "measure-model-automaton: callgrind, $name, $scan" >&2
      env SWIFT_DETERMINISTIC_HASHING=1 "${env[@]}" valgrind --tool=callgrind "${CACHE_ARGS[@]}" --callgrind-out-file="$out" \
        "$S" classify "$file" -o /dev/null -q --threads 1 --labels-only "${args[@]}" 2> "$out.log" \
        || { echo "measure-model-automaton: the run failed ($out.log)" >&2; exit 2; }
      env "${env[@]}" "$S" classify "$file" -o "$WORK/explain.$tag.$scan.jsonl" -q -f --threads 1 --explain "${args[@]}"
    fi
    callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null | python3 -c '
import re, sys
name, scan, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
events, got = None, None
for line in sys.stdin:
    if line.startswith("Events shown:"):
        events = line.split(":", 1)[1].split()
    m = re.match(r"\s*((?:[\d,]+\s+(?:\([^)]*\)\s+)?)+)(\S.*)", line)
    if got is not None or not m or events is None or "ClassifierC18_modelScoreCurrent" not in m.group(2): continue
    nums = [int(x.replace(",", "")) for x in re.findall(r"[\d,]+(?=\s)", m.group(1))]
    got = dict(zip(events, nums))
if got is None: sys.exit("measure-model-automaton: no _modelScoreCurrent in the profile of " + name)
print(name, scan, nbytes, *(f"{k}={v}" for k, v in got.items()))' "$name" "$scan" "$bytes" >> "$RES"
  done
  for scan in $AUTOMATA; do
    if cmp -s "$WORK/explain.$tag.hashed.jsonl" "$WORK/explain.$tag.$scan.jsonl"; then
      echo "$name agree $scan identical" >> "$RES"
    else
      d=$(diff "$WORK/explain.$tag.hashed.jsonl" "$WORK/explain.$tag.$scan.jsonl" | grep -c '^<' || true)
      echo "$name agree $scan differ:$d" >> "$RES"
    fi
  done
done

python3 - "$RES" "$AUTOMATA" <<'PY'
import sys
rows, agree, order = {}, {}, []
automata = sys.argv[2].split()
for line in open(sys.argv[1]):
    f = line.split()
    if f[1] == "agree":
        agree[(f[0], f[2])] = f[3]
        continue
    name, scan, nbytes = f[0], f[1], int(f[2])
    if name not in order: order.append(name)
    rows[(name, scan)] = {"bytes": nbytes, **{k: int(v) for k, v in (x.split("=") for x in f[3:])}}
cache = any("D1mr" in r for r in rows.values())
print("Instructions of the model's stage (`Classifier._modelScoreCurrent`, inclusive) per decoded byte" +
      ("; data-cache misses (callgrind's simulation: D1 = first level, LL = last level, reads + writes) per 1,000 decoded bytes" if cache else "") + ":")
print()
head = "| run | hashed scan |" + "".join(f" {a} | ÷ hashed |" for a in automata)
if cache: head += " D1 misses, hashed |" + "".join(f" {a} |" for a in automata) + " LL misses, hashed |" + "".join(f" {a} |" for a in automata)
head += " `classify --explain` the same |"
print(head)
print("|---|" + "---:|" * (1 + 2 * len(automata) + (2 + 2 * len(automata) if cache else 0)) + "---|")
d1 = lambda r: (r.get("D1mr", 0) + r.get("D1mw", 0)) * 1000 / r["bytes"]
ll = lambda r: (r.get("DLmr", 0) + r.get("DLmw", 0)) * 1000 / r["bytes"]
for n in order:
    h = rows[(n, "hashed")]
    b = h["bytes"]
    line = f"| {n} | {h['Ir'] / b:.2f} |"
    for a in automata:
        r = rows[(n, a)]
        line += f" {r['Ir'] / b:.2f} | {r['Ir'] / h['Ir']:.2f}× |"
    if cache:
        line += f" {d1(h):.2f} |" + "".join(f" {d1(rows[(n, a)]):.2f} |" for a in automata)
        line += f" {ll(h):.3f} |" + "".join(f" {ll(rows[(n, a)]):.3f} |" for a in automata)
    line += " " + ", ".join(f"{a}: {agree.get((n, a), '?')}" for a in automata) + " |"
    print(line)
print()
print("(decoded bytes: " + ", ".join(f"{n} {rows[(n, 'hashed')]['bytes']:,}" for n in order) + ")")
PY
