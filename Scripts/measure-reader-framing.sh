#!/usr/bin/env bash
# Issue 23 item 3, "framing on the workers" (docs/PERFORMANCE.md, "The reader without the newline count"):
# the reader's serial per-byte work and the scaling from 1 to 2 threads, two smsfilter binaries side by side.
#
#   bash Scripts/measure-reader-framing.sh BEFORE_BIN AFTER_BIN [ROUNDS]      (ROUNDS default 2)
#
# 1. callgrind (load-independent): `classify g40k.jsonl.zst -o OUT.jsonl.zst -f -q --threads 1`
#    (`generate --count 40000 --seed 1`, plain JSONL compressed with `zstd -3`: one frame), on copies of the
#    binaries stripped of debug info. Inclusive instructions of the named functions, per decoded byte:
#      reader     _RecordReader.readAll minus _RecordReader.fill (framing, carry-over, hand-over; decoding
#                 is `fill`)
#      count      _countNewlines (all callers: the reader before, the workers' publishLines after)
#      publish    _Chunk.publishLines (the workers' count and the ledger's lock; after only)
#      ledger     _LineLedger.publish + firstLine + release
#      whole      the whole run (every thread)
# 2. The scaling table: `/usr/bin/time -v classify g200.jsonl.zst -o OUT.jsonl.zst -f -q --threads T`
#    (`generate --count 860000 --seed 1`, ~200 MB decoded, seekable), T = 1 and 2, BEFORE and AFTER
#    interleaved, ROUNDS rounds: wall, CPU (user + sys: the comparable column on a loaded machine), peak RSS.
# SKIP_CALLGRIND=1 or SKIP_TIME=1 leaves a part out.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:?usage: measure-reader-framing.sh BEFORE_BIN AFTER_BIN [ROUNDS]}
AFTER=${2:?usage: measure-reader-framing.sh BEFORE_BIN AFTER_BIN [ROUNDS]}
ROUNDS=${3:-2}
WORK=${WORK:-.build/bench}
mkdir -p "$WORK"

if [ "${SKIP_CALLGRIND:-0}" != 1 ]; then
  G=$WORK/g40k.jsonl
  [ -s "$G.zst" ] || { "$AFTER" generate --count 40000 --seed 1 -o "$G" --quiet; zstd -q -3 -f "$G" -o "$G.zst"; }
  GB=$(zstd -dcq "$G.zst" | wc -c)
  echo "callgrind: instructions per decoded byte ($GB bytes, 40,000 records, one frame)"
  for side in before after; do
    bin=$BEFORE; [ $side = after ] && bin=$AFTER
    cp "$bin" "$WORK/smsfilter-framing-$side"
    strip --strip-debug "$WORK/smsfilter-framing-$side"
    out=$WORK/callgrind-framing.$side
    valgrind --tool=callgrind --callgrind-out-file="$out" \
      "$WORK/smsfilter-framing-$side" classify "$G.zst" -o "$WORK/framing-out.$side.jsonl.zst" -f -q --threads 1 2>/dev/null
    cmp -s <(zstd -dcq "$WORK/framing-out.before.jsonl.zst" 2>/dev/null) <(zstd -dcq "$WORK/framing-out.$side.jsonl.zst") \
      || echo "  (outputs differ: $side)"
    total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null | python3 -c '
import re, sys
side, gb, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
keys = {"readAll": "_RecordReaderC7readAll", "fill": "_RecordReaderC4fill", "count": "_countNewlines",
        "publish": "_ChunkC12publishLines", "lpublish": "_LineLedgerC7publish", "lfirst": "_LineLedgerC9firstLine",
        "lrelease": "_LineLedgerC7release"}
got = dict.fromkeys(keys, 0)
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)", line)
    if not m: continue
    n = int(m.group(1).replace(",", ""))
    for k, name in keys.items():
        if name in m.group(2) and got[k] == 0: got[k] = n
reader = got["readAll"] - got["fill"]
ledger = got["lpublish"] + got["lfirst"] + got["lrelease"]
fill, count, publish = got["fill"], got["count"], got["publish"]
print(f"{side}: reader (readAll - fill) {reader / 1e6:.1f} M = {reader / gb:.2f}/byte; fill {fill / 1e6:.1f} M; "
      f"_countNewlines {count / 1e6:.1f} M = {count / gb:.2f}/byte; publishLines {publish / 1e6:.1f} M; "
      f"ledger {ledger / 1e6:.2f} M; whole run {total / 1e6:.1f} M")' "$side" "$GB" "$total"
  done
fi

if [ "${SKIP_TIME:-0}" != 1 ]; then
  G=$WORK/g200.jsonl.zst
  [ -s "$G" ] || "$AFTER" generate --count 860000 --seed 1 -o "$G" --quiet
  echo "scaling: classify $(zstd -dcq "$G" | wc -c) decoded bytes; round binary threads wall cpu(user+sys) maxrss(KB)"
  for r in $(seq 1 "$ROUNDS"); do
    for t in 1 2; do
      for side in before after; do
        bin=$BEFORE; [ $side = after ] && bin=$AFTER
        /usr/bin/time -v "$bin" classify "$G" -o "$WORK/scaling-out.jsonl.zst" -f -q --threads "$t" 2> "$WORK/time.txt"
        awk -v r="$r" -v s="$side" -v t="$t" '
          /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); wall = (n == 3) ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2] }
          /User time/ { u = $NF } /System time/ { sy = $NF } /Maximum resident/ { rss = $NF }
          END { printf "%s %s %s %.2f %.2f %d\n", r, s, t, wall, u + sy, rss }' "$WORK/time.txt"
      done
    done
  done
fi
