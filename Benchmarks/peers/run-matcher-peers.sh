#!/usr/bin/env bash
# Ours and the peers on the same bodies and keywords, in one run.
#   Benchmarks/peers/run-matcher-peers.sh [repetitions]
set -euo pipefail
cd "$(dirname "$0")/.."
repetitions="${1:-5}"
fixtures=.build/matcher-fixtures
swift build -c release --product matcher-tool >/dev/null
.build/release/matcher-tool fixtures "$fixtures"
echo "== smsfilter AhoCorasick (matcher-tool, median of 7) =="
.build/release/matcher-tool
echo "== peers (median of $repetitions) =="
python3 peers/matcher_peers.py "$fixtures" --repetitions "$repetitions"
echo "== rg -F -i and LC_ALL=C grep -F -i beside the automaton (ASCII folding), interleaved, median of $repetitions =="
python3 peers/grep_peers.py "$fixtures" .build/release/matcher-tool --repetitions "$repetitions"
