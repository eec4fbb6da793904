#!/usr/bin/env bash
# Spark integration test (issue 8), run by `make test-spark` from the repository root after `make build`.
#
# Splits the two real corpora (../shared/corpora) into archives (zstd, plain, multi-frame, two with the
# same base name), runs integrations/spark/smsfilter_job.py with spark-submit in local[2] mode, and checks
# that every archive's output is byte-identical to a single-machine `smsfilter classify` run with the same
# options, and that the merged counts equal one single-machine run over all the archives. Three runs:
#   1. bare paths and file:// URIs read by Spark (sc.binaryFiles), a local output prefix, --rules shipped;
#   2. file:// URIs streamed through Hadoop's FsShell, a file:// output prefix written through Hadoop,
#      --labels-only, one truncated archive: the job must name it and exit 65 without a total;
#   3. the same archives with the binary and its libraries shipped as an --archives bundle
#      (make-bundle.sh), --allow-damaged and --threads-per-task 2: exit 0 and a total;
#   4. a missing archive: the task fails with the archive's name, exit status 66 and the binary's
#      message, and the job exits 70 without a total.
# Also checks the streaming filter mode: stdin → stdout carries records only, nothing on stderr with -q.
#
# Environment: PYTHON (default python3), SMSFILTER_CORPORA (default ../shared/corpora from the checkout),
# KEEP_TMP=1 keeps the temporary folder.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
BIN="$root/.build/release/smsfilter"
JOB="$here/smsfilter_job.py"
CORPORA="${SMSFILTER_CORPORA:-$root/../shared/corpora}"
PYTHON="$(command -v "${PYTHON:-python3}" || true)"
START=$SECONDS

say() { printf 'test-spark [%3ds] %s\n' "$((SECONDS - START))" "$*"; }
fail() { printf 'test-spark: FAIL: %s\n' "$*" >&2; exit 1; }

[ -n "$PYTHON" ] || fail "python3 not found"
[ -x "$BIN" ] || fail "$BIN is missing: run \`make build\` (or \`make test-spark\`, which builds first)"
for corpus in uci_sms_spam thai_sms; do
    [ -f "$CORPORA/$corpus.jsonl.zst" ] || fail "corpus $CORPORA/$corpus.jsonl.zst is missing (set SMSFILTER_CORPORA)"
done
command -v zstd >/dev/null || fail "the zstd command is missing (\`make deps\` installs it)"

# --- Java and pyspark ------------------------------------------------------------------------------
if ! command -v java >/dev/null; then
    if command -v apt-get >/dev/null; then
        say "installing a Java 17 runtime with apt-get"
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null \
            || fail "could not install openjdk-17-jre-headless; Spark needs Java 17"
    else
        fail "Spark needs Java (17): install a JDK/JRE 17"
    fi
fi
java_major=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
# pyspark 3.5 runs on Java 8/11/17 and Python 3.8–3.11 (3.12 from 3.5.?); 4.x needs Java 17+.
pyspark_ok() {
    "$PYTHON" - <<'EOF' 2>/dev/null
import sys
import pyspark
major, minor = (int(x) for x in pyspark.__version__.split(".")[:2])
sys.exit(0 if (major, minor) >= (3, 4) else 1)
EOF
}
if ! pyspark_ok; then
    say "installing pyspark 3.5 from PyPI (about 320 MB, once)"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check 'pyspark==3.5.*' \
        || "$PYTHON" -m pip install --quiet --disable-pip-version-check --break-system-packages 'pyspark==3.5.*' \
        || fail "pip could not install pyspark"
    pyspark_ok || fail "pyspark was installed but does not import"
