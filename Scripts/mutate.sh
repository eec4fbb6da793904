#!/usr/bin/env bash
# Mutation testing: shows that the tests catch small realistic bugs, on a checkout without the real corpora.
#
#   bash Scripts/mutate.sh              # every patch in Scripts/mutations (make mutate)
#   bash Scripts/mutate.sh 09 16        # only the patches whose names start with 09 or 16
#
# 1. Syncs the checkout (tracked and untracked files, not ignored ones such as .build) into a scratch
#    folder that has no ../shared beside it, so the tests run exactly as on a fresh clone. The scratch
#    folder is kept between runs (.build/mutate, removed by `make clean`), and only files whose bytes
#    differ are copied, so its build folder is reused: a second run rebuilds only what changed.
# 2. Builds it and runs the whole suite unmutated: it must pass, and say that the corpora are missing.
# 3. For each patch: applies it, builds, runs the tests its "Tests:" line names (a `swift test --filter`,
#    the targets or classes the patch can reach) and stops them at the first failing test; only when all
#    of those pass, runs the whole suite the same way. Reports KILLED (a test failed: which one, and in
#    which stage), SURVIVED (the whole suite passed), HUNG (the tests ran past MUTATE_TEST_TIMEOUT: a
#    deadline is missing somewhere), NO-BUILD or NO-APPLY; then reverts the patch.
# 4. Writes the table (patch, verdict, the test that killed it, seconds) to $logs/table.md, as
#    docs/TESTING.md shows it.
#
# Each patch is a plain `git diff` with two header lines, `Mutation:` (what bug it plants) and `Tests:`.
# When the code moves under a patch, re-create it: make the change by hand and `git diff` it.
#
# Environment: MUTATE_SCRATCH (scratch folder; default .build/mutate in this checkout),
# MUTATE_TEST_TIMEOUT (seconds per test stage of one mutation, default 2400),
# SMSFILTER_DEADLINE_SCALE (default 0.5 here: a deadlocked pipeline fails its test in a minute),
# MUTATE_SKIP_BASELINE=1 (skip step 2), MUTATE_FULL=0 (a survivor of its "Tests:" filter is reported
# SURVIVED without running the whole suite: a quick look, not a verdict).
#
# Exit status: 0 every mutation killed; 1 a mutation survived, hung, did not apply or did not build;
# 2 the unmutated suite failed or the scratch copy could see the corpora.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SWIFT=${SWIFT:-swift}
TEST_TIMEOUT=${MUTATE_TEST_TIMEOUT:-2400}
FULL=${MUTATE_FULL:-1}
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

scratch=${MUTATE_SCRATCH:-$ROOT/.build/mutate}
work=$scratch/smsfilter
if [ -e "$scratch/shared" ]; then
  echo "mutate: $scratch/shared exists: the scratch copy would see the corpora" >&2
  exit 2
fi
mkdir -p "$work"
logs=$scratch/logs
rm -rf "$logs"
mkdir -p "$logs"

# Step 1: sync. A file is copied only when its bytes differ (so unchanged sources keep their inode and
# modification time, and the build folder's record of them stays valid); files gone from the checkout go.
stage=$scratch/stage
rm -rf "$stage"
mkdir -p "$stage"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf -) | (cd "$stage" && tar -xf -)
[ -f "$ROOT/Package.resolved" ] && cp -p "$ROOT/Package.resolved" "$stage/"
copied=0
while IFS= read -r -d '' f; do
  if ! cmp -s "$stage/$f" "$work/$f"; then
    mkdir -p "$(dirname "$work/$f")"
    cp -p "$stage/$f" "$work/$f"
    copied=$((copied + 1))
  fi
done < <(cd "$stage" && find . -type f -print0)
while IFS= read -r -d '' f; do
  [ -e "$stage/$f" ] || rm -f "$work/$f"
done < <(cd "$work" && find . \( -path ./.build -o -path ./.git \) -prune -o -type f -print0)
rm -rf "$stage"
cd "$work"
[ -d .git ] || git init -q
git add -A && git -c user.name=mutate -c user.email=mutate@localhost commit -qm base --allow-empty
echo "mutate: ${#patches[@]} mutations; scratch copy $work (no ../shared; $copied files changed since the last run); logs in $logs"

# Runs `swift test` (with `--filter $1` unless empty) into log $2 and stops it at the first failing test.
# Returns 0 when every test passed, 1 when one failed, 124 when the tests ran past TEST_TIMEOUT.
run_tests() {
  local filter=$1 log=$2 pid status
  : >"$log"
  if [ -n "$filter" ]; then
    setsid $LINEBUF timeout "$TEST_TIMEOUT" $SWIFT test --skip-build --filter "$filter" >"$log" 2>&1 &
  else
    setsid $LINEBUF timeout "$TEST_TIMEOUT" $SWIFT test --skip-build >"$log" 2>&1 &
  fi
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if grep -aqE "$FAILURE" "$log"; then
      # The first failure is enough: stop the whole process group (swift test, the test runner, smsfilter).
      sleep 1
      kill -TERM -- "-$pid" 2>/dev/null
      sleep 2
      kill -KILL -- "-$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      return 1
    fi
    sleep 1
  done
  wait "$pid"
  status=$?
  [ $status = 0 ] && return 0
  [ $status = 124 ] && return 124
  return 1
}
# The test runner's output line by line, so that a failure is seen when it happens (stdbuf, where there is one).
LINEBUF=""
command -v stdbuf >/dev/null 2>&1 && LINEBUF="stdbuf -oL -eL"
# An XCTest failure (file:line: error: Class.testName : …, or <EXPR>:0: for an error a test threw), a crash,
# a Swift Testing failure.
FAILED_TEST='(\.swift:[0-9]+|<EXPR>:[0-9]+): error: [A-Za-z0-9_]+\.[A-Za-z0-9_]+ : '
FAILURE="$FAILED_TEST|Fatal error|exited with unexpected signal|✘ Test .* failed"

