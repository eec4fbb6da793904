#!/usr/bin/env bash
# Single- and multi-frame input, whole job (docs/PERFORMANCE.md, "Single- and multi-frame input, whole job"):
# one smsfilter binary on the same records compressed three ways, beside zstd, interleaved, medians.
#
#   bash Scripts/measure-frames.sh BIN [REPS] [COUNT]       (REPS default 3; COUNT default 1000000)
#
# Input, made once in $WORK (default .build/bench): `BIN generate --count COUNT --seed 1` (1,000,000 records:
# 237 MB of JSON Lines) as one frame (`zstd -3`), as `pzstd -p 2 -3` and as smsfilter's seekable output
# (`generate -o …jsonl.zst`, 4 MiB frames and a seek table). Per round and input, under
# `/usr/bin/time -f "%e %U %S %M"` (wall, CPU = user + system, peak RSS):
#   zstd -q -dc IN > /dev/null;  zstd -q -dc IN | zstd -q -1 -c > OUT (the codec floor);
#   BIN classify IN -o OUT.jsonl.zst -f -q --threads 2 [--rules embedded:rules];
#   BIN classify IN -o /dev/null -q --threads 2 --labels-only [--rules embedded:rules].
# "rules" is `--rules embedded:rules`, "default" the embedded rules and model (no --rules).
#
# Added on 2026-11-27: the section's figures (2026-11-23) were measured with the session's
# /tmp/par/m/measure.sh, which ran these commands; this script runs the same commands and was not used
# to re-measure them.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: measure-frames.sh BIN [REPS] [COUNT]}
REPS=${2:-3}
COUNT=${3:-1000000}
WORK=${WORK:-.build/bench}
mkdir -p "$WORK"
JSONL=$WORK/frames-$COUNT.jsonl
ONE=$WORK/frames-$COUNT.one.zst
PZ=$WORK/frames-$COUNT.pzstd.zst
SEEK=$WORK/frames-$COUNT.seek.jsonl.zst
[ -s "$SEEK" ] || "$BIN" generate --count "$COUNT" --seed 1 -o "$SEEK" -f --quiet
if [ ! -s "$ONE" ] || [ ! -s "$PZ" ]; then
  zstd -q -dc "$SEEK" > "$JSONL"
  zstd -q -3 -f "$JSONL" -o "$ONE"
  pzstd -q -p 2 -3 -f "$JSONL" -o "$PZ"
  rm -f "$JSONL"
fi
RES=$WORK/measure-frames.tsv
: > "$RES"

timed() {  # input label command...: appends "input label wall cpu rss_kib"
  local input=$1 label=$2; shift 2
  /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S %M" "$@" > /dev/null 2>&1
  echo "$input $label $(tail -1 "$WORK/time.txt" | awk '{printf "%s %.2f %s", $1, $2 + $3, $4}')" >> "$RES"
}

for r in $(seq 1 "$REPS"); do
  echo "round $r of $REPS" >&2
  for input in one pzstd seekable; do
    case $input in one) IN=$ONE ;; pzstd) IN=$PZ ;; seekable) IN=$SEEK ;; esac
    timed $input zstd-dc zstd -q -dc "$IN"
    timed $input floor bash -c "zstd -q -dc '$IN' | zstd -q -1 -c > '$WORK/floor.zst'"
    timed $input whole-rules "$BIN" classify "$IN" -o "$WORK/out.jsonl.zst" -f -q --threads 2 --rules embedded:rules
    timed $input whole-default "$BIN" classify "$IN" -o "$WORK/out.jsonl.zst" -f -q --threads 2
    timed $input labels-rules "$BIN" classify "$IN" -o /dev/null -q --threads 2 --labels-only --rules embedded:rules
    timed $input labels-default "$BIN" classify "$IN" -o /dev/null -q --threads 2 --labels-only
  done
done
rm -f "$WORK/out.jsonl.zst" "$WORK/floor.zst"

python3 - "$RES" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    input, label, *v = line.split()
    rows.setdefault((input, label), []).append([float(x) for x in v])
med = lambda k, i: statistics.median(r[i] for r in rows[k])
ratio = lambda a, b: f"{a / b:.2f}×" if b > 0 else "–"
names = {"one": "one frame", "pzstd": "pzstd", "seekable": "seekable"}
commands = [("zstd-dc", "`zstd -dc`"), ("floor", "`zstd -dc \\| zstd -1` (codec floor)"),
            ("whole-rules", "classify → .zst, rules"), ("whole-default", "classify → .zst, default"),
            ("labels-rules", "`--labels-only`, rules"), ("labels-default", "`--labels-only`, default")]
print(f"medians of {len(rows[('one', 'zstd-dc')])} rounds")
print("| input | command | wall | CPU | peak RSS | wall / `zstd -dc` | wall / codec floor |")
print("|---|---|---:|---:|---:|---:|---:|")
for input in ("one", "pzstd", "seekable"):
    for key, text in commands:
        k = (input, key)
        cells = [f"{med(k, 0):.2f} s", f"{med(k, 1):.2f} s", f"{med(k, 2) / 1024:.1f} MiB", "", ""]
        if key == "zstd-dc" or key.startswith("labels"):
            cells[3] = ratio(med(k, 0), med((input, 'zstd-dc'), 0))
        if key == "floor" or key.startswith("whole"):
            cells[4] = ratio(med(k, 0), med((input, 'floor'), 0))
        print(f"| {names[input]} | {text} | " + " | ".join(cells) + " |")
EOF
