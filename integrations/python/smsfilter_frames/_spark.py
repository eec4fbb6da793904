"""What runs on a Spark executor: the partition's Arrow batches through one smsfilter process."""

import os
import stat

from . import label_arrow_batches


def _shipped(name, fallback):
    """The path of a file shipped with `SparkContext.addFile` (made executable when it is the binary), or
    `fallback` when nothing was shipped."""
    if name is None:
        return fallback
    from pyspark import SparkFiles

    return SparkFiles.get(name)


def _executable(path):
    if path and os.sep in path and not os.access(path, os.X_OK):
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def partition_labeller(batches, body, sender, prefix, threads, classify_args, binary, rules, binary_name, rules_name):
    binary = _executable(_shipped(binary_name, binary))
    rules = _shipped(rules_name, rules)
    return label_arrow_batches(batches, body=body, sender=sender, prefix=prefix, binary=binary, rules=rules,
                               threads=threads, classify_args=classify_args)
