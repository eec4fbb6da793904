#!/usr/bin/env bash
# Scripts/check-simd.sh: the prefilter's C kernels compile without warnings for every CPU family the
# package targets, including the ARM64 NEON path that cannot run on an x86-64 machine (Apple silicon,
# where the message filter extension runs): clang type-checks it with an arm64 target.
set -euo pipefail
cd "$(dirname "$0")/.."
src=Sources/CAhoCorasickSIMD/teddy.c
inc=Sources/CAhoCorasickSIMD/include
clang=${CLANG:-clang}
for target in x86_64-unknown-linux-gnu arm64-apple-macos13 arm64-apple-ios16 aarch64-unknown-linux-gnu; do
    "$clang" --target="$target" -ffreestanding -std=c11 -O2 -Wall -Wextra -Werror -fsyntax-only -I "$inc" "$src"
done
echo "check-simd: ok: $src type-checks for x86-64, arm64 macOS/iOS and aarch64 Linux"
