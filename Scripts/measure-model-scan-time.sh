#!/usr/bin/env bash
# The model's two scans in time (issue 36 item 1; docs/PERFORMANCE.md, "The model in the automaton", "In
# time"): the same binary run with the hashed scan (A, the default: `_ModelFeatures.swift`), with every model
# phrase in one automaton (B, SMSFILTER_MODEL_SCAN=automaton: the builder's compact DFA) and with the dense
# DFA (C, SMSFILTER_MODEL_SCAN=automaton-dfa), interleaved A,B,C,A,B,C… so that the other engineers' load
# falls on the three alike.
#
#   bash Scripts/measure-model-scan-time.sh [BIN]      (BIN default .build/release/smsfilter)
#
# Per corpus: ROUNDS rounds (default 9) of `classify FILE -o OUT -q --threads 1 --labels-only` under each
# scan (the default rules + model); user+sys CPU seconds and peak RSS from getrusage (python3); the median per
# scan, the ratio of the medians B/A and C/A, and the median and range of the per-round ratios (each round's
# B and C against the A of the same round). Corpora: the generated corpus (`generate --count GEN_COUNT
# --seed 1`, default 400,000 records: 93 MB decoded, start-up a few per cent of a run) and thai_sms,
# india_bank_sms, uci_sms_spam of ../shared/corpora, each concatenated (zstd frames one after the other) until
# it holds about 40 MB decoded. Start-up: `classify` of a one-record file, START_ROUNDS rounds (default 15).
# Matcher: `bench FILE --matcher-only --threads 1 --json --repeat 3` on `generate --count 200000 --seed 1`,
# A and B interleaved BENCH_ROUNDS times (default 5); the classifier's `matcher.mbPerSecond` (wall clock).
# Prints one Markdown table. WORK (default .build/model-scan-time) holds the corpora and the outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-.build/release/smsfilter}")
CORPORA=${CORPORA:-../shared/corpora}
WORK=${WORK:-.build/model-scan-time}
ROUNDS=${ROUNDS:-9}
START_ROUNDS=${START_ROUNDS:-15}
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
GEN_COUNT=${GEN_COUNT:-400000}
TARGET=${TARGET:-40000000}   # decoded bytes a shared corpus is repeated to
mkdir -p "$WORK"
SCANS=(hashed automaton automaton-dfa)

# The inputs.
gen=$WORK/generated-$GEN_COUNT.jsonl.zst
[ -s "$gen" ] || "$BIN" generate --count "$GEN_COUNT" --seed 1 -o "$gen" --force --quiet
bench_in=$WORK/generated-200000.jsonl.zst
[ -s "$bench_in" ] || "$BIN" generate --count 200000 --seed 1 -o "$bench_in" --force --quiet
one=$WORK/one.jsonl
[ -s "$one" ] || "$BIN" generate --count 1 --seed 1 -o "$one" --force --quiet
INPUTS=("generated $gen")
for c in thai_sms india_bank_sms uci_sms_spam; do
  src=$CORPORA/$c.jsonl.zst
  [ -s "$src" ] || continue
  bytes=$(zstd -dcq "$src" | wc -c)
  times=$(( (TARGET + bytes - 1) / bytes ))
  rep=$WORK/$c-x$times.jsonl.zst
  if [ ! -s "$rep" ]; then
    : > "$rep.tmp"
    for _ in $(seq "$times"); do cat "$src" >> "$rep.tmp"; done
    mv "$rep.tmp" "$rep"
  fi
  INPUTS+=("$c×$times $rep")
done
INPUTS+=("start-up (1 record) $one")