fi
PYSPARK_DIR=$("$PYTHON" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
SPARK_SUBMIT="$PYSPARK_DIR/bin/spark-submit"
say "pyspark $("$PYTHON" -c 'import pyspark; print(pyspark.__version__)'), Java $java_major, $("$PYTHON" --version), $("$BIN" --version)"

# --- scratch space, quiet Spark ----------------------------------------------------------------------
TMP=$(mktemp -d "${TMPDIR:-/tmp}/smsfilter-spark-test.XXXXXX")
cleanup() { if [ "${KEEP_TMP:-0}" = 1 ]; then echo "test-spark: kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT

mkdir -p "$TMP/archives"/{a,b,c,d,e,f,g} "$TMP/ref"
# shellcheck source=integrations/spark/lib.sh
source "$here/lib.sh"
spark_quiet_local "$TMP" "$PYTHON"

# --- archives ------------------------------------------------------------------------------------------
say "making archives from $CORPORA"
A="$TMP/archives"
zstd -dcq "$CORPORA/uci_sms_spam.jsonl.zst" > "$TMP/uci.jsonl"
zstd -dcq "$CORPORA/thai_sms.jsonl.zst" > "$TMP/thai.jsonl"
sed -n '1,2000p'    "$TMP/uci.jsonl"  | zstd -q -3 -c > "$A/a/uci-part1.jsonl.zst"
sed -n '2001,4000p' "$TMP/uci.jsonl"  > "$A/b/uci-part2.jsonl"
{ sed -n '4001,4800p' "$TMP/uci.jsonl" | zstd -q -1 -c; sed -n '4801,$p' "$TMP/uci.jsonl" | zstd -q -19 -c; } \
    > "$A/c/uci-part3.jsonl.zst"                                      # two concatenated frames
sed -n '1,1800p'    "$TMP/thai.jsonl" | zstd -q -1 -c > "$A/d/thai.jsonl.zst"
sed -n '1801,$p'    "$TMP/thai.jsonl" > "$A/e/thai.jsonl"             # same stem as d/thai.jsonl.zst
full=$(stat -c %s "$A/c/uci-part3.jsonl.zst")
head -c $((full - 200)) "$A/c/uci-part3.jsonl.zst" > "$A/f/broken.jsonl.zst"   # truncated inside a frame
# CSV (header row, CRLF, RFC 4180 quoting) of the first 300 UCI messages, read through stdin in run 1.
sed -n '1,300p' "$TMP/uci.jsonl" | "$PYTHON" -c '
import csv, json, sys
out = csv.writer(sys.stdout, lineterminator="\r\n")
out.writerow(["id", "sender", "body", "label"])
for line in sys.stdin:
    record = json.loads(line)
    out.writerow([record["id"], record["sender"] or "", record["body"], record["label"]])
' | zstd -q -c > "$A/g/uci-sample.csv.zst"
rm -f "$TMP/uci.jsonl" "$TMP/thai.jsonl"
GOOD=("$A/a/uci-part1.jsonl.zst" "$A/b/uci-part2.jsonl" "$A/c/uci-part3.jsonl.zst" "$A/d/thai.jsonl.zst" "$A/e/thai.jsonl"
      "$A/g/uci-sample.csv.zst")

cat > "$TMP/rules.yaml" <<'EOF'
version: 1
rules:
  - name: free-prize
    action: junk
    keywords: [free, prize, "claim now"]
  - name: otp
    action: transaction
    subAction: transactionalFinance
    keywords: [otp, "one-time password"]
EOF

cat > "$TMP/manifest1.txt" <<EOF
# run 1: bare paths (the binary opens them) and file:// URIs (Spark reads the bytes)
$A/a/uci-part1.jsonl.zst
file://$A/b/uci-part2.jsonl

$A/c/uci-part3.jsonl.zst
file://$A/d/thai.jsonl.zst
$A/e/thai.jsonl
file://$A/g/uci-sample.csv.zst
EOF
cat > "$TMP/manifest2.txt" <<EOF
file://$A/a/uci-part1.jsonl.zst
file://$A/f/broken.jsonl.zst
file://$A/e/thai.jsonl
EOF
cat > "$TMP/manifest3.txt" <<EOF
$A/a/uci-part1.jsonl.zst
$A/f/broken.jsonl.zst
file://$A/e/thai.jsonl
EOF

# --- single-machine references --------------------------------------------------------------------------
# ref/<tag>/<archive-id>.{zst,counts.json}: one `smsfilter classify` per archive with the job's options.
reference() {  # tag, extra classify options…
    local tag=$1; shift
    mkdir -p "$TMP/ref/$tag"
    local archive id status
    for archive in "${GOOD[@]}" "$A/f/broken.jsonl.zst"; do
        id=$(echo "${archive#"$A"/}" | tr '/' '_')
        status=0
        "$BIN" classify -q "$@" --counts "$TMP/ref/$tag/$id.counts.json" -o "$TMP/ref/$tag/$id.zst" "$archive" \
            2> "$TMP/ref/$tag/$id.stderr" || status=$?
        if [ "$archive" = "$A/f/broken.jsonl.zst" ]; then
            [ "$status" = 65 ] || fail "single-machine run on the truncated archive exited $status, not 65"
        else
            [ "$status" = 0 ] || fail "single-machine run on $archive exited $status: $(cat "$TMP/ref/$tag/$id.stderr")"
        fi
    done
}
say "single-machine reference runs"
reference run1 --threads 1 --rules "$TMP/rules.yaml"
reference run2 --threads 1 --labels-only
reference run3 --threads 2 --labels-only
# One single-machine run over all the archives of each manifest: what the merged counts must equal.
"$BIN" classify -q --threads 1 --rules "$TMP/rules.yaml" --no-output --counts "$TMP/ref/run1/all.counts.json" "${GOOD[@]}"
status=0
"$BIN" classify -q --threads 2 --labels-only --no-output --counts "$TMP/ref/run3/all.counts.json" \
    "$A/a/uci-part1.jsonl.zst" "$A/f/broken.jsonl.zst" "$A/e/thai.jsonl" 2>/dev/null || status=$?
[ "$status" = 65 ] || fail "single-machine run over manifest 3 exited $status, not 65"

# --- streaming filter mode: records only on stdout, nothing on stderr ---------------------------------
say "streaming filter mode (stdin → stdout)"
for archive in "${GOOD[@]}"; do
    id=$(echo "${archive#"$A"/}" | tr '/' '_')
    fmt=(); case "$archive" in *.csv.zst) fmt=(--input-format csv) ;; esac   # stdin has no name
    "$BIN" classify -q --force --threads 1 --rules "$TMP/rules.yaml" ${fmt[@]+"${fmt[@]}"} --counts "$TMP/stream.counts.json" \
        < "$archive" > "$TMP/stream.out" 2> "$TMP/stream.err" || fail "stdin → stdout run on $archive failed"
    [ ! -s "$TMP/stream.err" ] || fail "classify -q wrote to stderr on $archive: $(head -c 500 "$TMP/stream.err")"
    zstd -dcq "$TMP/ref/run1/$id.zst" | cmp -s - "$TMP/stream.out" \
        || fail "stdout of the stdin → stdout filter differs from the -o output on $archive"
done

# --- the job's helpers, without Spark ----------------------------------------------------------------
say "job helpers (names, URIs, error lines)"
"$PYTHON" - "$JOB" <<'EOF' || fail "the job's helper functions misbehave"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("job", sys.argv[1])
job = importlib.util.module_from_spec(spec)
spec.loader.exec_module(job)
names = job.output_names(["/a/sms.jsonl.zst", "hdfs://nn/b/sms.jsonl", "/c/export.csv.zst", "/d/total.xml",
                          "/e/plain"], False, [])
assert names[2] == ("export.labelled.csv.zst", "export.counts.json"), names
assert names[0][0].startswith("sms-") and names[1][0].startswith("sms-") and names[0] != names[1], names
assert names[3][0].startswith("total-") and names[3][0].endswith(".labelled.xml.zst"), names
assert names[4] == ("plain.labelled.jsonl.zst", "plain.counts.json"), names
assert job.output_names(["/x/y.tsv"], True, [])[0] == ("y.labels.jsonl.zst", "y.counts.json")
assert job.output_names(["/x/y"], False, ["--input-format", "csv"])[0][0] == "y.labelled.csv.zst"
assert job.is_uri("s3a://b/k") and job.is_uri("file:///x") and job.is_uri("hdfs:/x")
assert not job.is_uri("/x/y") and not job.is_uri("x/y") and not job.is_uri("C:/x")
trace = ("Traceback…\n  File \"job.py\", line 3\n    raise RuntimeError(\"smsfilter-job: %s\")\n"
         "RuntimeError: smsfilter-job: smsfilter classify failed on /a with exit status 66: no such file\n"
         "\n\tat org.apache.spark.api.python.BasePythonRunner\n")
message = job.task_error_message(Exception(trace))
assert message == "smsfilter-job: smsfilter classify failed on /a with exit status 66: no such file", message
assert [job.format_by_name(n) for n in ("a.CSV.zst", "b.tsv", "c.ndjson.zst", "d.xml", "e.json", "f.csv.zstd")] == \
    ["csv", "tsv", "jsonl", "xml", None, None]
fixed = json.loads(job.name_stdin(json.dumps({"files": [{"path": "<stdin>"}], "records": 1}), "s3a://b/k"))
assert fixed == {"files": [{"path": "s3a://b/k"}], "records": 1}, fixed
# Splitting helpers: sizes, part names, local paths, seek tables cut off and merged.
assert [job.parse_size(t) for t in ("256M", "1G", "4k", "0", "65536")] == [256 << 20, 1 << 30, 4 << 10, 0, 65536]
parts, manifest = job.part_names("x.labelled.jsonl.zst", 2)
assert parts == ["x.labelled.jsonl.part-00000.zst", "x.labelled.jsonl.part-00001.zst", "x.labelled.jsonl.part-00002.zst"], parts
assert manifest == "x.labelled.jsonl.parts.json", manifest
assert job.local_path("file:///a/b.zst") == "/a/b.zst" and job.local_path("/a/b") == "/a/b" and job.local_path("hdfs://n/a") is None
import os, struct, tempfile
def seekable(entries, payload):
    table = b"".join(struct.pack("<III", *e) for e in entries) + struct.pack("<IBI", len(entries), 0x80, 0x8F92EAB1)
    return payload + struct.pack("<II", 0x184D2A5E, len(table)) + table
with tempfile.TemporaryDirectory() as d:
    a, b = os.path.join(d, "a"), os.path.join(d, "b")
    open(a, "wb").write(seekable([(3, 10, 7)], b"abc"))
    open(b, "wb").write(seekable([(2, 5, 8), (1, 4, 9)], b"de" + b"f"))
    ta, tb = job.strip_seek_table(a), job.strip_seek_table(b)
    assert open(a, "rb").read() == b"abc" and open(b, "rb").read() == b"def", "the tables are cut off"
    assert ta == {"checksums": True, "entries": [[3, 10, 7]]}, ta
    assert job.strip_seek_table(a) is None, "no table left"
    merged = job.seek_table_bytes([ta, tb, {"checksums": False, "entries": []}])
    assert merged == seekable([(3, 10, 7), (2, 5, 8), (1, 4, 9)], b""), merged
EOF

# --- the comparisons --------------------------------------------------------------------------------------
check() {  # tag, output prefix (path), expect-total (yes/no)
    "$PYTHON" - "$A" "$TMP/ref/$1" "$2" "$3" <<'EOF'
import json, os, sys
archives, ref, prefix, expect_total = sys.argv[1:5]
problems = []
index = json.load(open(os.path.join(prefix, "index.json")))
names = [entry["output"] for entry in index] + [entry["counts"] for entry in index if entry["counts"]]
if len(set(names)) != len(names):
    problems.append("output names clash: %s" % names)
for entry in index:
    path = entry["archive"][len("file://"):] if entry["archive"].startswith("file://") else entry["archive"]
    ident = os.path.relpath(path, archives).replace("/", "_")
    damaged = ident == "f_broken.jsonl.zst"
    if not entry.get("splitting", "").startswith("not split: "):
        problems.append("%s: these small archives are one task each, and the index says why: %r"
                        % (entry["archive"], entry.get("splitting")))
    if entry["status"] != ("damaged" if damaged else "ok"):
        problems.append("%s: status %s (exit %s)" % (entry["archive"], entry["status"], entry["exitStatus"]))
    got = os.path.join(prefix, entry["output"])
    want = os.path.join(ref, ident + ".zst")
    if not os.path.isfile(got):
        problems.append("%s: no output %s" % (entry["archive"], got))
    elif open(got, "rb").read() != open(want, "rb").read():
        problems.append("%s: output %s is not byte-identical to the single-machine output"
                        % (entry["archive"], entry["output"]))
    keys = ("records", "labelled", "rejected", "folders", "rules", "dropped", "ruleSet")
    got_counts = json.load(open(os.path.join(prefix, entry["counts"])))
    want_counts = json.load(open(os.path.join(ref, ident + ".counts.json")))
    for key in keys:
        if got_counts.get(key) != want_counts.get(key):
            problems.append("%s: counts[%s] %r != single-machine %r"
                            % (entry["archive"], key, got_counts.get(key), want_counts.get(key)))
total_path = os.path.join(prefix, "total.counts.json")
if expect_total == "yes":
    total = json.load(open(total_path))
    single = json.load(open(os.path.join(ref, "all.counts.json")))
    for key in ("records", "labelled", "rejected", "folders", "rules", "dropped", "ruleSet", "bytes"):
        if total.get(key) != single.get(key):
            problems.append("total.counts.json[%s] %r != single-machine run over all archives %r"
                            % (key, total.get(key), single.get(key)))
    named = sorted(f.get("path") for f in total.get("files", []))
    wanted = sorted(entry["archive"] for entry in index)
    if named != wanted:
        problems.append("total.counts.json names the files %s, not the archives %s" % (named, wanted))
    if total.get("records") != total.get("labelled", 0) + total.get("rejected", 0):
        problems.append("total: records != labelled + rejected")
    summary = "%d archives, %s records, %s labelled, %s rejected, folders %s" % (
        len(index), total["records"], total["labelled"], total["rejected"],
        {k: v for k, v in total["folders"].items() if v})
elif os.path.exists(total_path):
    problems.append("total.counts.json was written although an archive is damaged")
else:
    summary = "%d archives, no total (as expected)" % len(index)
if problems:
    print("test-spark: FAIL:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print("  ok: " + summary)
EOF
}

SUBMIT_OPTS=()
submit() {  # log name, expected exit status, job arguments… (spark-submit options in SUBMIT_OPTS)
    local log=$1 expected=$2; shift 2
    local status=0 t0=$SECONDS
    # spark-submit runs the Python driver with its stderr merged into stdout: keep both in one log.
    "$SPARK_SUBMIT" --master 'local[2]' ${SUBMIT_OPTS[@]+"${SUBMIT_OPTS[@]}"} "$JOB" --log-level ERROR "$@" \
        > "$TMP/$log.err" 2>&1 || status=$?
    if [ "$status" != "$expected" ]; then
        echo "---- spark-submit stderr ($log) ----" >&2; tail -n 60 "$TMP/$log.err" >&2
        fail "the Spark job ($log) exited $status, expected $expected"
    fi
    ! grep -q 'smsfilter-job: warning' "$TMP/$log.err" || fail "$(grep 'smsfilter-job: warning' "$TMP/$log.err")"
    say "  spark-submit ($log) exited $status as expected in $((SECONDS - t0)) s"
}

say "run 1: Spark local[2], bare paths + file:// read by sc.binaryFiles, --rules shipped, local prefix"
submit run1 0 --manifest "$TMP/manifest1.txt" --output-prefix "$TMP/out1" --binary "$BIN" \
    --rules "$TMP/rules.yaml" --threads-per-task 1
check run1 "$TMP/out1" yes || exit 1
grep -q 'smsfilter-job: 6 archives (0 damaged)' "$TMP/run1.err" || fail "run 1 printed no summary line"

say "run 2: file:// URIs streamed by Hadoop FsShell, file:// prefix written through Hadoop, --labels-only, one truncated archive"
submit run2 65 --manifest "$TMP/manifest2.txt" --output-prefix "file://$TMP/out2" --binary "$BIN" \
    --labels-only --remote-read hadoop
grep -q "DAMAGED archive file://$A/f/broken.jsonl.zst (exit 65): .*truncated" "$TMP/run2.err" \
    || { tail -n 20 "$TMP/run2.err" >&2; fail "run 2 did not name the truncated archive with the binary's message"; }
check run2 "$TMP/out2" no || exit 1

say "run 3: binary + libraries shipped with --archives (make-bundle.sh), --allow-damaged, --threads-per-task 2, --labels-only"
bash "$here/make-bundle.sh" "$BIN" "$TMP/smsfilter-bundle.tar.gz" > "$TMP/bundle.log" || fail "make-bundle.sh failed"
SUBMIT_OPTS=(--archives "$TMP/smsfilter-bundle.tar.gz#smsbundle")
submit run3 0 --manifest "$TMP/manifest3.txt" --output-prefix "$TMP/out3" --binary smsbundle/smsfilter \
    --labels-only --threads-per-task 2 --allow-damaged
SUBMIT_OPTS=()
grep -q "DAMAGED archive $A/f/broken.jsonl.zst" "$TMP/run3.err" || fail "run 3 did not report the truncated archive"
check run3 "$TMP/out3" yes || exit 1

say "run 4: an archive that does not exist: the task fails loudly, the job exits 70"
printf '%s\n' "$A/a/uci-part1.jsonl.zst" "$A/missing/nowhere.jsonl.zst" > "$TMP/manifest4.txt"
submit run4 70 --manifest "$TMP/manifest4.txt" --output-prefix "$TMP/out4" --binary "$BIN"
grep -q "smsfilter-job: the job failed: smsfilter-job: smsfilter classify failed on $A/missing/nowhere.jsonl.zst with exit status 66: smsfilter: " "$TMP/run4.err" \
    || { tail -n 20 "$TMP/run4.err" >&2; fail "run 4 did not name the missing archive, the exit status and the binary's message"; }
[ ! -e "$TMP/out4/total.counts.json" ] || fail "run 4 wrote a total although a task failed"

# --- issue 24: one archive across several tasks ---------------------------------------------------------
# A generated archive of more than 200 MB, as a seekable archive (4 MiB frames and a seek table, the layout
# smsfilter writes) and as pzstd writes it, split into tasks of at least 16 MB decoded (at least 8 each):
# the joined parts must decode to the bytes of one single-machine classify of the whole archive, the rejects
# likewise (line numbers included), the counts must be equal. The fixture holds a record crossing every
# split boundary (checked), malformed and blank lines, CRLF lines, and a 40 MB record over --max-record that
# spans three splits.
S="$TMP/split"
mkdir -p "$S"
say "split proof: generating a 200+ MB archive (seekable and pzstd variants)"
"$BIN" generate --count 850000 --seed 24 -o "$S/base.jsonl" -q
"$PYTHON" - "$S/base.jsonl" "$S/big.jsonl" "$S/big.jsonl.zst" <<'PYEOF' || fail "could not build the split fixture"
import struct, subprocess, sys
source, plain, seekable = sys.argv[1:4]
lines = open(source, "rb").read().split(b"\n")
for k in range(5, len(lines) - 1, 40_000):
    lines[k] = b'{"id": "broken-%d", "body": ' % k          # malformed JSON
for k in range(7, len(lines) - 1, 50_000):
    lines[k] = b""                                          # blank line
for k in range(9, len(lines) - 1, 3):
    lines[k] += b"\r"                                       # CRLF on a third of the records
lines[len(lines) // 3] = b'{"id": "long", "body": "' + b"x" * (40 << 20) + b'"}'   # over --max-record 16M
data = b"\n".join(lines)
open(plain, "wb").write(data)
# zstd's seekable format by hand: frames of 4 MiB decoded (zstd CLI), then the seek table (no checksums).
frames, entries, at = [], [], 0
while at < len(data):
    end = min(len(data), at + (4 << 20))
    frame = subprocess.run(["zstd", "-q", "-c", "-3"], input=data[at:end], capture_output=True, check=True).stdout
    frames.append(frame)
    entries.append(struct.pack("<II", len(frame), end - at))
    at = end
table = b"".join(entries) + struct.pack("<IBI", len(entries), 0, 0x8F92EAB1)
with open(seekable, "wb") as out:
    out.write(b"".join(frames) + struct.pack("<II", 0x184D2A5E, len(table)) + table)
PYEOF
rm -f "$S/base.jsonl"
pzstd -q -p 2 -3 "$S/big.jsonl" -o "$S/big.pz.jsonl.zst" || fail "pzstd failed"
say "  $(stat -c %s "$S/big.jsonl") decoded bytes; seekable $(stat -c %s "$S/big.jsonl.zst") bytes, pzstd $(stat -c %s "$S/big.pz.jsonl.zst") bytes"
SPLIT_ARGS=(--rules "$TMP/rules.yaml" --max-record 16M)
for v in big big.pz; do
    t0=$SECONDS
    "$BIN" classify -q --threads 2 "${SPLIT_ARGS[@]}" -o "$S/ref.$v.jsonl.zst" --rejects "$S/ref.$v.rejects.jsonl.zst" \
        --counts "$S/ref.$v.counts.json" "$S/$v.jsonl.zst" || fail "single-machine classify of $v.jsonl.zst failed"
    say "  single-machine classify --threads 2 of $v.jsonl.zst: $((SECONDS - t0)) s"
done
printf '%s\n' "$S/big.jsonl.zst" "file://$S/big.pz.jsonl.zst" > "$TMP/manifest5.txt"

say "run 5: the two archives split into tasks of at least 16M decoded bytes, --rejects, local[2]"
submit run5 0 --manifest "$TMP/manifest5.txt" --output-prefix "$TMP/out5" --binary "$BIN" --rules "$TMP/rules.yaml" \
    --split-size 16M --rejects --classify-arg=--max-record --classify-arg=16M
grep -q 'smsfilter-job: 2 archives split into' "$TMP/run5.err" || fail "run 5 did not say it split the archives"
"$PYTHON" - "$S" "$TMP/out5" "$BIN" <<'PYEOF' || exit 1
import json, os, subprocess, sys
split_dir, prefix, binary = sys.argv[1:4]
problems = []
index = json.load(open(os.path.join(prefix, "index.json")))
plain = open(os.path.join(split_dir, "big.jsonl"), "rb").read()
long_start = plain.index(b'{"id": "long"')
long_end = plain.index(b"\n", long_start)
def decoded(path):
    return subprocess.run(["zstd", "-dcq", path], capture_output=True, check=True).stdout
def joined(manifest):
    parts = json.load(open(os.path.join(prefix, manifest)))["parts"]
    target = os.path.join(prefix, manifest + ".joined.zst")
    with open(target, "wb") as out:
        for part in parts:
            out.write(open(os.path.join(prefix, part), "rb").read())
    return target
for entry, variant in zip(index, ("big", "big.pz")):
    name = entry["archive"]
    splits = entry.get("splits") or []
    if len(splits) < 8:
        problems.append("%s: %d splits, expected at least 8 (%s)" % (name, len(splits), entry.get("splitting")))
        continue
    if entry["status"] != "ok" or any(s["status"] != "ok" for s in splits):
        problems.append("%s: status %s" % (name, entry["status"]))
    # The plan's boundaries, against the decoded archive: a record crosses every one, and the long record
    # covers one split whole (it spans three).
    plan = json.loads(subprocess.run([binary, "plan", "--json", "--lines", "--split-size", "16M",
                                      os.path.join(split_dir, variant + ".jsonl.zst")], capture_output=True, check=True).stdout)
    if [s["range"] for s in plan["splits"]] != [s["range"] for s in splits]:
        problems.append("%s: the job's splits are not plan's" % name)
    starts = [s["decodedStart"] for s in plan["splits"]]
    if [s["firstLine"] for s in plan["splits"]] != [s["firstLine"] for s in splits]:
        problems.append("%s: the splits' first lines are not plan --lines's" % name)
    for start in starts[1:]:
        if plain[start - 1:start] == b"\n":
            problems.append("%s: no record crosses the boundary at decoded byte %d" % (name, start))
    inside = [k for k, start in enumerate(starts) if long_start < start <= long_end]
    if variant == "big" and len(inside) < 2:  # pzstd's splits are grouped by estimated sizes: it may cross fewer
        problems.append("%s: the 40 MB record crosses %d boundaries, expected 2 or more" % (name, len(inside)))
    # Outputs and rejects: the parts joined decode to the single-machine run's; the join is a seekable archive.
    for kind, manifest, ref in (("records", entry["output"], "ref.%s.jsonl.zst" % variant),
                                ("rejects", entry["rejects"], "ref.%s.rejects.jsonl.zst" % variant)):
        whole = joined(manifest)
        if decoded(whole) != decoded(os.path.join(split_dir, ref)):
            problems.append("%s: the joined %s parts do not decode to the single-machine %s" % (name, kind, kind))
        info = json.loads(subprocess.run([binary, "plan", "--json", "--input-format", "jsonl", whole],
                                         capture_output=True, check=True).stdout)
        if info.get("frameIndex") != "seek table":
            problems.append("%s: the joined %s parts are not one seekable archive (%s)" % (name, kind, info.get("frameIndex")))
    got = json.load(open(os.path.join(prefix, entry["counts"])))
    want = json.load(open(os.path.join(split_dir, "ref.%s.counts.json" % variant)))
    if name.startswith("file://"):
        want["files"][0]["path"] = name  # the job names an archive as its manifest does
    for key in set(got) | set(want):
        if key not in ("seconds", "threads", "ruleSource") and got.get(key) != want.get(key):
            problems.append("%s: counts[%s] %r != single-machine %r" % (name, key, got.get(key), want.get(key)))
    rejected = decoded(os.path.join(split_dir, "ref.%s.rejects.jsonl.zst" % variant)).count(b"\n")
    print("  ok: %s: %d splits (the 40 MB record over %d of them), %d records, %d rejected (%d reject lines, line numbers included)"
          % (name, len(splits), len(inside) + 1, got["records"], got["rejected"], rejected))
if problems:
    print("test-spark: FAIL:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
PYEOF

say "run 6: damage inside one split: that split exits 65, the index names it, the other splits run"
head -c $((24 << 20)) "$S/big.jsonl" > "$S/small.jsonl"
"$BIN" classify -q --threads 1 --rules "$TMP/rules.yaml" --frame-size 1M -o "$S/small.jsonl.zst" "$S/small.jsonl" \
    || fail "could not make the small seekable archive"
"$PYTHON" - "$S/small.jsonl.zst" "$S/damaged.jsonl.zst" "$BIN" <<'PYEOF' || fail "could not damage the archive"
import json, subprocess, sys
source, target, binary = sys.argv[1:4]
plan = json.loads(subprocess.run([binary, "plan", "--json", "--split-size", "1M", source], capture_output=True, check=True).stdout)
assert len(plan["splits"]) >= 6, plan
start, end = plan["splits"][3]["start"], plan["splits"][3]["end"]
data = bytearray(open(source, "rb").read())
data[(start + end) // 2] ^= 0x5A
open(target, "wb").write(data)
PYEOF
printf '%s\n' "$S/damaged.jsonl.zst" > "$TMP/manifest6.txt"
submit run6 65 --manifest "$TMP/manifest6.txt" --output-prefix "$TMP/out6" --binary "$BIN" --split-size 1M --labels-only
grep -q "DAMAGED archive $S/damaged.jsonl.zst split 3 (bytes [0-9]*:[0-9]*) (exit 65): .*corrupt zstd data" "$TMP/run6.err" \
    || { tail -n 20 "$TMP/run6.err" >&2; fail "run 6 did not name the damaged split with the binary's message"; }
"$PYTHON" - "$TMP/out6/index.json" <<'PYEOF' || fail "run 6: the index does not name the damaged split alone"
import json, sys
entry = json.load(open(sys.argv[1]))[0]
statuses = [s["status"] for s in entry["splits"]]
assert entry["status"] == "damaged", entry["status"]
assert statuses[3] == "damaged" and statuses.count("damaged") == 1, statuses
print("  ok: %d splits, split 3 damaged (exit 65), the others ok" % len(statuses))
PYEOF
[ ! -e "$TMP/out6/total.counts.json" ] || fail "run 6 wrote a total although a split is damaged"

say "PASS: every archive's output is byte-identical to single-machine smsfilter classify; merged counts equal; split archives join to the single-machine run"
echo "6 passed, 0 failed"
