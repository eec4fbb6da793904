#!/usr/bin/env bash
# Scripts/check-simd.sh: the C SIMD kernels (the prefilter's and the JSON scanner's, and their shared CPU
# dispatch) compile without warnings for every CPU family the package targets, including the ARM64 NEON
# paths that cannot run on an x86-64 machine (Apple silicon, where the message filter extension runs): clang
# type-checks them with arm64 targets.
set -euo pipefail
cd "$(dirname "$0")/.."
clang=${CLANG:-clang}
for kernel in CSIMDDispatch/simd_dispatch.c CAhoCorasickSIMD/teddy.c CJSONSIMD/json_simd.c; do
    src=Sources/$kernel
    inc=$(dirname "$src")/include
    for target in x86_64-unknown-linux-gnu arm64-apple-macos13 arm64-apple-ios16 aarch64-unknown-linux-gnu; do
        "$clang" --target="$target" -ffreestanding -std=c11 -O2 -Wall -Wextra -Werror -fsyntax-only -I "$inc" -I Sources/CSIMDDispatch/include "$src"
    done
    echo "check-simd: ok: $src type-checks for x86-64, arm64 macOS/iOS and aarch64 Linux"
done
