"""The DataFrame integration's test (run by test.sh, from `make test-spark`).

A Parquet table of real corpus rows (UCI SMS Spam Collection and the Thai SMS corpus, read from
../shared/corpora at test time, never copied into the repository), plus three rows the binary must reject
(a null body, a body over --max-record 4K, a lone surrogate that is not UTF-8), is labelled four ways:

  1. Spark: spark.read.parquet → label_spark (mapInArrow, 4 partitions, one smsfilter process each) →
     DataFrame.write.parquet, read back with pyarrow;
  2. pyarrow: label_parquet (Parquet in, Parquet out, batch by batch);
  3. pandas: label_pandas;
  4. python -m smsfilter_frames (the Parquet command line).

Each must give, for every row, exactly the labels of one `smsfilter classify --labels-only` run over the same
records written as JSON Lines (the oracle: the binary itself on a file), with the same counts (records,
labelled, rejected, per folder) as that run's --counts, the same rejected rows with the same reasons as its
--rejects, every input column intact, and (pyarrow, pandas, the command line) the input's row order.
A bad rule file must fail with the binary's message.
"""

import collections
import json
import os
import re
import subprocess
import sys
import time

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)

from smsfilter_frames import COLUMNS, SMSFilterError, label_pandas, label_parquet, label_spark  # noqa: E402

BINARY, CORPORA, TMP = sys.argv[1:4]
CLASSIFY_ARGS = ["--max-record", "4K"]
START = time.time()
problems = []


def say(text):
    print("test-dataframes [%3ds] %s" % (time.time() - START, text), flush=True)


def check(condition, text):
    if not condition:
        problems.append(text)
        print("test-dataframes: FAIL: %s" % text, file=sys.stderr, flush=True)


def corpus_rows():
    rows = []
    for name in ("uci_sms_spam", "thai_sms"):
        text = subprocess.run(["zstd", "-dcq", os.path.join(CORPORA, name + ".jsonl.zst")], capture_output=True,
                              check=True).stdout
        for line in text.splitlines():
            record = json.loads(line)
            rows.append({"id": record["id"], "sender": record.get("sender"), "body": record["body"],
                         "label": record.get("label"), "lang": record.get("lang"), "n": len(rows)})
    # Rows the binary must reject, each with its reason.
    rows.append({"id": "bad:null", "sender": None, "body": None, "label": None, "lang": None, "n": len(rows)})
    rows.append({"id": "bad:long", "sender": None, "body": "x" * 5000, "label": None, "lang": None, "n": len(rows)})
    rows.insert(100, {"id": "bad:surrogate", "sender": "+15550100", "body": "broken \udc80 text", "label": None,
                      "lang": None, "n": -1})
    return rows


