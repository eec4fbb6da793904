#!/usr/bin/env bash
# Whether two builds of smsfilter write the same bytes: for a refactor or a speed-up that must not change what
# the classifier decides or how it explains it. Not part of `make test` (a few minutes with release builds).
#
#   bash Scripts/check-same-output.sh BIN_BEFORE BIN_AFTER
#
# Corpora: `generate --count 40000 --seed 1 --frame-size 0` (written by BIN_BEFORE), each *.jsonl.zst of
# ../shared/corpora (CORPORA=… for another folder; those absent are skipped and said so) and
# samples/sample.jsonl.zst. Rule sets: the default (rules + model), `--rules embedded:rules` and
# samples/example-rules.yaml (RULESETS="default embedded:rules FILE…" for others). Per corpus and rule set,
# each binary writes
#   - `classify FILE -o OUT.jsonl --threads T`: the whole records, labels added;
#   - `classify FILE -o OUT.jsonl --threads T --explain`: the deciding phrase and its span too;
#   - `explain --input FILE --json` of the corpus's first EXPLAIN_RECORDS records (default 2000; 0: none):
#     the full trace (every rule's fate, the model's steps);
# and the two outputs must be `cmp`-equal (T: THREADS, default 2; BIN_AFTER also runs with --threads 1 when
# THREADS is not 1, so that the bytes are also the same for any thread count). Exit 0 when every pair is
# equal, 1 when one differs (named, with `cmp`'s first difference), 2 on a usage error or a failed run.
# WORK (default a new temporary folder, removed at the end unless KEEP=1) holds the outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: bash Scripts/check-same-output.sh BIN_BEFORE BIN_AFTER" >&2; exit 2; }
BEFORE=$1
AFTER=$2
for b in "$BEFORE" "$AFTER"; do [ -x "$b" ] || { echo "check-same-output: no binary at $b" >&2; exit 2; }; done
CORPORA=${CORPORA:-../shared/corpora}
THREADS=${THREADS:-2}
EXPLAIN_RECORDS=${EXPLAIN_RECORDS:-2000}
RULESETS=${RULESETS:-default embedded:rules samples/example-rules.yaml}
if [ -n "${WORK:-}" ]; then mkdir -p "$WORK"; else WORK=$(mktemp -d); fi
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT

inputs=()
"$BEFORE" generate --count 40000 --seed 1 --frame-size 0 -o "$WORK/generated.jsonl.zst" --quiet --force
inputs+=("$WORK/generated.jsonl.zst")
for c in uci_sms_spam thai_sms india_bank_sms nus_sms_zh mudou_spam_zh; do
  if [ -s "$CORPORA/$c.jsonl.zst" ]; then inputs+=("$CORPORA/$c.jsonl.zst"); else echo "check-same-output: $CORPORA/$c.jsonl.zst absent, skipped" >&2; fi
done
for f in "$CORPORA"/*.jsonl.zst; do
  [ -s "$f" ] || continue
  case " ${inputs[*]} " in *" $f "*) ;; *) inputs+=("$f") ;; esac
done
inputs+=(samples/sample.jsonl.zst)

run() {  # label binary args…: runs, fails the script (exit 2) with the run's errors when it fails
  local label=$1; shift
  "$@" 2> "$WORK/$label.err" || { echo "check-same-output: the run failed: $* (exit $?)" >&2; cat "$WORK/$label.err" >&2; exit 2; }
}

pairs=0
differ=()
same() {  # a b label
  pairs=$((pairs + 1))
  if ! cmp -s "$1" "$2"; then
    differ+=("$3")
    echo "check-same-output: DIFFERENT: $3: $(cmp "$1" "$2" 2>&1 | head -1)" >&2
  fi
}

for f in "${inputs[@]}"; do
  name=$(basename "$f" .jsonl.zst)
  if [ "$EXPLAIN_RECORDS" != 0 ]; then
    { zstd -dcq "$f" || true; } | head -n "$EXPLAIN_RECORDS" > "$WORK/$name.head.jsonl"  # (zstd stops at the closed pipe)
  fi
  for rules in $RULESETS; do
    args=()
    [ "$rules" = default ] || args=(--rules "$rules")
    tag="$name.$(basename "$rules" .yaml | tr ':' '-')"
    for who in before after; do
      bin=$BEFORE; [ $who = after ] && bin=$AFTER
      run "$tag.$who.records" "$bin" classify "$f" -o "$WORK/$tag.$who.records.jsonl" --threads "$THREADS" -q --force "${args[@]}"
      run "$tag.$who.explained" "$bin" classify "$f" -o "$WORK/$tag.$who.explained.jsonl" --threads "$THREADS" -q --force --explain "${args[@]}"
      if [ "$EXPLAIN_RECORDS" != 0 ]; then
        run "$tag.$who.explain" "$bin" explain --input "$WORK/$name.head.jsonl" --json "${args[@]}" > "$WORK/$tag.$who.explain.json"
      fi
    done
    same "$WORK/$tag.before.records.jsonl" "$WORK/$tag.after.records.jsonl" "$tag: classify, whole records"
    same "$WORK/$tag.before.explained.jsonl" "$WORK/$tag.after.explained.jsonl" "$tag: classify --explain"
    if [ "$EXPLAIN_RECORDS" != 0 ]; then
      same "$WORK/$tag.before.explain.json" "$WORK/$tag.after.explain.json" "$tag: explain --input --json (first $EXPLAIN_RECORDS records)"
    fi
    if [ "$THREADS" != 1 ]; then
      run "$tag.after.one" "$AFTER" classify "$f" -o "$WORK/$tag.after.one.jsonl" --threads 1 -q --force --explain "${args[@]}"
      same "$WORK/$tag.after.explained.jsonl" "$WORK/$tag.after.one.jsonl" "$tag: classify --explain, --threads $THREADS against --threads 1"
    fi
    [ "${KEEP:-0}" = 1 ] || rm -f "$WORK/$tag".*.jsonl "$WORK/$tag".*.json
  done
done

if [ ${#differ[@]} -gt 0 ]; then
  echo "check-same-output: ${#differ[@]} of $pairs pairs differ" >&2
  exit 1
fi
echo "check-same-output: all $pairs pairs cmp-equal (${#inputs[@]} corpora × $(echo $RULESETS | wc -w) rule sets)"
