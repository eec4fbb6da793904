#!/usr/bin/env bash
# Fuzz AhoCorasick's loader and search loops with libFuzzer + AddressSanitizer.
#
#   Scripts/fuzz-aho.sh [seconds]        (default 30)
#
# Builds .build/fuzz/fuzz-aho from Sources/AhoCorasick/*.swift + Fuzz/FuzzLoadScan.swift with
# `swiftc -sanitize=fuzzer,address` (with AHOCORASICK_INTERNAL_CHECKS), seeds .build/fuzz/corpus with
# serialized automata, and runs for the given time. Exits non-zero when libFuzzer finds a crash (the
# reproducer is written to .build/fuzz/crash-*).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
out=.build/fuzz
mkdir -p "$out/corpus"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -D AHOCORASICK_INTERNAL_CHECKS -module-name AhoCorasickFuzz \
    Sources/AhoCorasick/*.swift Fuzz/FuzzLoadScan.swift -o "$out/fuzz-aho"
FUZZ_SEEDS="$out/corpus" "$out/fuzz-aho" -runs=0 "$out/corpus" >/dev/null 2>&1 || true
exec "$out/fuzz-aho" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" -print_final_stats=1 "$out/corpus"
