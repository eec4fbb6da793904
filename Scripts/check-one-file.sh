#!/usr/bin/env bash
# One file to copy (issue 35): the release binary links the Swift runtime statically, so that copied to a
# machine without the Swift toolchain it starts and classifies. Run by `make test` (target test-one-file,
# after `make build`):
#
#   bash Scripts/check-one-file.sh [BINARY] [SAMPLE] [ORACLE]
#
# 1. `ldd BINARY` lists nothing of the toolchain (no libswift*, libFoundation*, libdispatch, libBlocksRuntime,
#    lib_FoundationICU, nothing under the toolchain's folder) and only the C library, the C++ runtime the
#    static Swift runtime uses (libstdc++, libgcc_s), libzstd and zlib.
# 2. The binary copied alone into a fresh folder, run with `env -i` (no PATH, no SWIFT_*), and an
#    LD_LIBRARY_PATH that holds only an empty folder: `--version` works, and it classifies SAMPLE with
#    exactly the labels and counts of ORACLE (the build tree's binary, by default the debug build: another
#    build of the same sources) run normally.
# 3. As root, where mounting is allowed: a fresh root holding only the binary, the system libraries ldd
#    lists (at their paths) and SAMPLE, entered with chroot (/proc mounted): the same labels. The toolchain
#    is not there at all. Skipped, and said, where it cannot run (not root, no chroot, no mount).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/smsfilter}
SAMPLE=${2:-samples/sample.jsonl.zst}
ORACLE=${3:-.build/debug/smsfilter}
fail() { printf 'check-one-file: FAIL: %s\n' "$*" >&2; exit 1; }
say() { printf 'check-one-file: %s\n' "$*"; }

[ -x "$BIN" ] || fail "$BIN is not built (make build)"
[ -f "$SAMPLE" ] || fail "$SAMPLE is missing"
[ -x "$ORACLE" ] || ORACLE=$BIN
command -v ldd >/dev/null || fail "ldd is missing"
case "$(uname -s)" in Linux) ;; *) say "not Linux: the Swift runtime is the system's here; nothing to check"; exit 0 ;; esac

# --- 1. What the binary loads ------------------------------------------------------------------------
toolchain=""
if command -v swift >/dev/null; then toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")"); fi
libs=$(ldd "$BIN")
bad=""
while read -r line; do
    name=$(awk '{print $1}' <<<"$line")
    path=$(awk '$2 == "=>" {print $3}' <<<"$line")
    case "$name" in
        linux-vdso.so.*|linux-gate.so.*|libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|/lib*/ld-linux*|ld-linux*) ;;
        libzstd.so.*|libz.so.*|libstdc++.so.*|libgcc_s.so.*) ;;
        *) bad+=" $name" ;;
    esac
    if [ -n "$toolchain" ] && [ -n "$path" ] && [[ "$path" == "$toolchain"/* ]]; then bad+=" $name (from the toolchain)"; fi
done <<<"$libs"
if grep -Eq 'libswift|libFoundation|libdispatch|libBlocksRuntime|_FoundationICU|not found' <<<"$libs"; then bad+=" (Swift runtime libraries)"; fi
[ -z "$bad" ] || { echo "$libs" >&2; fail "$BIN loads more than the C library, libstdc++, libzstd and zlib:$bad"; }
say "ldd: $(awk '{print $1}' <<<"$libs" | grep -v vdso | tr '\n' ' ')($(du -h "$BIN" | cut -f1))"

# --- 2. Copied alone, nothing of the environment -------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smsfilter-one-file.XXXXXX")
root=""
cleanup() {
    if [ -n "$root" ] && mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc" || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/copy" "$tmp/empty-libs"
cp "$BIN" "$tmp/copy/smsfilter"
cp "$SAMPLE" "$tmp/copy/sample.jsonl.zst"
"$ORACLE" classify "$SAMPLE" --labels-only -q --threads 2 -o "$tmp/want.jsonl" --counts "$tmp/want.counts.json"
env -i LD_LIBRARY_PATH="$tmp/empty-libs" "$tmp/copy/smsfilter" --version > "$tmp/version.txt" \
    || fail "the copied binary does not start with env -i"
grep -q '^smsfilter ' "$tmp/version.txt" || fail "the copied binary's --version: $(cat "$tmp/version.txt")"
(cd "$tmp/copy" && env -i LD_LIBRARY_PATH="$tmp/empty-libs" ./smsfilter classify sample.jsonl.zst --labels-only -q --threads 2 \
    -o "$tmp/got.jsonl" --counts "$tmp/got.counts.json") || fail "the copied binary could not classify $SAMPLE with env -i"
cmp -s "$tmp/want.jsonl" "$tmp/got.jsonl" || fail "the copied binary's labels differ from $ORACLE's"
records=$(grep -o '"records" : [0-9]*' "$tmp/got.counts.json" | head -1 | grep -o '[0-9]*$')
[ "$records" -gt 0 ] && [ "$records" = "$(wc -l < "$tmp/got.jsonl")" ] || fail "the copied binary labelled $(wc -l < "$tmp/got.jsonl") of $records records"
say "copied alone, env -i, LD_LIBRARY_PATH=<empty folder>: --version works; $records records labelled as $ORACLE labels them"

# --- 3. A fresh root without the toolchain -------------------------------------------------------------
if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null || ! command -v mount >/dev/null; then
    say "chroot: skipped (needs root, chroot and mount)"
    exit 0
fi
root="$tmp/root"
mkdir -p "$root/proc"
cp "$BIN" "$root/smsfilter"
cp "$SAMPLE" "$root/sample.jsonl.zst"
awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$libs" | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done
# Foundation reads the command line from /proc/self/cmdline: every machine has /proc.
if ! mount -t proc proc "$root/proc" 2>/dev/null; then
    say "chroot: skipped (cannot mount /proc here)"
    exit 0
fi
chroot "$root" /smsfilter classify /sample.jsonl.zst --labels-only -q --threads 2 > "$tmp/chroot.jsonl" \
    || fail "the binary does not classify in a fresh root holding only it, the C library, libstdc++, libzstd and zlib"
cmp -s "$tmp/want.jsonl" "$tmp/chroot.jsonl" || fail "in a fresh root the labels differ from $ORACLE's"
say "chroot: a root of $(find "$root" -path "$root/proc" -prune -o -type f -print | wc -l) files (the binary, $(find "$root" -path "$root/proc" -prune -o -name '*.so*' -print | wc -l) system libraries, the sample), no toolchain: the same labels"
