#!/usr/bin/env bash
# docs/QUALITY.md's table: on UCI SMS Spam and Thai SMS (shared/corpora), with the same 5 folds (written by
# `smsfilter learn --folds-file`), the embedded default rules, `smsfilter learn` and scikit-learn's TF-IDF
# (word + char 2-5-grams) + LinearSVC (Benchmarks/peers/quality_svm.py) and fastText supervised, words and
# words + chars (Benchmarks/peers/quality_fasttext.py): precision, recall, F1 per target, learn time and
# classify time per 100k messages, all in CPU seconds of one core (user + system), so that the other load of
# a shared machine does not count. Run by `make peers-quality`.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-.build/release/smsfilter}
CORPORA=${CORPORA:-../shared/corpora}
OUT=${OUT:-/tmp/smsfilter-quality}
mkdir -p "$OUT"
python3 -c "import sklearn" 2>/dev/null || pip install --quiet scikit-learn
# fastText from PyPI: the binary wheel (the `fasttext` sdist needs a C++ build).
python3 -c "import fasttext" 2>/dev/null || pip install --quiet fasttext-wheel
run() {  # name corpus map
  local name=$1 corpus=$2 map=$3
  echo "== $name"
  "$BIN" learn --cv 5 --json --map "$map" --folds-file "$OUT/$name-folds.jsonl" "$corpus" > "$OUT/$name-learn-cv.json"
  python3 Benchmarks/peers/quality_svm.py "$corpus" "$OUT/$name-folds.jsonl" "$map" --json "$OUT/$name-svm.json" 2>/dev/null
  python3 Benchmarks/peers/quality_fasttext.py "$corpus" "$OUT/$name-folds.jsonl" "$map" --json "$OUT/$name-fasttext.json"
  python3 Benchmarks/peers/quality_fasttext.py "$corpus" "$OUT/$name-folds.jsonl" "$map" --chars --json "$OUT/$name-fasttext-chars.json"
  # learn time: the whole corpus, the model written (median of 3).
  for i in 1 2 3; do
    /usr/bin/time -f "%e %M %U %S" -o "$OUT/$name-learn-time-$i" "$BIN" learn -q -f --map "$map" -o "$OUT/$name-model.yaml" "$corpus"
  done
  # classify time: the corpus repeated to 100k messages, with the learned model (compiled) and with the default rules.
  zstd -dcf "$corpus" > "$OUT/$name.jsonl"
  : > "$OUT/$name-100k.jsonl"
  while [ "$(wc -l < "$OUT/$name-100k.jsonl")" -lt 100000 ]; do cat "$OUT/$name.jsonl" >> "$OUT/$name-100k.jsonl"; done
  head -100000 "$OUT/$name-100k.jsonl" > "$OUT/$name-100k.tmp" && mv "$OUT/$name-100k.tmp" "$OUT/$name-100k.jsonl"
  "$BIN" compile --quiet "$OUT/$name-model.yaml" -o "$OUT/$name-model.smsf"
  for i in 1 2 3; do
    /usr/bin/time -f "%e %M %U %S" -o "$OUT/$name-classify-model-$i" "$BIN" classify --threads 1 --quiet --labels-only --rules "$OUT/$name-model.smsf" "$OUT/$name-100k.jsonl" -o /dev/null
    /usr/bin/time -f "%e %M %U %S" -o "$OUT/$name-classify-rules-$i" "$BIN" classify --threads 1 --quiet --labels-only --rules embedded:rules "$OUT/$name-100k.jsonl" -o /dev/null
  done
  "$BIN" classify --quiet --labels-only --rules embedded:rules "$OUT/$name.jsonl" -o "$OUT/$name-rules.jsonl"
}
run uci "$CORPORA/uci_sms_spam.jsonl.zst" 'spam=junk,ham=none'
run thai "$CORPORA/thai_sms.jsonl.zst" 'OTP=transaction,scam=junk,spam=promotion,OK=none'
python3 Benchmarks/peers/quality_table.py "$OUT"
