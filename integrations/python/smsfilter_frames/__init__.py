"""Label DataFrames, Arrow record batches and Parquet files with the smsfilter binary.

    from smsfilter_frames import label_pandas, label_parquet, label_spark

    labelled = label_pandas(df, body="body", sender="sender")            # pandas in, pandas out
    label_parquet("messages.parquet", "labelled.parquet")                  # Parquet in, Parquet out (pyarrow)
    label_spark(spark.read.parquet("s3a://…/messages"), binary="/opt/smsfilter") \\
        .write.parquet("s3a://…/labelled")                                # Spark, one process per partition

Every function streams the rows through one `smsfilter classify --labels-only` process (per Spark
partition) over standard input and output, with no temporary file, and returns the input's columns with
five more beside them, in the input's order and with its row count:

    filter_action, filter_subAction, filter_folder, filter_rule   the labels (as classify's CSV columns)
    filter_reject                                                 why the binary rejected the row (no body,
                                                                  longer than --max-record…), else null

A rejected row has null labels and its reason; it is never dropped. `prefix` changes `filter_`.
"""

from ._stream import COLUMNS, LABEL_KEYS, Labels, SMSFilterError, find_binary, label_chunks

__all__ = ["COLUMNS", "LABEL_KEYS", "Labels", "SMSFilterError", "find_binary", "label_chunks", "label_pandas",
           "label_arrow_batches", "label_arrow_table", "label_parquet", "label_spark", "output_names"]

DEFAULT_BATCH_ROWS = 16384


def output_names(prefix="filter_"):
    """The names of the five columns added: `filter_action` … `filter_reject`."""
    return [prefix + key for key in COLUMNS]


def _classify_options(binary, rules, threads, classify_args):
    return dict(binary=binary, rules=rules, threads=threads, classify_args=tuple(classify_args))


def _check_names(existing, prefix):
    clash = [name for name in output_names(prefix) if name in existing]
    if clash:
        raise ValueError("the input already has the column%s %s: drop %s, or give another prefix="
                         % ("s" if len(clash) > 1 else "", ", ".join(clash), "them" if len(clash) > 1 else "it"))


def label_pandas(df, body="body", sender=None, prefix="filter_", binary=None, rules=None, threads=1,
                 classify_args=(), batch_rows=DEFAULT_BATCH_ROWS):
    """A copy of the pandas DataFrame `df` with the five label columns added (see the module's doc).

    `body` and `sender` name columns of `df` (sender optional); `rules` a rule file (default: the binary's
    embedded rules and model); `classify_args` more options for `smsfilter classify` (`["--max-record",
    "1M"]`); `threads` the binary's worker threads.
    """
    import pandas as pd

    _check_names(df.columns, prefix)
    n = len(df)
    bodies = df[body]
    senders = df[sender] if sender is not None else None
    chunks = ((start, bodies.iloc[start:start + batch_rows].tolist(),
               senders.iloc[start:start + batch_rows].tolist() if senders is not None else None)
              for start in range(0, n, batch_rows))
    columns = {key: [] for key in COLUMNS}
    for _, labels in label_chunks(chunks, **_classify_options(binary, rules, threads, classify_args)):
        for key in COLUMNS:
            columns[key].extend(labels.column(key))
    out = df.copy()
    for key in COLUMNS:
        out[prefix + key] = pd.Series(columns[key], index=df.index, dtype="object")
    return out


def label_arrow_batches(batches, body="body", sender=None, prefix="filter_", binary=None, rules=None, threads=1,
                        classify_args=()):
    """Yields each pyarrow RecordBatch of `batches` with the five label columns (strings) appended, in order.

    One smsfilter process for the whole iterator: what `label_spark` runs per partition (`mapInArrow`).
    """
    import pyarrow as pa

    def chunks():
        for batch in batches:
            _check_names(batch.schema.names, prefix)
            bodies = batch.column(batch.schema.get_field_index(body)).to_pylist()
            senders = batch.column(batch.schema.get_field_index(sender)).to_pylist() if sender is not None else None
            yield batch, bodies, senders

    for _check in (body,) + ((sender,) if sender is not None else ()):
        if not isinstance(_check, str):
            raise TypeError("column names are strings")
    for batch, labels in label_chunks(chunks(), **_classify_options(binary, rules, threads, classify_args)):
        arrays = list(batch.columns) + [pa.array(labels.column(key), type=pa.string()) for key in COLUMNS]
        names = list(batch.schema.names) + output_names(prefix)
        yield pa.RecordBatch.from_arrays(arrays, names=names)


def _output_schema(schema, prefix):
    import pyarrow as pa

    _check_names(schema.names, prefix)
    fields = list(schema) + [pa.field(name, pa.string()) for name in output_names(prefix)]
    return pa.schema(fields, metadata=schema.metadata)


