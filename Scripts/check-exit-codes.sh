#!/usr/bin/env bash
# Exit statuses are numbers in one place, Sources/SMSFilterCLI/Support/ExitStatus.swift (issue 25 item 3):
# everywhere else a command names them (`.usage`, `.badInput`, …) or maps a typed error through
# `ExitStatus(_:)`. Fails on a numeric status in code (comments and string literals, such as the help texts'
# "Exit status: 0 success, 64 usage, …", are not code):
#   - `ExitCode(<number>)`, `exit(<number>)`, `_exitProcess(<number>)`, `code: <number>`, `status: <number>`;
#   - in the command line's sources, a sysexits number (64-78) as a value (`return 65`, `? 66 :`, `, 73)`).
set -euo pipefail
cd "$(dirname "$0")/.."

home=Sources/SMSFilterCLI/Support/ExitStatus.swift

# The matcher, on a line of code; prints "why" when it is a numeric status. `cli` is 1 for the command line.
read -r -d '' matcher <<'AWK' || true
function numeric_status(s, cli) {
  if (s ~ /(ExitCode|[^A-Za-z_]exit|_exitProcess)[ ]*\([ ]*-?[0-9]/) return "an exit with a number"
  if (s ~ /(^|[^A-Za-z_])(code|status)[ ]*:[ ]*-?[0-9]/) return "a status given as a number"
  if (cli && s ~ /(return|[?:,(])[ ]*(6[4-9]|7[0-8])[ ]*([),:}]|$)/) return "a sysexits number as a value"
  return ""
}
AWK

# The matcher must see what it is for (a check that can never fail checks nothing).
planted=$'throw ExitCode(65)\nthrow CLI.fail("x", code: 64)\n_exitProcess(70)\nreturn ("a", 73)\nreturn 66\nx ? 66 : 64'
clean=$'throw ExitCode(.badInput)\nlet size = 64 << 20\nstatic let maxLength = 64\nreturn n + 65 * k'
hits=$(printf '%s\n' "$planted" | awk -f <(printf '%s\n' "$matcher"; echo '{ if (numeric_status($0, 1) != "") n++ } END { print n + 0 }'))
misses=$(printf '%s\n' "$clean" | awk -f <(printf '%s\n' "$matcher"; echo '{ if (numeric_status($0, 1) != "") { print "  " $0 > "/dev/stderr"; n++ } } END { print n + 0 }'))
if [ "$hits" != 6 ] || [ "$misses" != 0 ]; then
  echo "check-exit-codes: the matcher is broken (found $hits of 6 planted statuses, $misses false alarms)" >&2
  exit 1
fi

found=$(find Sources -name '*.swift' ! -path "$home" ! -path '*/ExtensionTemplates/*' | sort | while read -r file; do
  cli=0; case "$file" in Sources/SMSFilterCLI/*) cli=1 ;; esac
  awk -v file="$file" -v cli="$cli" -f Scripts/lib/swift-code.awk -f <(printf '%s\n' "$matcher"; cat <<'AWK'
BEGIN { code_reset() }
{
  why = numeric_status(code($0), cli)
  if (why != "") printf "%s:%d: %s: %s\n", file, FNR, why, $0
}
AWK
  ) "$file"
done)
if [ -n "$found" ]; then
  printf '%s\n' "$found" >&2
  echo "check-exit-codes: name the status (ExitStatus in $home) instead of its number" >&2
  exit 1
fi
echo "check-exit-codes: exit statuses are numbers only in $home"
