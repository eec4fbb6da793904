#!/usr/bin/env bash
# Scripts/check-guard-env.sh: the output-guard tests give the same verdict whatever the standard output of
# the test process is (issue 22 item 3). Runs them three times from the built tests (`swift build
# --build-tests` first): with the test runner's standard output a regular file, a pipe, and a terminal
# (`script`, a pseudo-terminal), and fails unless each run passes with the same tests passed.
#
#   bash Scripts/check-guard-env.sh [FILTER]    default: OutputSafetyTests|HostileUseTests|OutputFile
#
# Inside the tests, every child `smsfilter` also runs with its own standard output a file, a pipe and a
# terminal in turn (`CLITestCase.underEveryStandardOutput`); this script covers the test process itself.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
SWIFT=${SWIFT:-swift}
filter=${1:-OutputSafetyTests|HostileUseTests|OutputFile}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsfilter-guard-env.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command=(env TERM=dumb "$SWIFT" test --skip-build --filter "$filter")

status=0
for kind in file pipe terminal; do
  log=$tmp/$kind.log
  case $kind in
    file) "${command[@]}" >"$log" 2>&1; code=$? ;;
    pipe) "${command[@]}" 2>&1 | cat >"$log"; code=${PIPESTATUS[0]} ;;
    terminal)
      if ! command -v script >/dev/null 2>&1; then
        echo "check-guard-env: no \`script\` here: the terminal case is not run" >&2
        continue
      fi
      printf -v line '%q ' "${command[@]}"
      script -qefc "$line" "$log" </dev/null >/dev/null 2>&1
      code=$?
      ;;
  esac
  passed=$(grep -aoE "Test Case '[^']+' passed" "$log" | sort | tee "$tmp/$kind.passed" | wc -l)
  failed=$(grep -aoE "Test Case '[^']+' failed" "$log" | sort -u)
  echo "check-guard-env: standard output a $kind: exit $code, $passed tests passed"
  if [ "$code" != 0 ] || [ -n "$failed" ]; then
    grep -aE "error: |failed \(" "$log" | head -10
    status=1
  fi
done
for kind in pipe terminal; do
  [ -f "$tmp/$kind.passed" ] || continue
  if ! cmp -s "$tmp/file.passed" "$tmp/$kind.passed"; then
    echo "check-guard-env: the tests passed with standard output a $kind differ from those with a file:" >&2
    diff "$tmp/file.passed" "$tmp/$kind.passed" | head -10 >&2
    status=1
  fi
done
[ $status = 0 ] && echo "check-guard-env: the same verdicts with the test process's standard output a file, a pipe and a terminal"
exit $status
