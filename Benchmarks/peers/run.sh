#!/usr/bin/env bash
# `make peers`: smsfilter beside the tools a user would otherwise pick, on the same corpus and phrases, in
# one run; prints one table and writes it into docs/PERFORMANCE.md (between the peers markers).
#
#   PEERS_COUNT   records in the generated corpus (default 2,000,000, about 470 MB of JSONL)
#   PEERS_REPEAT  repetitions per measurement, the median is reported (default 3)
#   PEERS_DIR     where the corpus and scratch files go (default /tmp/smsfilter-peers)
set -euo pipefail
cd "$(dirname "$0")/../.."
count="${PEERS_COUNT:-2000000}"
repeat="${PEERS_REPEAT:-3}"
work="${PEERS_DIR:-/tmp/smsfilter-peers}"
bin=.build/release/smsfilter

if ! python3 -c "import ahocorasick, ahocorasick_rs, hyperscan, zstandard, orjson" 2>/dev/null; then
  echo "peers: installing pyahocorasick ahocorasick_rs hyperscan zstandard orjson from PyPI"
  python3 -m pip install -q pyahocorasick ahocorasick_rs hyperscan zstandard orjson
fi
if ! command -v rg >/dev/null 2>&1; then
  echo "peers: installing ripgrep with apt-get"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq ripgrep >/dev/null
fi
[ -x "$bin" ] || make build
mkdir -p "$work"
if [ ! -f "$work/corpus-$count.jsonl.zst" ]; then
  "$bin" generate --count "$count" --seed 1 -o "$work/corpus-$count.jsonl.zst" --quiet --force
fi
"$bin" bench - --phrases-file "$work/phrases.txt" --force
python3 Benchmarks/peers/peers_table.py --bin "$bin" --corpus "$work/corpus-$count.jsonl.zst" \
  --phrases "$work/phrases.txt" --repeat "$repeat" --work "$work" --doc docs/PERFORMANCE.md
