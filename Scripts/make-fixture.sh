#!/usr/bin/env bash
# Rebuilds Tests/Fixtures/generated: the committed corpus the equivalence tests run on (see its README.md).
#
#   bash Scripts/make-fixture.sh            # everything but rules.yaml (frozen; copied only when missing)
#   bash Scripts/make-fixture.sh --golden   # only the golden --labels-only output (after a deliberate change)
#
# Needs the built binary (SMSFILTER_BIN, default .build/debug/smsfilter), zstd and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SMSFILTER_BIN:-.build/debug/smsfilter}
OUT=Tests/Fixtures/generated
SEED=16
COUNT=2000
FRAMES=4
[ -x "$BIN" ] || { echo "make-fixture: $BIN is not built (swift build)" >&2; exit 1; }
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

golden() {
    "$BIN" classify --rules "$OUT/rules.yaml" --labels-only --quiet --threads 1 "$OUT/fixture.jsonl.zst" -o "$tmp/golden.jsonl"
    zstd -q -19 -f "$tmp/golden.jsonl" -o "$OUT/labels-only.golden.jsonl.zst"
    echo "make-fixture: $OUT/labels-only.golden.jsonl.zst ($(wc -l < "$tmp/golden.jsonl") lines)"
}

if [ "${1:-}" = "--golden" ]; then
    golden
    exit 0
fi

"$BIN" generate --count "$COUNT" --seed "$SEED" -o "$tmp/all.jsonl" --quiet
# Several zstd frames, concatenated (what pzstd and appending writers produce).
split -l $((COUNT / FRAMES)) -d "$tmp/all.jsonl" "$tmp/part-"
rm -f "$OUT/fixture.jsonl.zst"
for part in "$tmp"/part-*; do
    zstd -q -19 -c "$part" >> "$OUT/fixture.jsonl.zst"
done

# The other formats, from disjoint slices of the same records.
python3 - "$tmp/all.jsonl" "$OUT" <<'PY'
import csv, io, json, sys
source, out = sys.argv[1], sys.argv[2]
records = [json.loads(line) for line in open(source, encoding="utf-8")]

# CSV (RFC 4180, header row, CRLF line ends as spreadsheets write them): records 1-300.
buffer = io.StringIO()
writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
writer.writerow(["id", "sender", "body", "label"])
for r in records[0:300]:
    writer.writerow([r["id"], r["sender"], r["body"], r["label"]])
open(f"{out}/fixture.csv", "w", encoding="utf-8", newline="").write(buffer.getvalue())

# TSV with a header row: records 301-600 (zstd-compressed below).
with open(f"{out}/fixture.tsv", "w", encoding="utf-8", newline="") as f:
    f.write("id\tsender\tbody\tlabel\n")
    for r in records[300:600]:
        assert "\t" not in r["body"] and "\n" not in r["body"]
        f.write(f'{r["id"]}\t{r["sender"]}\t{r["body"]}\t{r["label"]}\n')

# Android "SMS Backup & Restore" XML: records 601-900; emoji as hexadecimal character references.
def attribute(text):
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return "".join(f"&#x{ord(c):X};" if ord(c) > 0xFFFF else c for c in text)
lines = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", f'<smses count="300" backup_set="fixture">']
for r in records[600:900]:
    lines.append(f'  <sms protocol="0" address="{attribute(r["sender"])}" date="{r["ts"] * 1000}" type="1" subject="null" '
                 f'body="{attribute(r["body"])}" read="1" status="-1" locked="0" />')
lines.append("</smses>")
open(f"{out}/fixture.xml", "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
zstd -q -19 -f --rm "$OUT/fixture.tsv" -o "$OUT/fixture.tsv.zst"

# The rule set the golden output is pinned with: a frozen copy of the default rules, so that editing
# samples/default-rules.yaml does not move the golden file.
[ -f "$OUT/rules.yaml" ] || cp samples/default-rules.yaml "$OUT/rules.yaml"
golden
ls -l "$OUT"
