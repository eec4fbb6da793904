#!/usr/bin/env python3
"""Run `smsfilter classify` over a manifest of SMS archives on Apache Spark.

One Spark task per archive, or per split of a big multi-frame zstd archive (--split-size: `smsfilter plan`
finds the splits, each task runs `smsfilter classify --range`; its outputs are numbered parts plus a
`.parts.json` manifest, which concatenated in order are one seekable archive). Each task runs the shipped
`smsfilter` binary on its archive and writes

    <output-prefix>/<stem>.labelled.<ext>.zst   (or <stem>.labels.jsonl.zst with --labels-only)
    <output-prefix>/<stem>.counts.json

and the driver sums every archive's counts with `smsfilter merge-counts` into
<output-prefix>/total.counts.json, next to <output-prefix>/index.json (archive → output, status).

Archives and the output prefix are either bare local paths (read and written by the binary itself, so
they must be visible to every executor: local mode, NFS, a FUSE mount) or URIs of any file system the
cluster's Hadoop configuration can reach (hdfs://, s3a://, abfs://, gs://, file://…), read and written
through Hadoop: see README.md in this folder.

Exit status of the driver: 0 success; 65 at least one archive was damaged (and --allow-damaged was not
given); 64 bad arguments or manifest; 70 the Spark job failed (a task's error names the archive, the
binary's exit status and its standard error).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time
from xml.sax.saxutils import escape as xml_escape

EXIT_DAMAGED = 65
EXIT_USAGE = 64
EXIT_FAILED = 70

FORMAT_EXTENSIONS = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".xml")
COMPRESSION_EXTENSIONS = (".zst", ".zstd")


# ---------------------------------------------------------------------------------------------------
# Helpers shared by the driver and the executors (everything a task needs travels in `TaskConfig`).
# ---------------------------------------------------------------------------------------------------

def is_uri(text):
    """True for `scheme://…` and `scheme:/…` (not for bare paths, nor Windows drive letters)."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]+:/", text) is not None


def ensure_executable(path):
    """Return a path to an executable copy of `path` (files fetched by Spark or YARN may lack +x)."""
    if os.access(path, os.X_OK):
        return path
    try:
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return path
    except OSError:
        copy_dir = tempfile.mkdtemp(prefix="smsfilter-bin-")
        copy = os.path.join(copy_dir, os.path.basename(path))
        shutil.copy2(path, copy)
        os.chmod(copy, 0o755)
        return copy


def resolve_shipped(spec):
    """Find a file shipped to this process (driver or executor).

    Tries, in order: the file Spark fetched (`SparkContext.addFile` or `--files`, found by its base name
    with `SparkFiles.get`), the spec as a path relative to the working directory (`--archives
    bundle.tgz#bundle` with `--binary bundle/smsfilter`), and the spec as an absolute path (a binary
    installed on every node).
    """
    from pyspark import SparkFiles

    candidates = []
    try:
        candidates.append(SparkFiles.get(os.path.basename(spec.rstrip("/"))))
        if not is_uri(spec) and not os.path.isabs(spec):  # inside an --archives folder (local mode)
            candidates.append(os.path.join(SparkFiles.getRootDirectory(), spec))
    except Exception:  # no SparkContext/SparkFiles root here: try the other places
        pass
    if not is_uri(spec):
        candidates.append(os.path.abspath(spec))
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError(
        "smsfilter-job: %s: not found among the files shipped to this node (looked at %s); ship it with --files, "
        "--archives or a local path the driver can read" % (spec, ", ".join(candidates) or "nothing"))


def scratch_dir():
    """A fresh directory on the node's big local disks (YARN's LOCAL_DIRS, Spark's SPARK_LOCAL_DIRS)."""
    for variable in ("SPARK_LOCAL_DIRS", "LOCAL_DIRS"):
        for directory in os.environ.get(variable, "").split(","):
            if directory and os.path.isdir(directory) and os.access(directory, os.W_OK):
                return tempfile.mkdtemp(prefix="smsfilter-task-", dir=directory)
    return tempfile.mkdtemp(prefix="smsfilter-task-")


def tail(text, limit=4000):
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-limit:]