# The test that failed first in log $1 (Class.testName), or what crashed.
first_failure() {
  local log=$1 hit
  hit=$(grep -a -m1 -oE "$FAILED_TEST" "$log" | sed -E 's/.*error: ([^ ]+) : /\1/')
  if [ -z "$hit" ]; then
    hit=$(grep -a -m1 -oE "✘ Test [^ ]+" "$log" | sed 's/✘ Test //')
  fi
  if [ -z "$hit" ] && grep -aqE "Fatal error|exited with unexpected signal" "$log"; then
    hit="$(grep -aoE "Test Case '[^']+' started" "$log" | tail -1 | sed -E "s/Test Case '([^']+)' started/\1/") (crashed)"
  fi
  printf '%s' "${hit:-?}"
}

started=$(date +%s)
echo "mutate: building the unmutated copy"
if ! $SWIFT build --build-tests >"$logs/baseline-build.log" 2>&1; then
  tail -30 "$logs/baseline-build.log"
  echo "mutate: the unmutated copy does not build" >&2
  exit 2
fi
echo "mutate: built in $(($(date +%s) - started)) s"
if [ -z "${MUTATE_SKIP_BASELINE:-}" ]; then
  echo "mutate: running the whole suite unmutated"
  t0=$(date +%s)
  if ! timeout "$TEST_TIMEOUT" $SWIFT test --skip-build >"$logs/baseline-test.log" 2>&1; then
    grep -aE "error:|failed \(" "$logs/baseline-test.log" | head -20
    echo "mutate: the unmutated suite fails; fix that first" >&2
    exit 2
  fi
  if ! grep -aq "smsfilter tests: no real corpora" "$logs/baseline-test.log"; then
    echo "mutate: the unmutated suite did not report missing corpora: it may have seen ../shared" >&2
    exit 2
  fi
  echo "mutate: unmutated: $(grep -aE 'Executed [0-9]+ tests' "$logs/baseline-test.log" | tail -1 | sed 's/^[[:space:]]*//') ($(($(date +%s) - t0)) s)"
  grep -a "smsfilter tests: no real corpora" "$logs/baseline-test.log" | head -1
fi

table=$logs/table.md
{
  echo "| patch | verdict | killed by | stage | seconds |"
  echo "|---|---|---|---|---:|"
} >"$table"
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
  by=""
  stage=""
  if ! git apply "$patch" 2>"$logs/$name.apply.log"; then
    verdict="NO-APPLY"
    detail=$(head -1 "$logs/$name.apply.log")
  elif ! $SWIFT build --build-tests >"$logs/$name.build.log" 2>&1; then
    verdict="NO-BUILD"
    detail=$(grep -m1 "error:" "$logs/$name.build.log")
  else
    stage="filter"
    run_tests "$tests" "$logs/$name.test.log"
    status=$?
    if [ $status = 0 ] && [ "$FULL" = 1 ]; then
      stage="whole suite"
      run_tests "" "$logs/$name.full.log"
      status=$?
      cp "$logs/$name.full.log" "$logs/$name.test.log"
    fi
    if [ $status = 0 ]; then
      verdict="SURVIVED"
    elif [ $status = 124 ]; then
      verdict="HUNG"
      detail="the tests ran past ${TEST_TIMEOUT}s"
    else
      verdict="KILLED"
      by=$(first_failure "$logs/$name.test.log")
      detail=$(grep -a -m1 -E "error: |Fatal error|timed out after|exited with unexpected signal" "$logs/$name.test.log" \
        | tr -d '\000' | sed -E 's|^.*/Tests/||; s|^[^:]*Sources/|Sources/|' | cut -c1-220)
    fi
  fi
  git checkout -q -- . && git clean -fdq
  seconds=$(($(date +%s) - t0))
  if [ "$verdict" = KILLED ]; then killed=$((killed + 1)); else bad=$((bad + 1)); fi
  printf '%-9s %-58s %4ds  [%s]\n' "$verdict" "$name" "$seconds" "$tests"
  printf '          %s\n' "$what"
  [ -n "$by" ] && printf '          killed by %s (%s)\n' "$by" "$stage"
  [ -n "$detail" ] && printf '          %s\n' "$detail"
  printf '| %s | %s | %s | %s | %d |\n' "$name" "$verdict" "${by:-–}" "${stage:-–}" "$seconds" >>"$table"
  results+=("$verdict $name")
done

minutes=$(( ($(date +%s) - started) / 60 ))
echo
echo "mutate: ${#patches[@]} mutations: $killed killed, $bad not killed ($minutes min, no ../shared); table: $table"
for r in "${results[@]}"; do
  case $r in KILLED*) ;; *) echo "  $r" ;; esac
done
[ $bad = 0 ]