def oracle(rows):
    """One `smsfilter classify --labels-only` run over the rows as JSON Lines: labels by id, counts, rejects."""
    path = os.path.join(TMP, "rows.jsonl")
    with open(path, "wb") as out:
        for row in rows:
            record = {"id": row["id"], "body": row["body"], "sender": row["sender"]}
            out.write((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass"))
    labels_path, counts_path, rejects_path = (os.path.join(TMP, name) for name in
                                              ("oracle.labels.jsonl", "oracle.counts.json", "oracle.rejects.jsonl"))
    subprocess.run([BINARY, "classify", "--labels-only", "-q", "--threads", "2", "-o", labels_path, "--counts",
                    counts_path, "--rejects", rejects_path] + CLASSIFY_ARGS + [path], check=True)
    labels = {}
    for line in open(labels_path, "rb"):
        record = json.loads(line)
        f = record["filter"]
        labels[record["id"]] = (f["action"], f["subAction"], f["folder"], f["rule"])
    reasons = {}
    for line in open(rejects_path, "rb"):
        record = json.loads(line)
        reasons[rows[record["line"] - 1]["id"]] = record["reason"]
    return labels, json.load(open(counts_path)), reasons


def table_of(rows):
    """The rows as a pyarrow table (the lone surrogate cannot be Arrow text: that row's body is its UTF-8
    bytes with the surrogate escaped, so it is built as the binary must see it, by a pandas frame instead)."""
    clean = [dict(row, body=row["body"]) for row in rows if row["id"] != "bad:surrogate"]
    return pa.Table.from_pylist(clean, schema=pa.schema([
        ("id", pa.string()), ("sender", pa.string()), ("body", pa.string()), ("label", pa.string()),
        ("lang", pa.string()), ("n", pa.int64())]))


def compare(name, ids, got, want_labels, want_counts, want_reasons, rows_by_id, extra=None):
    """`got`: column name → list, aligned with `ids`."""
    check(len(ids) == len(set(ids)), "%s: duplicated rows" % name)
    expected_ids = set(want_labels) | set(want_reasons)
    check(set(ids) == expected_ids, "%s: %d rows, expected %d (missing %s, extra %s)" % (
        name, len(ids), len(expected_ids), sorted(expected_ids - set(ids))[:3], sorted(set(ids) - expected_ids)[:3]))
    wrong = 0
    folders = collections.Counter()
    reasons = {}
    for k, row_id in enumerate(ids):
        mine = tuple(got["filter_" + key][k] for key in COLUMNS[:4])
        reject = got["filter_reject"][k]
        if reject is not None:
            reasons[row_id] = reject
            check(mine == (None,) * 4, "%s: rejected row %s has labels %s" % (name, row_id, mine))
            continue
        folders[mine[2]] += 1
        if want_labels.get(row_id) != mine:
            wrong += 1
            if wrong <= 3:
                check(False, "%s: row %s labelled %s, classify says %s" % (name, row_id, mine, want_labels.get(row_id)))
        for column, values in (extra or {}).items():
            source = rows_by_id[row_id][column]
            if values[k] != source:
                check(False, "%s: row %s column %s changed: %r != %r" % (name, row_id, column, values[k], source))
                break
    check(wrong == 0, "%s: %d rows labelled otherwise than classify" % (name, wrong))
    # A byte offset in a reason counts in the JSON line the binary read, which is the package's own line
    # (`{"id": ROW, …}`), not the oracle's: compared without it.
    def plain(found):
        return {k: re.sub(r" at byte [0-9]+ of the line", " at byte N of the line", v) for k, v in found.items()}
    check(plain(reasons) == plain(want_reasons), "%s: rejects %s, classify rejected %s" % (name, reasons, want_reasons))
    labelled = sum(folders.values())
    check(labelled == want_counts["labelled"] and len(reasons) == want_counts["rejected"]
          and labelled + len(reasons) == want_counts["records"],
          "%s: %d labelled, %d rejected; classify's counts %d labelled, %d rejected of %d" % (
              name, labelled, len(reasons), want_counts["labelled"], want_counts["rejected"], want_counts["records"]))
    want_folders = {folder: n for folder, n in want_counts["folders"].items() if n}
    check(dict(folders) == want_folders, "%s: folders %s != classify's %s" % (name, dict(folders), want_folders))
    say("  ok: %s: %d rows, %d labelled (%s), %d rejected, labels and reasons equal to one classify run" % (
        name, len(ids), labelled, ", ".join("%s %d" % kv for kv in sorted(folders.items())[:4]) + ", …", len(reasons)))


def main():
    rows = corpus_rows()
    rows_by_id = {row["id"]: row for row in rows}
    say("%d rows (%d real corpus rows, 3 to be rejected)" % (len(rows), len(rows) - 3))
    want_labels, want_counts, want_reasons = oracle(rows)
    check(len(want_reasons) == 3, "the oracle rejected %s, expected the 3 bad rows" % sorted(want_reasons))
    say("oracle: classify --labels-only: %d labelled, %d rejected" % (want_counts["labelled"], want_counts["rejected"]))

    # The Parquet table: several row groups, so that batches are several per partition.
    parquet = os.path.join(TMP, "messages.parquet")
    table = table_of(rows)
    pq.write_table(table, parquet, row_group_size=1000)
    arrow_rows = [row for row in rows if row["id"] != "bad:surrogate"]
    arrow_labels = {k: v for k, v in want_labels.items() if k != "bad:surrogate"}
    arrow_reasons = {k: v for k, v in want_reasons.items() if k != "bad:surrogate"}
    arrow_counts = dict(want_counts, records=want_counts["records"] - 1, rejected=want_counts["rejected"] - 1)

    # 2. pyarrow: Parquet in, Parquet out.
    out = os.path.join(TMP, "labelled.pyarrow.parquet")
    n = label_parquet(parquet, out, sender="sender", binary=BINARY, classify_args=CLASSIFY_ARGS, batch_rows=700)
    got = pq.read_table(out)
    check(n == len(arrow_rows) and got.num_rows == len(arrow_rows), "label_parquet: %d rows" % got.num_rows)
    check(got.column("id").to_pylist() == [row["id"] for row in arrow_rows], "label_parquet: the row order changed")
    check(got.schema.names == table.schema.names + ["filter_" + key for key in COLUMNS],
          "label_parquet: columns %s" % got.schema.names)
    compare("pyarrow label_parquet", got.column("id").to_pylist(), got.to_pydict(), arrow_labels, arrow_counts,
            arrow_reasons, rows_by_id, extra={c: got.column(c).to_pylist() for c in ("body", "label", "lang", "n")})

    # 3. pandas (the lone surrogate too: a Python string can hold it, the binary rejects it).
    frame = pd.DataFrame(rows, dtype=object)  # object: pandas 3 text columns are Arrow, which refuses the surrogate
    labelled = label_pandas(frame, sender="sender", binary=BINARY, classify_args=CLASSIFY_ARGS, batch_rows=1500)
    check(list(labelled["id"]) == list(frame["id"]) and list(labelled.index) == list(frame.index),
          "label_pandas: the row order or index changed")
    pandas_got = {c: [None if (isinstance(v, float) and v != v) else v for v in labelled[c]] for c in labelled.columns}
    compare("pandas label_pandas", list(labelled["id"]), pandas_got, want_labels, want_counts, want_reasons,
            rows_by_id, extra={"label": pandas_got["label"], "lang": pandas_got["lang"]})

    # 4. The command line.
    cli_out = os.path.join(TMP, "labelled.cli.parquet")
    r = subprocess.run([sys.executable, "-m", "smsfilter_frames", parquet, cli_out, "--sender", "sender",
                        "--binary", BINARY] + ["--classify-arg=%s" % a for a in CLASSIFY_ARGS],
                       cwd=here, capture_output=True, text=True)
    check(r.returncode == 0, "python -m smsfilter_frames: exit %d: %s" % (r.returncode, r.stderr))
    if r.returncode == 0:
        check(pq.read_table(cli_out).equals(got), "python -m smsfilter_frames: not the table label_parquet wrote")
        say("  ok: python -m smsfilter_frames: the same table; %s" % r.stderr.strip()[:120])

    # A bad rule file: the binary's own message.
    try:
        label_pandas(frame.head(10), binary=BINARY, rules=os.path.join(TMP, "missing-rules.yaml"))
        check(False, "label_pandas with a missing rule file did not fail")
    except SMSFilterError as error:
        check(error.status == 66 and "no such file" in str(error), "a missing rule file: %s" % error)
        say("  ok: a missing rule file fails with the binary's message (%s)" % str(error)[:90])

    # 1. Spark.
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("smsfilter-frames-test")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", "600").getOrCreate())
    try:
        df = spark.read.parquet(parquet).repartition(4)
        partitions = df.rdd.getNumPartitions()
        spark_out = os.path.join(TMP, "labelled.spark.parquet")
        t0 = time.time()
        label_spark(df, sender="sender", binary=BINARY, classify_args=CLASSIFY_ARGS).write.parquet(spark_out)
        say("Spark: %d partitions labelled and written in %.1f s" % (partitions, time.time() - t0))
        check(partitions == 4, "Spark: %d partitions, expected 4" % partitions)
        files = [f for f in os.listdir(spark_out) if f.endswith(".parquet")]
        check(len(files) >= 2, "Spark wrote %d Parquet files" % len(files))
        back = pq.read_table(spark_out)
        compare("Spark label_spark (mapInArrow)", back.column("id").to_pylist(), back.to_pydict(), arrow_labels,
                arrow_counts, arrow_reasons, rows_by_id,
                extra={c: back.column(c).to_pylist() for c in ("body", "sender", "label", "lang", "n")})
        # Within each partition the rows keep their order: mapInArrow with a column of the partition's input
        # order, compared with the output's.
        from pyspark.sql.functions import monotonically_increasing_id
        ordered = label_spark(df.withColumn("seq", monotonically_increasing_id()), sender="sender", binary=BINARY,
                              classify_args=CLASSIFY_ARGS).select("seq").collect()
        seqs = [row.seq for row in ordered]
        check(seqs == sorted(seqs) and len(seqs) == len(arrow_rows), "Spark: a partition's rows came back out of order")
        say("  ok: Spark keeps each partition's order and row count (%d rows)" % len(seqs))
    finally:
        spark.stop()

    if problems:
        print("test-dataframes: FAIL: %d problem(s)" % len(problems), file=sys.stderr)
        return 1
    say("PASS: Spark, pyarrow, pandas and the command line label every row as one classify run does")
    return 0


if __name__ == "__main__":
    sys.exit(main())
