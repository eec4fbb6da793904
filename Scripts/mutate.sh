#!/usr/bin/env bash
# Mutation testing: shows that the tests catch small realistic bugs, on a checkout without the real corpora.
#
#   bash Scripts/mutate.sh              # every patch in Scripts/mutations (make mutate)
#   bash Scripts/mutate.sh 09 16        # only the patches whose names start with 09 or 16
#
# 1. Copies the checkout (tracked and untracked files, not ignored ones such as .build) into a scratch
#    folder that has no ../shared beside it, so the tests run exactly as on a fresh clone.
# 2. Builds it and runs the whole suite unmutated: it must pass, and say that the corpora are missing.
# 3. For each patch: applies it, builds, runs the tests its "Tests:" line names (a `swift test --filter`),
#    and reports KILLED (a test failed), SURVIVED (every test passed), HUNG (the tests ran past
#    MUTATE_TEST_TIMEOUT: a deadline is missing somewhere), NO-BUILD or NO-APPLY; then reverts it.
#
# Each patch is a plain `git diff` with two header lines, `Mutation:` (what bug it plants) and `Tests:`.
# When the code moves under a patch, re-create it: make the change by hand and `git diff` it.
#
# Environment: MUTATE_SCRATCH (scratch folder; default a new one under /tmp, removed at the end unless
# MUTATE_KEEP=1), MUTATE_TEST_TIMEOUT (seconds per mutation's tests, default 2400),
# SMSFILTER_DEADLINE_SCALE (default 0.5 here: a deadlocked pipeline fails its test in a minute),
# MUTATE_SKIP_BASELINE=1 (skip step 2).
#
# Exit status: 0 every mutation killed; 1 a mutation survived, hung, did not apply or did not build;
# 2 the unmutated suite failed or the scratch copy could see the corpora.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWIFT=${SWIFT:-swift}
TEST_TIMEOUT=${MUTATE_TEST_TIMEOUT:-2400}
export SMSFILTER_DEADLINE_SCALE=${SMSFILTER_DEADLINE_SCALE:-0.5}
unset SMSFILTER_CORPORA SMSFILTER_REQUIRE_CORPORA SMSFILTER_SEED

patches=()
for patch in "$ROOT"/Scripts/mutations/*.patch; do
  name=$(basename "$patch" .patch)
  if [ $# -gt 0 ]; then
    keep=0
    for prefix in "$@"; do [[ $name == "$prefix"* ]] && keep=1; done
    [ $keep = 1 ] || continue
  fi
  patches+=("$patch")
done
[ ${#patches[@]} -gt 0 ] || { echo "mutate: no patch matches $*" >&2; exit 1; }

scratch=${MUTATE_SCRATCH:-$(mktemp -d /tmp/smsfilter-mutate.XXXXXX)}
work=$scratch/smsfilter
if [ -z "${MUTATE_KEEP:-}" ] && [ -z "${MUTATE_SCRATCH:-}" ]; then trap 'rm -rf "$scratch"' EXIT; fi
if [ -e "$scratch/shared" ]; then
  echo "mutate: $scratch/shared exists: the scratch copy would see the corpora" >&2
  exit 2
fi
rm -rf "$work"
mkdir -p "$work"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | (cd "$work" && tar -xf -)
[ -f "$ROOT/Package.resolved" ] && cp "$ROOT/Package.resolved" "$work/"
cd "$work"
git init -q && git add -A && git -c user.name=mutate -c user.email=mutate@localhost commit -qm base
logs=$scratch/logs
mkdir -p "$logs"
echo "mutate: ${#patches[@]} mutations; scratch copy $work (no ../shared); logs in $logs"

started=$(date +%s)
echo "mutate: building the unmutated copy"
if ! $SWIFT build --build-tests >"$logs/baseline-build.log" 2>&1; then
  tail -30 "$logs/baseline-build.log"
  echo "mutate: the unmutated copy does not build" >&2
  exit 2
fi
if [ -z "${MUTATE_SKIP_BASELINE:-}" ]; then
  echo "mutate: running the whole suite unmutated"
  if ! timeout "$TEST_TIMEOUT" $SWIFT test --skip-build >"$logs/baseline-test.log" 2>&1; then
    grep -E "error:|failed \(" "$logs/baseline-test.log" | head -20
    echo "mutate: the unmutated suite fails; fix that first" >&2
    exit 2
  fi
  if ! grep -q "smsfilter tests: no real corpora" "$logs/baseline-test.log"; then
    echo "mutate: the unmutated suite did not report missing corpora: it may have seen ../shared" >&2
    exit 2
  fi
  echo "mutate: unmutated: $(grep -E 'Executed [0-9]+ tests' "$logs/baseline-test.log" | tail -1 | sed 's/^[[:space:]]*//')"
  grep "smsfilter tests: no real corpora" "$logs/baseline-test.log" | head -1
fi

results=()
killed=0
bad=0
for patch in "${patches[@]}"; do
  name=$(basename "$patch" .patch)
  what=$(sed -n 's/^Mutation: //p' "$patch" | head -1)
  tests=$(sed -n 's/^Tests: //p' "$patch" | head -1)
  t0=$(date +%s)
  verdict=""
  detail=""
  if ! git apply "$patch" 2>"$logs/$name.apply.log"; then
    verdict="NO-APPLY"
    detail=$(head -1 "$logs/$name.apply.log")
  elif ! $SWIFT build --build-tests >"$logs/$name.build.log" 2>&1; then
    verdict="NO-BUILD"
    detail=$(grep -m1 "error:" "$logs/$name.build.log")
  else
    timeout "$TEST_TIMEOUT" $SWIFT test --skip-build --filter "$tests" >"$logs/$name.test.log" 2>&1
    status=$?
    if [ $status = 0 ]; then
      verdict="SURVIVED"
    elif [ $status = 124 ]; then
      verdict="HUNG"
      detail="the tests ran past ${TEST_TIMEOUT}s"
    else
      verdict="KILLED"
      detail=$(grep -m1 -E "error: |Fatal error|timed out after|exited with unexpected signal" "$logs/$name.test.log" \
        | sed -E 's|^.*/Tests/||; s|^[^:]*Sources/|Sources/|' | cut -c1-220)
    fi
  fi
  git checkout -q -- . && git clean -fdq
  seconds=$(($(date +%s) - t0))
  if [ "$verdict" = KILLED ]; then killed=$((killed + 1)); else bad=$((bad + 1)); fi
  printf '%-9s %-50s %4ds  [%s]\n' "$verdict" "$name" "$seconds" "$tests"
  printf '          %s\n' "$what"
  [ -n "$detail" ] && printf '          by: %s\n' "$detail"
  results+=("$verdict $name")
done

echo
echo "mutate: ${#patches[@]} mutations: $killed killed, $bad not killed ($(( ($(date +%s) - started) / 60 )) min, no ../shared)"
for r in "${results[@]}"; do
  case $r in KILLED*) ;; *) echo "  $r" ;; esac
done
[ $bad = 0 ]