# user+sys CPU seconds (microseconds, where /usr/bin/time prints hundredths) and peak RSS (KiB) of a command.
rusage() {
  python3 -c 'import resource, subprocess, sys
if subprocess.run(sys.argv[1:]).returncode: sys.exit(1)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.6f %d" % (r.ru_utime + r.ru_stime, r.ru_maxrss))' "$@"
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f–%.3f", lo, hi }'; }

RES=$WORK/times.tsv   # name scan round cpu rss
: > "$RES"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for input in "${INPUTS[@]}"; do
  name=${input% *}; file=${input##* }
  rounds=$ROUNDS
  [[ $name == start-up* ]] && rounds=$START_ROUNDS
  bytes=$(if [[ $file == *.zst ]]; then zstd -dcq "$file"; else cat "$file"; fi | wc -c)
  for r in $(seq "$rounds"); do
    for scan in "${SCANS[@]}"; do
      read -r cpu m < <(SMSFILTER_MODEL_SCAN=$scan rusage \
        "$BIN" classify "$file" -o "$WORK/out-$scan.txt" --force -q --threads 1 --labels-only)
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$scan" "$r" "$cpu" "$m" "$bytes" >> "$RES"
    done
    cmp -s "$WORK/out-hashed.txt" "$WORK/out-automaton.txt" && cmp -s "$WORK/out-hashed.txt" "$WORK/out-automaton-dfa.txt" \
      || { echo "$name: the scans' labels differ" >&2; exit 1; }
  done
  echo "done: $name" >&2
done

# The matcher alone, A and B interleaved.
BRES=$WORK/bench.tsv
: > "$BRES"
for r in $(seq "$BENCH_ROUNDS"); do
  for scan in hashed automaton; do
    mb=$(SMSFILTER_MODEL_SCAN=$scan "$BIN" bench "$bench_in" --matcher-only --threads 1 --json --repeat 3 \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["matcher"]["mbPerSecond"])')
    printf '%s\t%s\t%s\n' "$scan" "$r" "$mb" >> "$BRES"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

col() { awk -F'\t' -v n="$1" -v s="$2" -v c="$3" '$1 == n && $2 == s { print $c }' "$RES"; }
ratios() {  # name scan: each round's scan ÷ hashed
  awk -F'\t' -v n="$1" -v s="$2" '$1 == n && $2 == "hashed" { a[$3] = $4 } $1 == n && $2 == s { b[$3] = $4 }
    END { for (r in b) if (a[r] > 0) print b[r] / a[r] }' "$RES"
}
echo "| input | decoded bytes | rounds | CPU s, A hashed | B automaton | C dense DFA | B/A | C/A | B/A per round, median (range) | C/A per round, median (range) | peak RSS MiB, A / B / C |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for input in "${INPUTS[@]}"; do
  name=${input% *}
  bytes=$(awk -F'\t' -v n="$name" '$1 == n { print $6; exit }' "$RES")
  n=$(col "$name" hashed 3 | wc -l)
  a=$(col "$name" hashed 4 | median); b=$(col "$name" automaton 4 | median); c=$(col "$name" automaton-dfa 4 | median)
  rss() { col "$name" "$1" 5 | median | awk '{ printf "%.1f", $1 / 1024 }'; }
  printf '| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f (%s) | %.3f (%s) | %s / %s / %s |\n' \
    "$name" "$bytes" "$n" "$a" "$b" "$c" "$(echo "$b / $a" | bc -l)" "$(echo "$c / $a" | bc -l)" \
    "$(ratios "$name" automaton | median)" "$(ratios "$name" automaton | range)" \
    "$(ratios "$name" automaton-dfa | median)" "$(ratios "$name" automaton-dfa | range)" \
    "$(rss hashed)" "$(rss automaton)" "$(rss automaton-dfa)"
done
ba=$(awk -F'\t' '$1 == "hashed" { print $3 }' "$BRES" | median)
bb=$(awk -F'\t' '$1 == "automaton" { print $3 }' "$BRES" | median)
echo
echo "| \`bench --matcher-only --threads 1\` (generate --count 200000 --seed 1), classifier MB/s, median of $BENCH_ROUNDS | A hashed | B automaton | B/A |"
echo "|---|---:|---:|---:|"
printf '| default rules + model | %.2f | %.2f | %.3f |\n' "$ba" "$bb" "$(echo "$bb / $ba" | bc -l)"
