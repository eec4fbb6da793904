#!/usr/bin/env bash
# Scripts/pin-help.sh: pins every `--help` again (HelpTests.testEveryHelpIsPinned), after a deliberate change
# to the help: writes `COLUMNS=80 smsfilter <command> --help` to Tests/Fixtures/help/<command>.txt for each
# command pinned there (smsfilter.txt is the root's help). To pin a new subcommand, create its empty file
# first. Read the diff before committing it.
#
#   bash Scripts/pin-help.sh [BIN]     BIN: the binary (default .build/debug/smsfilter; `swift build` first)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin=${1:-$root/.build/debug/smsfilter}
[ -x "$bin" ] || { echo "pin-help: no binary at $bin (swift build first)" >&2; exit 1; }
for file in "$root"/Tests/Fixtures/help/*.txt; do
  command=$(basename "$file" .txt)
  if [ "$command" = smsfilter ]; then args=(); else args=("$command"); fi
  COLUMNS=80 "$bin" "${args[@]}" --help > "$file"
done
echo "pin-help: $(ls "$root"/Tests/Fixtures/help/*.txt | wc -l) help texts written to Tests/Fixtures/help; git diff shows what changed"
