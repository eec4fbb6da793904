"""python -m smsfilter_frames IN.parquet OUT.parquet [--body body] [--sender sender] [--binary PATH] [--rules R]

Labels a Parquet file with the smsfilter binary (pyarrow; no Spark needed) and prints the row count and
the folders' counts.
"""

import argparse
import collections
import sys

from . import SMSFilterError, label_parquet


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m smsfilter_frames", description=__doc__.split("\n\n")[1])
    parser.add_argument("source", help="the Parquet file to label")
    parser.add_argument("target", help="the labelled Parquet file to write (replaced when it exists)")
    parser.add_argument("--body", default="body", help="the body column (default: body)")
    parser.add_argument("--sender", help="the sender column (default: none)")
    parser.add_argument("--prefix", default="filter_", help="the label columns' prefix (default: filter_)")
    parser.add_argument("--binary", help="the smsfilter binary (default: $SMSFILTER_BINARY or smsfilter on the PATH)")
    parser.add_argument("--rules", help="a rule file (default: the binary's embedded rules and model)")
    parser.add_argument("--threads", type=int, default=1, help="the binary's worker threads (default: 1)")
    parser.add_argument("--classify-arg", action="append", default=[], help="one more argument for smsfilter classify")
    args = parser.parse_args(argv)
    try:
        rows = label_parquet(args.source, args.target, body=args.body, sender=args.sender, prefix=args.prefix,
                             binary=args.binary, rules=args.rules, threads=args.threads,
                             classify_args=args.classify_arg)
    except (SMSFilterError, KeyError, ValueError, OSError) as error:
        print("smsfilter_frames: error: %s" % error, file=sys.stderr)
        return getattr(error, "status", None) or 1
    import pyarrow.parquet as pq

    folders = collections.Counter(pq.read_table(args.target, columns=[args.prefix + "folder"]).column(0).to_pylist())
    rejected = folders.pop(None, 0)
    print("%s: %d rows, %d rejected; %s" % (args.target, rows, rejected,
                                             ", ".join("%s %d" % kv for kv in sorted(folders.items()))), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