def label_arrow_table(table, body="body", sender=None, prefix="filter_", binary=None, rules=None, threads=1,
                      classify_args=(), batch_rows=DEFAULT_BATCH_ROWS):
    """A pyarrow Table with the five label columns appended."""
    import pyarrow as pa

    schema = _output_schema(table.schema, prefix)
    if table.schema.get_field_index(body) < 0:
        raise KeyError("no column %r (columns: %s)" % (body, ", ".join(table.schema.names)))
    batches = label_arrow_batches(table.to_batches(max_chunksize=batch_rows), body, sender, prefix, binary, rules,
                                  threads, classify_args)
    return pa.Table.from_batches(list(batches), schema=schema)


def label_parquet(source, target, body="body", sender=None, prefix="filter_", binary=None, rules=None, threads=1,
                  classify_args=(), batch_rows=DEFAULT_BATCH_ROWS, compression="zstd"):
    """Reads the Parquet file `source` batch by batch, labels it and writes `target` (Parquet, pyarrow).

    `target` is written under a temporary name beside it and renamed when complete, as smsfilter writes its
    own outputs, so a failed run leaves no file that looks finished. Returns the number of rows.
    """
    import os
    import pyarrow.parquet as pq

    reader = pq.ParquetFile(source)
    schema = _output_schema(reader.schema_arrow, prefix)
    if reader.schema_arrow.get_field_index(body) < 0:
        raise KeyError("%s: no column %r (columns: %s)" % (source, body, ", ".join(reader.schema_arrow.names)))
    folder, name = os.path.split(os.path.abspath(target))
    temporary = os.path.join(folder, ".%s.tmp-%d" % (name, os.getpid()))
    rows = 0
    try:
        with pq.ParquetWriter(temporary, schema, compression=compression) as writer:
            for batch in label_arrow_batches(reader.iter_batches(batch_size=batch_rows), body, sender, prefix,
                                             binary, rules, threads, classify_args):
                writer.write_batch(batch)
                rows += batch.num_rows
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return rows


def label_spark(df, body="body", sender=None, prefix="filter_", binary=None, rules=None, threads_per_task=1,
                classify_args=(), ship=True):
    """A Spark DataFrame: `df` with the five label columns, computed by `mapInArrow`, one smsfilter process
    per partition streaming the partition's rows (order and row count kept within each partition).

    `binary` is the smsfilter binary on the driver (shipped to the executors with `SparkContext.addFile`
    when `ship`, so a statically linked binary is all they need), or, with `ship=False`, its path on every
    executor. `rules` likewise (a rule file, shipped when `ship`). With `ship`, this package is added to the
    executors' Python path too (`addPyFile`), so nothing needs installing there.
    """
    import os
    from pyspark.sql.types import StringType, StructField, StructType

    _check_names(df.columns, prefix)
    if body not in df.columns:
        raise KeyError("no column %r (columns: %s)" % (body, ", ".join(df.columns)))
    if sender is not None and sender not in df.columns:
        raise KeyError("no column %r (columns: %s)" % (sender, ", ".join(df.columns)))
    schema = StructType(df.schema.fields + [StructField(name, StringType(), True) for name in output_names(prefix)])
    binary_name = rules_name = None
    if ship:
        sc = df.sparkSession.sparkContext
        binary_path = find_binary(binary)
        sc.addFile(binary_path)
        binary_name = os.path.basename(binary_path)
        if rules and rules != "embedded:rules":
            sc.addFile(rules)
            rules_name = os.path.basename(rules)
        _ship_package(sc)
    options = dict(body=body, sender=sender, prefix=prefix, threads=threads_per_task, classify_args=tuple(classify_args),
                   binary=binary, rules=rules, binary_name=binary_name, rules_name=rules_name)

    def label_partition(batches):
        from smsfilter_frames._spark import partition_labeller
        return partition_labeller(batches, **options)

    return df.mapInArrow(label_partition, schema)


_SHIPPED = set()


def _ship_package(sc):
    """Adds this package to the executors' Python path once per SparkContext (a zip built on the driver)."""
    import os
    import tempfile
    import zipfile

    key = id(sc)
    if key in _SHIPPED:
        return
    here = os.path.dirname(os.path.abspath(__file__))
    folder = tempfile.mkdtemp(prefix="smsfilter-frames-")
    archive = os.path.join(folder, "smsfilter_frames.zip")
    with zipfile.ZipFile(archive, "w") as z:
        for name in sorted(os.listdir(here)):
            if name.endswith(".py"):
                z.write(os.path.join(here, name), "smsfilter_frames/" + name)
    sc.addPyFile(archive)
    _SHIPPED.add(key)
