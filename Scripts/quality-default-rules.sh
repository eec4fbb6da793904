#!/usr/bin/env bash
# The default rules' quality figures in docs/QUALITY.md ("Default rules"): runs `smsfilter evaluate` on the
# shared corpora (UCI SMS Spam, Thai SMS) and prints one Markdown table row per figure.
#
#   Scripts/quality-default-rules.sh [--rules FILE] [--binary PATH] [--corpora DIR] [--label TEXT]
#
# Maps (docs/EVALUATE.md): UCI spam=junk|promotion,ham=other; Thai OTP=transaction, scam=junk,
# spam=promotion, OK=other|transaction (the Thai OK class holds bank and carrier notices, which are
# transactions). "spam+scam → junk|promotion" is computed from evaluate's confusion matrix.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=.build/release/smsfilter
[ -x "$binary" ] || binary=.build/debug/smsfilter
corpora=../shared/corpora
rules=()
label="rules"
while [ $# -gt 0 ]; do
  case "$1" in
    --rules) rules=(--rules "$2"); label="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    --corpora) corpora="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    *) echo "usage: $0 [--rules FILE] [--binary PATH] [--corpora DIR] [--label TEXT]" >&2; exit 64 ;;
  esac
done
[ -x "$binary" ] || { echo "quality-default-rules: no smsfilter binary ($binary); run make build" >&2; exit 66; }
# The rules alone: builds that embed the default model name the rules without it `embedded:rules`.
if [ ${#rules[@]} = 0 ] && "$binary" evaluate --help 2>/dev/null | grep -q 'embedded:rules'; then rules=(--rules embedded:rules); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Builds before the CLI vocabulary of issue 14 named the JSON file with --json.
json_file=--json-file
"$binary" evaluate --help 2>/dev/null | grep -q -- --json-file || json_file=--json
"$binary" evaluate "$corpora/uci_sms_spam.jsonl.zst" ${rules[@]+"${rules[@]}"} --quiet \
  --map 'spam=junk|promotion,ham=other' "$json_file" "$tmp/uci.json"
"$binary" evaluate "$corpora/thai_sms.jsonl.zst" ${rules[@]+"${rules[@]}"} --quiet \
  --map 'OTP=transaction,scam=junk,spam=promotion,OK=other|transaction' "$json_file" "$tmp/thai.json"
python3 - "$tmp/uci.json" "$tmp/thai.json" "$label" <<'EOF'
import json, sys
uci, thai, label = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]

def cell(d, row, col):
    c = d["confusion"]
    return c["cells"][c["rows"].index(row)][c["columns"].index(col)] if col in c["columns"] else 0

def prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)

def pct(x): return f"{100 * x:.1f}%"

rows = []
s = uci["labels"]["spam"]
rows.append(("UCI", "spam → junk or promotion", f"P {pct(s['precision'])} · R {pct(s['recall'])} · F1 {s['f1']:.3f}"))
h = uci["labels"]["ham"]
rows.append(("UCI", "ham left unfiltered (none or allow)", f"{pct(h['recall'])} ({h['correct']}/{h['records']})"))
rows.append(("UCI", "ham sent to Transactions", str(cell(uci, "ham", "transaction"))))
rows.append(("UCI", "ham sent to Junk or Promotions", str(cell(uci, "ham", "junk") + cell(uci, "ham", "promotion"))))
unwanted = ("scam", "spam")
cols = ("junk", "promotion")
tp = sum(cell(thai, r, c) for r in unwanted for c in cols)
fp = sum(cell(thai, r, c) for r in ("OTP", "OK") for c in cols)
fn = sum(thai["labels"][r]["records"] for r in unwanted) - tp
p, r, f = prf(tp, fp, fn)
rows.append(("Thai", "scam + spam → junk or promotion", f"P {pct(p)} · R {pct(r)} · F1 {f:.3f}"))
for lab, target in (("scam", "junk"), ("spam", "promotion")):
    x = thai["labels"][lab]
    rows.append(("Thai", f"{lab} → {target}", f"P {pct(x['precision'])} · R {pct(x['recall'])} · F1 {x['f1']:.3f}"))
o = thai["labels"]["OTP"]
rows.append(("Thai", "OTP → Transactions", f"R {pct(o['recall'])} ({o['correct']}/{o['records']}); P {pct(o['precision'])}"))
k = thai["labels"]["OK"]
rows.append(("Thai", "OK not sent to Junk or Promotions", f"{pct(k['recall'])} ({k['correct']}/{k['records']})"))
print(f"| corpus | figure | {label} |")
print("|---|---|---|")
for c, name, v in rows: print(f"| {c} | {name} | {v} |")
EOF
