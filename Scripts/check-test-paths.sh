#!/usr/bin/env bash
# Scripts/check-test-paths.sh: no test names a real system file that a command under test could write or
# replace (issue 22). A test suite must be safe to run with any bug in the code it tests: a broken output
# guard once renamed a file over the machine's /dev/stdout because a test passed `--report /dev/stdout`.
#
#   Scripts/check-test-paths.sh              check Tests/ and Sources/TestSupport
#   Scripts/check-test-paths.sh DIR|FILE ... check these instead
#
# Fails (exit 1), naming file:line, on any of /dev/stdout, /dev/stderr, /dev/stdin, /dev/full, /dev/null,
# /dev/tty or /dev/console outside a comment (a line whose code part, before `//` or `#`, names none), in
# any file but binary fixtures. Use the stand-ins of Sources/TestSupport/StandIns.swift instead, made in the
# test's own temporary folder: `StandIn.standardOutputLink` (a private link to /proc/self/fd/1),
# `StandIn.fullDevice` and `StandIn.nullDevice` (private device nodes, where the process may make them), a
# FIFO, a file; `FileHandle.nullDevice` for a child's standard input.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ $# -gt 0 ]; then targets=("$@"); else targets=(Tests Sources/TestSupport); fi

pattern='/dev/(stdout|stderr|stdin|full|null|tty|console)([^A-Za-z0-9_]|$)'
found=0
while IFS= read -r -d '' file; do
  # Text files only (the fixtures hold compressed archives).
  grep -Iq . "$file" 2>/dev/null || continue
  while IFS= read -r hit; do
    line=${hit%%:*}
    text=${hit#*:}
    # The code part of the line: before a `//` or `#` comment that is not inside a string (a string that
    # holds `//`, a URL say, keeps the line checked from there on: no false negative, at worst a false alarm).
    code=$(printf '%s\n' "$text" | sed -E 's@^[[:space:]]*(//|#).*$@@; s@[[:space:]]//[^"]*$@@')
    if printf '%s\n' "$code" | grep -Eq "$pattern"; then
      echo "$file:$line: names a system file as a path: $(printf '%s' "$text" | sed -E 's/^[[:space:]]+//' | cut -c1-160)"
      found=$((found + 1))
    fi
  done < <(grep -nE "$pattern" "$file" || true)
done < <(find "${targets[@]}" -type f -print0 | sort -z)

if [ $found -gt 0 ]; then
  echo "check-test-paths: $found line(s) name a system file: use a stand-in from Sources/TestSupport/StandIns.swift" >&2
  exit 1
fi
echo "check-test-paths: no test names /dev/stdout, /dev/stderr, /dev/stdin, /dev/full, /dev/null, /dev/tty or /dev/console"
