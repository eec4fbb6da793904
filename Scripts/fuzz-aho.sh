#!/usr/bin/env bash
# Fuzz AhoCorasick's loader and search loops with libFuzzer + AddressSanitizer.
#
#   Scripts/fuzz-aho.sh [seconds]        (default 30)
#
# Builds .build/fuzz/fuzz-aho from Sources/AhoCorasick/*.swift + Fuzz/FuzzLoadScan.swift with
# `swiftc -sanitize=fuzzer,address` (with AHOCORASICK_INTERNAL_CHECKS) and the prefilter's C kernels
# (Sources/CAhoCorasickSIMD, clang with AddressSanitizer), seeds .build/fuzz/corpus with serialized
# automata of every engine, and runs for the given time. Exits non-zero when libFuzzer finds a crash (the
# reproducer is written to .build/fuzz/crash-*).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
out=.build/fuzz
mkdir -p "$out/corpus" "$out/include"
# The C module, as SwiftPM would map it.
cat > "$out/include/module.modulemap" <<MAP
module CAhoCorasickSIMD {
    header "$PWD/Sources/CAhoCorasickSIMD/include/aho_simd.h"
    export *
}
MAP
clang -fsanitize=fuzzer-no-link,address -O2 -g -c Sources/CAhoCorasickSIMD/teddy.c \
    -I Sources/CAhoCorasickSIMD/include -I Sources/CSIMDDispatch/include -o "$out/teddy.o"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -D AHOCORASICK_INTERNAL_CHECKS -module-name AhoCorasickFuzz -package-name smsfilter -I "$out/include" \
    Sources/AhoCorasick/*.swift Fuzz/FuzzLoadScan.swift "$out/teddy.o" -o "$out/fuzz-aho"
FUZZ_SEEDS="$out/corpus" "$out/fuzz-aho" -runs=0 "$out/corpus" >/dev/null 2>&1 || true
exec "$out/fuzz-aho" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" -print_final_stats=1 "$out/corpus"
