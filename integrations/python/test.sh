#!/usr/bin/env bash
# The DataFrame integration's test (issue 35), run by `make test-spark` (and `make test-dataframes`) from the
# repository root after `make build`: test_frames.py labels a Parquet table of real corpus rows through
# Spark (mapInArrow), pyarrow, pandas and the command line, each against one `smsfilter classify` run of the
# same records. Installs pyspark 3.5, pyarrow and pandas from PyPI when missing; Spark needs Java 17.
#
# Environment: PYTHON (default python3), SMSFILTER_CORPORA (default ../shared/corpora from the checkout),
# SMSFILTER_BIN (default .build/release/smsfilter), KEEP_TMP=1 keeps the temporary folder.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN="${SMSFILTER_BIN:-$root/.build/release/smsfilter}"
CORPORA="${SMSFILTER_CORPORA:-$root/../shared/corpora}"
PYTHON="$(command -v "${PYTHON:-python3}" || true)"
fail() { printf 'test-dataframes: FAIL: %s\n' "$*" >&2; exit 1; }

[ -n "$PYTHON" ] || fail "python3 not found"
[ -x "$BIN" ] || fail "$BIN is missing: run \`make build\`"
for corpus in uci_sms_spam thai_sms; do
    [ -f "$CORPORA/$corpus.jsonl.zst" ] || fail "corpus $CORPORA/$corpus.jsonl.zst is missing (set SMSFILTER_CORPORA)"
done
command -v zstd >/dev/null || fail "the zstd command is missing (\`make deps\` installs it)"
command -v java >/dev/null || fail "Spark needs Java 17 (make test-spark installs it with apt-get)"
if ! "$PYTHON" -c 'import pyspark, pyarrow, pandas' 2>/dev/null; then
    echo "test-dataframes: installing pyspark 3.5, pyarrow and pandas from PyPI"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check 'pyspark==3.5.*' pyarrow pandas \
        || "$PYTHON" -m pip install --quiet --disable-pip-version-check --break-system-packages 'pyspark==3.5.*' pyarrow pandas \
        || fail "pip could not install pyspark, pyarrow and pandas"
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/smsfilter-frames-test.XXXXXX")
cleanup() { if [ "${KEEP_TMP:-0}" = 1 ]; then echo "test-dataframes: kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT
# shellcheck source=integrations/spark/lib.sh
source "$root/integrations/spark/lib.sh"
spark_quiet_local "$TMP" "$PYTHON"
"$PYTHON" "$here/test_frames.py" "$BIN" "$CORPORA" "$TMP"
