#!/usr/bin/env bash
# Pack the smsfilter binary with the shared libraries it needs into a tarball for spark-submit --archives, so
# executors need nothing but a glibc at least as new as the build machine's. `make build` links the Swift
# runtime and Foundation statically, so these are libzstd, zlib, libstdc++ and libgcc_s (a binary built
# without --static-swift-stdlib gets the Swift runtime's libraries bundled too):
#
#   integrations/spark/make-bundle.sh [BINARY] [OUT.tar.gz]
#   spark-submit --archives smsfilter-bundle.tar.gz#smsfilter-bundle … smsfilter_job.py --binary smsfilter-bundle/smsfilter …
#
# The job puts the binary's folder first on LD_LIBRARY_PATH, so the libraries next to it win over whatever
# the node has. glibc itself (libc, libm, libpthread, libdl, librt,
# the loader) is never bundled: it must come from the node.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=${1:-$here/../../.build/release/smsfilter}
OUT=${2:-smsfilter-bundle.tar.gz}
[ -x "$BIN" ] || { echo "make-bundle: $BIN is not an executable (run make build)" >&2; exit 66; }
command -v ldd >/dev/null || { echo "make-bundle: ldd is missing" >&2; exit 70; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$BIN" "$stage/smsfilter"
missing=$(ldd "$BIN" | awk '/not found/ {print $1}')
[ -z "$missing" ] || { echo "make-bundle: libraries not found here: $missing" >&2; exit 70; }
ldd "$BIN" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
    case "$name" in
        libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libresolv.so.*) continue ;;
    esac
    cp -L "$path" "$stage/$name"
done
glibc=$(objdump -T "$BIN" "$stage"/*.so* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1 || true)
tar -C "$stage" -czf "$OUT" .
echo "make-bundle: $OUT ($(du -h "$OUT" | cut -f1)): smsfilter and $(ls "$stage" | grep -c '\.so') libraries; executors need ${glibc:-glibc} or newer"