class HadoopShell:
    """`hadoop fs` on an executor: streams bytes from and to any Hadoop file system.

    Python workers cannot reach their executor's JVM, so the Hadoop FileSystem API is driven through its
    shell (`org.apache.hadoop.fs.FsShell`): the node's `hadoop` command when there is one, otherwise a
    small JVM on the Hadoop client jars that Spark itself ships. The `spark.hadoop.*` settings of the job
    are handed over in a private configuration file (-conf), so credentials never show in `ps`.
    """

    def __init__(self, hadoop_conf, workdir):
        self.command = self._command(workdir)
        self.conf_file = None
        if hadoop_conf:
            self.conf_file = os.path.join(workdir, "hadoop-conf.xml")
            fd = os.open(self.conf_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write("<?xml version=\"1.0\"?>\n<configuration>\n")
                for key, value in sorted(hadoop_conf.items()):
                    handle.write("  <property><name>%s</name><value>%s</value></property>\n"
                                 % (xml_escape(key), xml_escape(value)))
                handle.write("</configuration>\n")

    @staticmethod
    def _command(workdir):
        for hadoop in (os.path.join(os.environ.get("HADOOP_HOME", ""), "bin", "hadoop"),
                       shutil.which("hadoop")):
            if hadoop and os.path.isfile(hadoop) and os.access(hadoop, os.X_OK):
                return [hadoop, "fs"]
        java_home = os.environ.get("JAVA_HOME")
        java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
        if not java:
            raise RuntimeError("neither a `hadoop` command nor `java` on this node: cannot reach Hadoop")
        classpath = []
        if os.environ.get("HADOOP_CONF_DIR"):
            classpath.append(os.environ["HADOOP_CONF_DIR"])
        # FsShell loads core-site.xml loudly (quiet mode off) and dies when the classpath has none.
        fallback = os.path.join(workdir, "hadoop-default-conf")
        os.makedirs(fallback, exist_ok=True)
        with open(os.path.join(fallback, "core-site.xml"), "w") as handle:
            handle.write("<?xml version=\"1.0\"?>\n<configuration/>\n")
        classpath.append(fallback)
        jar_dirs = [os.path.join(os.environ.get("SPARK_HOME", ""), "jars"), "__spark_libs__"]
        try:
            import pyspark
            jar_dirs.append(os.path.join(os.path.dirname(pyspark.__file__), "jars"))
        except ImportError:
            pass
        for directory in jar_dirs:
            if os.path.isdir(directory) and any(name.startswith("hadoop-") for name in os.listdir(directory)):
                classpath.append(os.path.join(os.path.abspath(directory), "*"))
                break
        else:
            raise RuntimeError("smsfilter-job: no Hadoop client jars on this node (looked in SPARK_HOME/jars, "
                               "__spark_libs__, pyspark/jars) and no `hadoop` command")
        # Jars shipped with --jars/--packages (hadoop-aws, gcs-connector…) land in the working
        # directory (YARN) or in Spark's file root.
        extra = {os.getcwd()}
        try:
            from pyspark import SparkFiles
            extra.add(SparkFiles.getRootDirectory())
        except Exception:
            pass
        classpath += [os.path.join(d, "*") for d in sorted(extra) if d and os.path.isdir(d)]
        return [java, "-Xmx256m", "-cp", os.pathsep.join(classpath), "org.apache.hadoop.fs.FsShell"]

    def _args(self, *args):
        generic = ["-conf", self.conf_file] if self.conf_file else []
        return self.command + generic + list(args)

    def cat(self, uri, stderr):
        """A running `-cat` whose standard output is the file's bytes."""
        return subprocess.Popen(self._args("-cat", uri), stdout=subprocess.PIPE, stderr=stderr)

    def put(self, local_files, directory_uri):
        """Upload files, in order, into a folder (FsShell writes each as `name._COPYING_`, then renames)."""
        done = subprocess.run(self._args("-put", "-f", *local_files, directory_uri + "/"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise RuntimeError("smsfilter-job: cannot write %s into %s through Hadoop (exit %d): %s"
                               % (", ".join(os.path.basename(f) for f in local_files), directory_uri,
                                  done.returncode, tail(done.stderr.decode("utf-8", "replace"))))


# ---------------------------------------------------------------------------------------------------
# The task: one archive.
# ---------------------------------------------------------------------------------------------------

def binary_env(binary):
    env = dict(os.environ)
    # A bundle shipped with --archives may carry libzstd/Swift runtime libraries next to the binary.
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        p for p in (os.path.dirname(binary), env.get("LD_LIBRARY_PATH", "")) if p)
    return env


def classify_archive(config, entry, payload=None):
    """Run `smsfilter classify` on one archive, or on one split of it; return a small dict for the driver.

    `payload` holds the archive's bytes when Spark read them (`sc.binaryFiles`, --remote-read spark).
    A non-zero exit other than 65 raises (Spark then fails the task, retries it, and fails the job with
    this message); 65 (damaged archive) is returned, so the other archives still run and the driver
    reports every damaged archive at once.

    A split (`entry["split"]`) runs `classify --range START:END [--first-line N]` on the archive's path and
    writes its numbered parts: the labelled records (and rejects) of the records that start in its frames,
    as zstd frames whose seek table is cut off and returned, so that the driver writes one merged table for
    all the parts (see `split_outputs`). Its counts come back to the driver only (merged per archive there).
    """
    started = time.time()
    archive = entry["archive"]
    split = entry.get("split")
    workdir = scratch_dir()
    try:
        binary = ensure_executable(resolve_shipped(config["binary"]))
        env = binary_env(binary)

        prefix = config["output_prefix"]
        output_name = split["output"] if split else entry["output"]
        rejects_name = (split["rejects"] if split else entry["rejects"]) if config["rejects"] else None
        # Labelled records go straight to a local prefix (the binary writes them under a temporary name
        # and renames them when complete; a split's part under a name of its own, renamed once its seek
        # table is cut off); the counts always go to the scratch folder first, so a counts file left in the
        # prefix by an earlier run can never be taken for this run's.
        counts_path = os.path.join(workdir, entry["counts"])

        def place(name):
            if name is None:
                return None
            if config["remote_prefix"]:
                return os.path.join(workdir, name)
            if split:
                # Hidden until its seek table is cut off; `.zst` last, as the binary compresses by the suffix.
                return os.path.join(prefix, "._%s.%d.tmp.zst" % (name, os.getpid()))
            return os.path.join(prefix, name)
        output_path, rejects_path = place(output_name), place(rejects_name)

        # --force: a retried task (or a rerun into the same prefix) replaces the labelled output an earlier
        # attempt left; smsfilter still refuses to write over any of its inputs.
        command = [binary, "classify", "--quiet", "--force", "--threads", str(config["threads"]),
                   "--counts", counts_path, "-o", output_path]
        if rejects_path:
            command += ["--rejects", rejects_path]
        if config["rules"]:
            command += ["--rules", resolve_shipped(config["rules"])]
        if config["labels_only"]:
            command.append("--labels-only")
        if split:
            command += ["--range", "%d:%d" % (split["start"], split["end"])]
            if split.get("firstLine") is not None:
                command += ["--first-line", str(split["firstLine"])]
        command += config["classify_args"]
        if entry["remote"] and entry.get("format") and forced_input_format(config["classify_args"]) is None:
            command += ["--input-format", entry["format"]]  # stdin has no name to guess from

        stderr_path = os.path.join(workdir, "stderr.txt")
        shell = None
        reader_status = None
        with open(stderr_path, "wb") as stderr:
            if split:
                done = subprocess.run(command + [entry["path"]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=stderr, env=env)
                status, stray = done.returncode, done.stdout
            elif not entry["remote"]:
                done = subprocess.run(command + [archive], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=stderr, env=env)
                status, stray = done.returncode, done.stdout
            elif payload is not None:
                data = payload if isinstance(payload, bytes) else bytes(payload)
                done = subprocess.run(command + ["-"], input=data, stdout=subprocess.PIPE,
                                      stderr=stderr, env=env)
                status, stray = done.returncode, done.stdout
            else:
                shell = HadoopShell(config["hadoop_conf"], workdir)
                reader_err_path = os.path.join(workdir, "reader-stderr.txt")
                with open(reader_err_path, "wb") as reader_err:
                    reader = shell.cat(archive, reader_err)
                    proc = subprocess.Popen(command + ["-"], stdin=reader.stdout, stdout=subprocess.PIPE,
                                            stderr=stderr, env=env)
                    reader.stdout.close()  # the binary holds the only read end now
                    stray = proc.stdout.read()
                    status = proc.wait()
                    reader_status = reader.wait()
                # When the binary stopped early the reader dies of a broken pipe: report the binary.
                if reader_status != 0 and status in (0, EXIT_DAMAGED):
                    with open(reader_err_path, "rb") as handle:
                        message = tail(handle.read().decode("utf-8", "replace"))
                    raise RuntimeError("smsfilter-job: cannot read %s through Hadoop (exit %d): %s"
                                       % (archive, reader_status, message))
        with open(stderr_path, "rb") as handle:
            message = tail(handle.read().decode("utf-8", "replace"))
        what = archive if not split else "%s (split %d, bytes %d:%d)" % (archive, split["split"], split["start"], split["end"])
        if status not in (0, EXIT_DAMAGED):
            raise RuntimeError("smsfilter-job: smsfilter classify failed on %s with exit status %d: %s"
                               % (what, status, message or "(no message on standard error)"))
        if stray:
            raise RuntimeError("smsfilter-job: smsfilter classify wrote %d unexpected bytes to standard "
                               "output on %s" % (len(stray), archive))

        counts_text = None
        if os.path.isfile(counts_path):
            with open(counts_path, "r", encoding="utf-8") as handle:
                counts_text = handle.read()
        elif status == 0:
            raise RuntimeError("smsfilter-job: smsfilter classify wrote no counts for %s" % what)

        tables = {}
        if split:
            # The parts lose their own seek tables (the driver writes one for all of them), then take their names.
            for kind, path, name in (("output", output_path, output_name), ("rejects", rejects_path, rejects_name)):
                if path and os.path.isfile(path):
                    tables[kind] = strip_seek_table(path)
                    if not config["remote_prefix"]:
                        os.replace(path, os.path.join(prefix, name))
            if config["remote_prefix"]:
                uploads = [p for p in (output_path, rejects_path) if p and os.path.isfile(p)]
                if uploads:
                    HadoopShell(config["hadoop_conf"], workdir).put(uploads, prefix)
        elif not config["remote_prefix"] and counts_text is not None:
            target = os.path.join(prefix, entry["counts"])
            temporary = os.path.join(prefix, "._%s.%s.tmp" % (entry["counts"], os.getpid()))
            shutil.copyfile(counts_path, temporary)
            os.replace(temporary, target)
        elif config["remote_prefix"]:
            shell = shell or HadoopShell(config["hadoop_conf"], workdir)
            # The counts go last: their presence marks the archive as done.
            uploads = [p for p in (output_path, rejects_path, counts_path) if p and os.path.isfile(p)]
            if uploads:
                shell.put(uploads, prefix)

        return {
            "index": entry["index"],
            "archive": archive,
            "split": split["split"] if split else None,
            "range": "%d:%d" % (split["start"], split["end"]) if split else None,
            "firstLine": split.get("firstLine") if split else None,
            "tables": tables,
            "output": output_name,
            "rejects": rejects_name,
            "counts": entry["counts"] if counts_text is not None and not split else None,
            "status": "ok" if status == 0 else "damaged",
            "exitStatus": status,
            "stderr": message,
            "countsJSON": counts_text,
            "seconds": round(time.time() - started, 3),
            "host": os.uname().nodename,
        }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------------
# Splitting one archive into tasks (smsfilter plan, classify --range).
# ---------------------------------------------------------------------------------------------------

SEEK_TABLE_MAGIC = 0x184D2A5E   # the seek table's skippable frame (zstd's seekable format)
SEEK_FOOTER_MAGIC = 0x8F92EAB1


def strip_seek_table(path):
    """Cut the seek table off the end of a seekable .zst file; return its entries ({"checksums", "entries":
    [(compressed, decoded[, checksum])]}), or None when the file has no seek table (--frame-size 0)."""
    size = os.path.getsize(path)
    if size < 9:
        return None
    with open(path, "r+b") as handle:
        handle.seek(size - 9)
        frames, descriptor, magic = struct.unpack("<IBI", handle.read(9))
        if magic != SEEK_FOOTER_MAGIC:
            return None
        width = 12 if descriptor & 0x80 else 8
        table_size = 8 + frames * width + 9
        if table_size > size:
            return None
        handle.seek(size - table_size)
        table = handle.read(table_size)
        skippable, length = struct.unpack_from("<II", table, 0)
        if skippable != SEEK_TABLE_MAGIC or length != table_size - 8:
            return None
        entries = [list(struct.unpack_from("<III" if width == 12 else "<II", table, 8 + k * width)) for k in range(frames)]
        handle.truncate(size - table_size)
    return {"checksums": width == 12, "entries": entries}


def seek_table_bytes(tables):
    """One seek table (a skippable frame) for the frames of every part, in order."""
    entries = [e for t in tables for e in t["entries"]]
    checksums = all(t["checksums"] for t in tables if t["entries"])
    body = b"".join(struct.pack("<III", *e[:3]) if checksums else struct.pack("<II", *e[:2]) for e in entries)
    footer = struct.pack("<IBI", len(entries), 0x80 if checksums else 0, SEEK_FOOTER_MAGIC)
    return struct.pack("<II", SEEK_TABLE_MAGIC, len(body) + len(footer)) + body + footer


def part_names(name, count):
    """`x.labelled.jsonl.zst` → `x.labelled.jsonl.part-00000.zst` … `part-<count>` (the last one holds only the
    merged seek table) and the manifest `x.labelled.jsonl.parts.json`. `cat` of the parts in name order is
    one seekable archive."""
    base = name[: -len(".zst")] if name.endswith(".zst") else name
    return ["%s.part-%05d.zst" % (base, k) for k in range(count + 1)], "%s.parts.json" % base


def local_path(archive):
    """The path the binary opens for an archive it may split: a bare path, or a file:// URI's path."""
    if archive.startswith("file://"):
        return archive[len("file://"):]
    return None if is_uri(archive) else archive


def run_plan(binary, path, extra):
    """`smsfilter plan --json` on a path: (exit status, the plan or None, standard error)."""
    done = subprocess.run([binary, "plan", "--json", path] + extra, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=binary_env(binary))
    plan = None
    if done.stdout:
        try:
            plan = json.loads(done.stdout.decode("utf-8"))
        except ValueError:
            plan = None
    return done.returncode, plan, tail(done.stderr.decode("utf-8", "replace"))


def plan_on_node(config, job):
    """A task: plan one archive (job = {"index", "path", "args"}) where the driver has no binary."""
    binary = ensure_executable(resolve_shipped(config["binary"]))
    status, plan, message = run_plan(binary, job["path"], job["args"])
    return {"index": job["index"], "status": status, "plan": plan, "stderr": message}


def count_split_lines(config, job):
    """A task of the first pass: the newlines of one split (`plan --range S:E --lines`), so that each split
    knows the archive's line number of its first byte."""
    started = time.time()
    binary = ensure_executable(resolve_shipped(config["binary"]))
    status, plan, message = run_plan(
        binary, job["path"], ["--range", job["range"], "--lines", "--split-size", "1T", "--threads", str(config["threads"])])
    if status not in (0, EXIT_DAMAGED) or plan is None or not plan.get("splits"):
        raise RuntimeError("smsfilter-job: smsfilter plan --lines failed on %s (bytes %s) with exit status %d: %s"
                           % (job["archive"], job["range"], status, message or "(no message on standard error)"))
    return {"index": job["index"], "split": job["split"], "lines": sum(s["lines"] for s in plan["splits"]),
            "error": message if status == EXIT_DAMAGED else None, "seconds": round(time.time() - started, 3)}


def merge_counts(binary, counts_texts):
    """Sum count files with `smsfilter merge-counts` (exact; refuses mixed rule sets); return the JSON bytes."""
    workdir = scratch_dir()
    try:
        paths = []
        for number, text in enumerate(counts_texts):
            path = os.path.join(workdir, "%06d.counts.json" % number)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            paths.append(path)
        total = os.path.join(workdir, "total.counts.json")
        done = subprocess.run([binary, "merge-counts", "-o", total] + paths, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise RuntimeError("smsfilter-job: smsfilter merge-counts failed with exit status %d: %s"
                               % (done.returncode, tail(done.stderr.decode("utf-8", "replace"))))
        with open(total, "rb") as handle:
            return handle.read()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def name_stdin(counts_text, archive):
    """Put the archive's URI where the counts of an archive fed through standard input say `<stdin>`,
    so that the `files` list of total.counts.json names every archive (the per-archive counts files
    stay exactly as the binary wrote them)."""
    counts = json.loads(counts_text)
    files = counts.get("files")
    if isinstance(files, list) and len(files) == 1 and files[0].get("path") in ("<stdin>", "-"):
        files[0]["path"] = archive
        return json.dumps(counts, indent=2, sort_keys=True, ensure_ascii=False)
    return counts_text


def name_archive(counts_text, path, archive):
    """A split file:// archive is opened by its path: name it as the manifest does (bytes in, bytes out)."""
    if path == archive:
        return counts_text
    counts = json.loads(counts_text)
    for entry in counts.get("files", []):
        if entry.get("path") == path:
            entry["path"] = archive
    return (json.dumps(counts, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def merge_counts_on_node(config, counts_texts):
    binary = ensure_executable(resolve_shipped(config["binary"]))
    return merge_counts(binary, counts_texts)


# ---------------------------------------------------------------------------------------------------
# The driver.
# ---------------------------------------------------------------------------------------------------

class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # exit 64 (usage), like smsfilter, instead of argparse's 2
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, "%s: error: %s\n" % (self.prog, message))


def parse_args(argv):
    parser = _ArgumentParser(
        prog="smsfilter_job.py",
        description="Label a manifest of SMS archives with smsfilter on Spark, one task per archive.")
    parser.add_argument("--manifest", required=True,
                        help="File listing the archives, one path or URI per line (# comments, blank lines "
                             "allowed); a local path or any Hadoop URI.")
    parser.add_argument("--output-prefix", required=True,
                        help="Folder (local path or Hadoop URI) for the outputs, counts and total.counts.json.")
    parser.add_argument("--rules", help="Rule file (YAML) or compiled rule set (.smsf) shipped to the executors; "
                                        "default: the binary's embedded rules.")
    parser.add_argument("--binary", default="smsfilter",
                        help="The smsfilter binary: a path on the driver or a URI (shipped with addFile), or "
                             "the name/relative path of one shipped with --files/--archives (default: smsfilter).")
    parser.add_argument("--threads-per-task", type=int, default=1,
                        help="smsfilter --threads for each task; spark.task.cpus is set to match (default 1).")
    parser.add_argument("--labels-only", action="store_true",
                        help="Write one {id, filter} line per record instead of whole records.")
    parser.add_argument("--split-size", type=parse_size, default=256 << 20, metavar="SIZE",
                        help="Decoded bytes per task for a multi-frame zstd archive read by path (JSON Lines or "
                             "TSV): its frames are cut into splits of at least this size, one task each "
                             "(smsfilter plan, classify --range); 0 runs every archive as one task (default 256M).")
    parser.add_argument("--rejects", action="store_true",
                        help="Also write each archive's rejected records (<stem>.rejects.jsonl.zst).")
    parser.add_argument("--allow-damaged", action="store_true",
                        help="Exit 0 and write total.counts.json even when archives are damaged (exit 65).")
    parser.add_argument("--remote-read", choices=("spark", "hadoop"), default="spark",
                        help="How executors read archives given as URIs: spark = sc.binaryFiles (the whole "
                             "archive in the task's memory, under 2 GB), hadoop = streamed through Hadoop's "
                             "FsShell -cat (default: spark).")
    parser.add_argument("--classify-arg", action="append", default=[], metavar="ARG",
                        help="Extra argument for smsfilter classify, repeatable, e.g. "
                             "--classify-arg=--input-format --classify-arg=csv.")
    parser.add_argument("--master", help="Spark master when run with python3 (spark-submit gives its own).")
    parser.add_argument("--log-level", default="WARN", help="Spark log level (default WARN).")
    args = parser.parse_args(argv)
    if args.threads_per_task < 1 or args.threads_per_task > 256:
        parser.error("--threads-per-task must be between 1 and 256")
    return args


def parse_size(text):
    """`256M`, `1G`, `4K`, `65536` or `0` → bytes (argparse type)."""
    match = re.match(r"^\s*(\d+)\s*([KMGT]?)(?:I?B)?\s*$", text, re.IGNORECASE)
    if not match:
        raise argparse.ArgumentTypeError("expected a size such as 256M, 1G or 0, not %r" % text)
    return int(match.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[match.group(2).upper()]


def read_manifest(sc, manifest):
    if is_uri(manifest) and not manifest.startswith("file:"):
        lines = sc.textFile(manifest, 1).collect()
    else:
        path = manifest[len("file://"):] if manifest.startswith("file://") else manifest
        try:
            with open(path, "r", encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError("cannot read the manifest %s: %s" % (manifest, error))
    archives = []
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            archives.append(line)
    return archives


def format_by_name(archive):
    """The input format smsfilter guesses from a file name (mirrors InputFormat's suffix table), or None.

    An archive fed through standard input has no name, so the task passes this as --input-format to
    get exactly the reading the binary gives the named file; without it the binary sniffs the bytes."""
    name = archive.lower()
    for suffix, fmt in ((".tsv", "tsv"), (".csv", "csv"), (".xml", "xml"), (".jsonl", "jsonl"), (".ndjson", "jsonl")):
        if name.endswith(suffix) or name.endswith(suffix + ".zst"):
            return fmt
    return None


def forced_input_format(classify_args):
    forced = None
    for i, arg in enumerate(classify_args):
        if arg == "--input-format" and i + 1 < len(classify_args):
            forced = classify_args[i + 1]
        elif arg.startswith("--input-format="):
            forced = arg.split("=", 1)[1]
    return forced


def output_names(archives, labels_only, classify_args):
    """`<stem>.labelled.<ext>.zst` and `<stem>.counts.json` per archive; clashing stems get a hash."""
    forced_format = forced_input_format(classify_args)
    stems = []
    for archive in archives:
        base = archive.rstrip("/").rsplit("/", 1)[-1]
        for suffix in COMPRESSION_EXTENSIONS:
            if base.endswith(suffix):
                base = base[: -len(suffix)]
        ext = "jsonl"
        for suffix in FORMAT_EXTENSIONS:
            if base.endswith(suffix):
                base = base[: -len(suffix)]
                ext = {"ndjson": "jsonl", "json": "jsonl"}.get(suffix[1:], suffix[1:])
                break
        stems.append((base or "archive", forced_format or ext))
    seen = {}
    for stem, _ in stems:
        seen[stem] = seen.get(stem, 0) + 1
    names = []
    for archive, (stem, ext) in zip(archives, stems):
        if seen[stem] > 1 or stem in ("total", "index"):
            stem = "%s-%s" % (stem, hashlib.sha1(archive.encode("utf-8")).hexdigest()[:10])
        output = "%s.labels.jsonl.zst" % stem if labels_only else "%s.labelled.%s.zst" % (stem, ext)
        names.append((output, "%s.counts.json" % stem))
    return names


class Driver:
    def __init__(self, sc, args):
        self.sc = sc
        self.args = args
        self.remote_prefix = is_uri(args.output_prefix)
        self.prefix = args.output_prefix.rstrip("/") if self.remote_prefix else os.path.abspath(args.output_prefix)

    # -- Hadoop FileSystem through the driver's JVM gateway ------------------------------------------
    def _hadoop_path(self, uri):
        jvm = self.sc._jvm
        path = jvm.org.apache.hadoop.fs.Path(uri)
        return path, path.getFileSystem(self.sc._jsc.hadoopConfiguration())

    def make_prefix(self):
        if self.remote_prefix:
            path, fs = self._hadoop_path(self.prefix)
            fs.mkdirs(path)
        else:
            os.makedirs(self.prefix, exist_ok=True)

    def write(self, name, data):
        """Write `data` (bytes) to <prefix>/<name> completely or not at all."""
        if self.remote_prefix:
            target, fs = self._hadoop_path(self.prefix + "/" + name)
            temporary, _ = self._hadoop_path(self.prefix + "/._" + name + ".tmp")
            stream = fs.create(temporary, True)
            stream.write(bytearray(data))
            stream.close()
            fs.delete(target, False)
            if not fs.rename(temporary, target):
                raise RuntimeError("cannot rename %s into place" % target.toString())
        else:
            target = os.path.join(self.prefix, name)
            fd, temporary = tempfile.mkstemp(prefix="._" + name, dir=self.prefix)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)

    def remove(self, name):
        if self.remote_prefix:
            target, fs = self._hadoop_path(self.prefix + "/" + name)
            fs.delete(target, False)
        else:
            try:
                os.remove(os.path.join(self.prefix, name))
            except FileNotFoundError:
                pass

    def remove_stale_parts(self, parts):
        """Removes the parts an earlier run left beyond this run's (another --split-size), so that the glob
        `<base>.part-*.zst` is exactly this run's parts."""
        base = parts[0][: -len(".part-00000.zst")]
        if self.remote_prefix:
            pattern, fs = self._hadoop_path(self.prefix + "/" + base + ".part-*.zst")
            names = [status.getPath().getName() for status in (fs.globStatus(pattern) or [])]
        else:
            names = [n for n in os.listdir(self.prefix) if n.startswith(base + ".part-") and n.endswith(".zst")]
        for name in set(names) - set(parts):
            self.remove(name)

    # -- the job ---------------------------------------------------------------------------------------
    def ship(self, spec):
        """addFile `spec` when the driver can reach it; return the name the executors look it up by."""
        if is_uri(spec) or os.path.isfile(spec):
            self.sc.addFile(spec)
            return os.path.basename(spec.rstrip("/"))
        return spec  # shipped with --files/--archives, or installed at this path on every node

    def run(self):
        args, sc = self.args, self.sc
        # Bare relative paths mean the driver's working directory, whatever the executors' is.
        archives = [a if is_uri(a) else os.path.abspath(a) for a in read_manifest(sc, args.manifest)]
        if not archives:
            raise UsageError("%s lists no archives" % args.manifest)
        duplicates = sorted({a for a in archives if archives.count(a) > 1})
        if duplicates:
            raise UsageError("%s lists these archives more than once: %s" % (args.manifest, ", ".join(duplicates)))

        config = {
            "binary": self.ship(args.binary),
            "rules": self.ship(args.rules) if args.rules else None,
            "threads": args.threads_per_task,
            "labels_only": args.labels_only,
            "rejects": args.rejects,
            "classify_args": list(args.classify_arg),
            "output_prefix": self.prefix,
            "remote_prefix": self.remote_prefix,
            "hadoop_conf": {key[len("spark.hadoop."):]: value for key, value in sc.getConf().getAll()
                            if key.startswith("spark.hadoop.")},
        }
        try:
            driver_binary = ensure_executable(resolve_shipped(config["binary"]))
        except FileNotFoundError:
            driver_binary = None
        self.make_prefix()
        # A total (or index) left by an earlier run must not pass for this run's while it is under way.
        self.remove("total.counts.json")
        self.remove("index.json")

        entries = []
        for index, (archive, (output, counts)) in enumerate(
                zip(archives, output_names(archives, args.labels_only, args.classify_arg))):
            stem = counts[: -len(".counts.json")]
            entries.append({"index": index, "archive": archive, "output": output, "counts": counts,
                            "rejects": "%s.rejects.jsonl.zst" % stem if args.rejects else None,
                            "remote": is_uri(archive), "format": format_by_name(archive)})

        started = time.time()
        self.plan_splits(config, entries, driver_binary)
        planned = time.time()
        lines_needed = args.rejects or args.labels_only or "--strict" in args.classify_arg
        if lines_needed:
            self.count_lines(config, entries)
        counted_lines = time.time()

        # One task per archive, or per split of a split archive. Bare paths (and URIs streamed by FsShell)
        # and splits are distributed by parallelizing them with one slice each; URIs read by Spark come from
        # one single-file sc.binaryFiles RDD each (one partition per file), appended to the same job.
        tasks = []
        for entry in entries:
            if entry.get("splits"):
                tasks += [dict(entry, split=split) for split in entry["splits"]]
            else:
                tasks.append(entry)
        by_spark = [t for t in tasks if t["remote"] and args.remote_read == "spark" and not t.get("split")]
        by_path = [t for t in tasks if not (t["remote"] and args.remote_read == "spark" and not t.get("split"))]
        rdds = []
        if by_path:
            rdds.append(sc.parallelize(by_path, len(by_path))
                        .map(lambda task: classify_archive(config, task)))
        for entry in by_spark:
            rdds.append(sc.binaryFiles(entry["archive"])
                        .map(lambda pair, entry=entry: classify_archive(config, entry, pair[1])))
        rdd = rdds[0] if len(rdds) == 1 else sc.union(rdds)
        if rdd.getNumPartitions() != len(tasks):
            print("smsfilter-job: warning: %d Spark tasks for %d tasks" % (rdd.getNumPartitions(), len(tasks)),
                  file=sys.stderr)
        sc.setJobDescription("smsfilter classify: %d archives, %d tasks" % (len(entries), len(tasks)))
        results = rdd.collect()
        elapsed = time.time() - started

        if len(results) != len(tasks):
            raise RuntimeError("expected %d task results, got %d" % (len(tasks), len(results)))
        results = self.join_splits(config, entries, results, driver_binary)
        damaged = [r for r in results if r["status"] == "damaged"]

        keys = ("archive", "output", "counts", "rejects", "status", "exitStatus", "seconds", "host", "splitting", "splits")
        index = [{k: r[k] for k in keys if k in r and (k != "rejects" or r[k])} for r in results]
        self.write("index.json", (json.dumps(index, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))

        for r in damaged:
            for split in r.get("splits") or [None]:
                if split is None:
                    print("smsfilter-job: DAMAGED archive %s (exit 65): %s" % (r["archive"], r["stderr"]), file=sys.stderr)
                elif split["status"] == "damaged":
                    print("smsfilter-job: DAMAGED archive %s split %d (bytes %s) (exit 65): %s"
                          % (r["archive"], split["split"], split["range"], split["stderr"]), file=sys.stderr)

        split_archives = [r for r in results if r.get("splits")]
        if split_archives:
            print("smsfilter-job: %d archive%s split into %d tasks; plan %.2f s%s" % (
                len(split_archives), "" if len(split_archives) == 1 else "s",
                sum(len(r["splits"]) for r in split_archives), planned - started,
                ", line counts %.2f s" % (counted_lines - planned) if lines_needed else ""), file=sys.stderr)

        if damaged and not args.allow_damaged:
            self.remove("total.counts.json")
            print("smsfilter-job: %d of %d archives are damaged; their records before the damage were "
                  "written, no total.counts.json was written (rerun with --allow-damaged to accept them)"
                  % (len(damaged), len(results)), file=sys.stderr)
            return EXIT_DAMAGED

        counted = [r for r in results if r["countsJSON"] is not None]
        if not counted:
            print("smsfilter-job: no archive produced counts; no total.counts.json was written", file=sys.stderr)
            return EXIT_DAMAGED
        total = self.merge(config, counted, driver_binary)
        self.write("total.counts.json", total)
        summary = json.loads(total)
        print("smsfilter-job: %d archives (%d damaged) in %.1f s: %s records, %s labelled, %s rejected → %s/"
              "total.counts.json" % (len(results), len(damaged), elapsed, summary.get("records"),
                                     summary.get("labelled"), summary.get("rejected"), self.prefix),
              file=sys.stderr)
        return 0

    # -- splitting ---------------------------------------------------------------------------------------
    def plan_splits(self, config, entries, driver_binary):
        """`smsfilter plan` for each archive the binary can open by path (on the driver, or in tasks when the
        driver has no binary): entries of several splits get `splits`; every entry gets `splitting`, the
        index's word on why it is split or not."""
        args = self.args
        jobs = []
        for entry in entries:
            path = local_path(entry["archive"])
            if args.split_size == 0:
                entry["splitting"] = "not split: --split-size 0"
            elif path is None:
                entry["splitting"] = ("not split: read through Hadoop as one stream (a task reads a byte range of "
                                      "an archive by path only: a bare path or a file:// URI)")
            else:
                extra = ["--split-size", str(args.split_size)]
                fmt = forced_input_format(args.classify_arg)
                if fmt:
                    extra += ["--input-format", fmt]
                jobs.append({"index": entry["index"], "path": path, "args": extra})
        if not jobs:
            return
        if driver_binary:
            outcomes = []
            for job in jobs:
                status, plan, message = run_plan(driver_binary, job["path"], job["args"])
                outcomes.append({"index": job["index"], "status": status, "plan": plan, "stderr": message})
        else:
            self.sc.setJobDescription("smsfilter plan: %d archives" % len(jobs))
            outcomes = self.sc.parallelize(jobs, len(jobs)).map(lambda job: plan_on_node(config, job)).collect()
        by_index = {e["index"]: e for e in entries}
        for outcome in outcomes:
            entry = by_index[outcome["index"]]
            plan = outcome["plan"]
            if outcome["status"] != 0 or plan is None:
                # The classify task says what is wrong with the archive (missing, unreadable) as it always did.
                entry["splitting"] = "not split: smsfilter plan exited %d: %s" % (outcome["status"], outcome["stderr"])
                continue
            if not plan["splittable"] or len(plan["splits"]) < 2:
                entry["splitting"] = "not split: %s" % plan.get("reason", "one split")
                continue
            count = len(plan["splits"])
            parts, manifest = part_names(entry["output"], count)
            rejects_parts = part_names(entry["rejects"], count)[0] if entry["rejects"] else [None] * (count + 1)
            entry["path"] = local_path(entry["archive"])
            entry["manifest"] = manifest
            entry["parts"] = parts
            entry["rejectsParts"] = rejects_parts
            entry["plan"] = {k: plan.get(k) for k in ("frames", "frameIndex", "decodedBytes", "decodedExact", "format")}
            entry["splits"] = [{"split": k, "start": sp["start"], "end": sp["end"], "output": parts[k],
                                "rejects": rejects_parts[k], "decodedBytes": sp["decodedBytes"]}
                               for k, sp in enumerate(plan["splits"])]
            entry["splitting"] = "%d splits of at least %d decoded bytes (%d frames, %s)" % (
                count, args.split_size, plan["frames"], plan.get("frameIndex"))

    def count_lines(self, config, entries):
        """The first pass when line numbers reach an output (--rejects, --labels-only, --strict): each split's
        newlines, counted in parallel, give every split the archive's line number of its first byte."""
        jobs = [{"index": e["index"], "archive": e["archive"], "path": e["path"], "split": sp["split"],
                 "range": "%d:%d" % (sp["start"], sp["end"])}
                for e in entries if e.get("splits") for sp in e["splits"]]
        if not jobs:
            return
        self.sc.setJobDescription("smsfilter plan --lines: %d splits" % len(jobs))
        found = self.sc.parallelize(jobs, len(jobs)).map(lambda job: count_split_lines(config, job)).collect()
        lines = {(r["index"], r["split"]): r for r in found}
        for entry in entries:
            line = 1
            for split in entry.get("splits") or []:
                split["firstLine"] = line
                line += lines[(entry["index"], split["split"])]["lines"]

    def join_splits(self, config, entries, results, driver_binary):
        """One result per archive: a split archive's parts get their merged seek table (one more part) and a
        manifest, its counts are merged into <stem>.counts.json, and its splits are listed for the index."""
        by_archive = {}
        for r in results:
            by_archive.setdefault(r["index"], []).append(r)
        joined = []
        for entry in entries:
            rs = by_archive.get(entry["index"], [])
            if not entry.get("splits"):
                r = rs[0]
                r["splitting"] = entry["splitting"]
                joined.append(r)
                continue
            rs.sort(key=lambda r: r["split"])
            outputs = {"output": (entry["parts"], entry["manifest"])}
            if entry["rejects"]:
                outputs["rejects"] = (entry["rejectsParts"], part_names(entry["rejects"], len(rs))[1])
            for kind, (parts, manifest) in outputs.items():
                self.remove_stale_parts(parts)
                tables = [r["tables"].get(kind) for r in rs]
                seek_part = None
                if all(t is not None for t in tables):
                    seek_part = parts[-1]
                    self.write(seek_part, seek_table_bytes(tables))
                else:
                    self.remove(parts[-1])
                document = {
                    "archive": entry["archive"],
                    "parts": parts[:-1] + ([seek_part] if seek_part else []),
                    "seekTablePart": seek_part,
                    "howToRead": "concatenate the parts in this order (cat): the result is one zstd archive%s, "
                                 "the whole-archive run's output" % (" with a seek table" if seek_part else ""),
                    "splits": [{"split": r["split"], "range": r["range"], "firstLine": r["firstLine"],
                                "part": parts[r["split"]], "status": r["status"],
                                "frames": len(t["entries"]) if t else None,
                                "decodedBytes": sum(e[1] for e in t["entries"]) if t else None}
                               for r, t in zip(rs, tables)],
                }
                self.write(manifest, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
            counted = [r for r in rs if r["countsJSON"] is not None]
            counts_text = merge_counts(driver_binary, [r["countsJSON"] for r in counted]) if driver_binary and counted else None
            if counted and counts_text is None:
                counts_text = bytes(self.sc.parallelize([[r["countsJSON"] for r in counted]], 1)
                                    .map(lambda t: merge_counts_on_node(config, t)).collect()[0])
            if counts_text is not None:
                counts_text = name_archive(counts_text, entry["path"], entry["archive"])
                self.write(entry["counts"], counts_text)
            damaged = [r for r in rs if r["status"] == "damaged"]
            joined.append({
                "index": entry["index"], "archive": entry["archive"], "output": entry["manifest"],
                "counts": entry["counts"] if counts_text is not None else None,
                "rejects": outputs["rejects"][1] if entry["rejects"] else None,
                "status": "damaged" if damaged else "ok",
                "exitStatus": damaged[0]["exitStatus"] if damaged else 0,
                "seconds": round(sum(r["seconds"] for r in rs), 3),
                "host": sorted({r["host"] for r in rs}),
                "stderr": damaged[0]["stderr"] if damaged else "",
                "countsJSON": counts_text.decode("utf-8") if counts_text is not None else None,
                "splitting": entry["splitting"],
                "splits": [{"split": r["split"], "range": r["range"], "firstLine": r["firstLine"], "output": r["output"],
                            "rejects": r["rejects"], "status": r["status"], "exitStatus": r["exitStatus"],
                            "seconds": r["seconds"], "host": r["host"], "stderr": r["stderr"]} for r in rs],
            })
        return joined

    def merge(self, config, results, driver_binary):
        """merge-counts on the driver; in one task on an executor when the driver has no binary (an
        --archives bundle in YARN client mode is unpacked on the executors only)."""
        texts = [name_stdin(r["countsJSON"], r["archive"]) for r in results]
        if driver_binary:
            return merge_counts(driver_binary, texts)
        print("smsfilter-job: no smsfilter binary on the driver; merging the counts in one task",
              file=sys.stderr)
        return bytes(self.sc.parallelize([texts], 1).map(lambda t: merge_counts_on_node(config, t)).collect()[0])


class UsageError(Exception):
    pass


def task_error_message(error):
    """The smsfilter-job line from a failed Spark job's Java stack trace, or the whole text."""
    text = str(error)
    found = re.findall(r"^\w*(?:Error|Exception): (smsfilter-job: .*(?:\n(?!\s+at |\t).*)*)", text, re.MULTILINE)
    return tail(found[0], 8000) if found else tail(text, 8000)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("smsfilter")
    if args.master:
        builder = builder.master(args.master)
    if args.threads_per_task > 1:
        builder = builder.config("spark.task.cpus", str(args.threads_per_task))
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel(args.log_level)
    try:
        return Driver(sc, args).run()
    except UsageError as error:
        print("smsfilter-job: %s" % error, file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a failed task: print the archive, the exit status and the binary's stderr
        print("smsfilter-job: the job failed: %s" % task_error_message(error), file=sys.stderr)
        return EXIT_FAILED
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
