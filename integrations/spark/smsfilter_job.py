#!/usr/bin/env python3
"""Run `smsfilter classify` over a manifest of SMS archives on Apache Spark.

One Spark task per archive. Each task runs the shipped `smsfilter` binary on its archive and writes

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

def classify_archive(config, entry, payload=None):
    """Run `smsfilter classify` on one archive; return a small dict for the driver.

    `payload` holds the archive's bytes when Spark read them (`sc.binaryFiles`, --remote-read spark).
    A non-zero exit other than 65 raises (Spark then fails the task, retries it, and fails the job with
    this message); 65 (damaged archive) is returned, so the other archives still run and the driver
    reports every damaged archive at once.
    """
    started = time.time()
    archive = entry["archive"]
    workdir = scratch_dir()
    try:
        binary = ensure_executable(resolve_shipped(config["binary"]))
        env = dict(os.environ)
        # A bundle shipped with --archives may carry libzstd/Swift runtime libraries next to the binary.
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            p for p in (os.path.dirname(binary), env.get("LD_LIBRARY_PATH", "")) if p)

        prefix = config["output_prefix"]
        # Labelled records go straight to a local prefix (the binary writes them under a temporary name
        # and renames them when complete); the counts always go to the scratch folder first, so a counts
        # file left in the prefix by an earlier run can never be taken for this run's.
        counts_path = os.path.join(workdir, entry["counts"])
        if config["remote_prefix"]:
            output_path = os.path.join(workdir, entry["output"])
        else:
            output_path = os.path.join(prefix, entry["output"])

        # --force: a retried task (or a rerun into the same prefix) replaces the labelled output an earlier
        # attempt left; smsfilter still refuses to write over any of its inputs.
        command = [binary, "classify", "--quiet", "--force", "--threads", str(config["threads"]),
                   "--counts", counts_path, "-o", output_path]
        if config["rules"]:
            command += ["--rules", resolve_shipped(config["rules"])]
        if config["labels_only"]:
            command.append("--labels-only")
        command += config["classify_args"]
        if entry["remote"] and entry.get("format") and forced_input_format(config["classify_args"]) is None:
            command += ["--input-format", entry["format"]]  # stdin has no name to guess from

        stderr_path = os.path.join(workdir, "stderr.txt")
        shell = None
        reader_status = None
        with open(stderr_path, "wb") as stderr:
            if not entry["remote"]:
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
        if status not in (0, EXIT_DAMAGED):
            raise RuntimeError("smsfilter-job: smsfilter classify failed on %s with exit status %d: %s"
                               % (archive, status, message or "(no message on standard error)"))
        if stray:
            raise RuntimeError("smsfilter-job: smsfilter classify wrote %d unexpected bytes to standard "
                               "output on %s" % (len(stray), archive))

        counts_text = None
        if os.path.isfile(counts_path):
            with open(counts_path, "r", encoding="utf-8") as handle:
                counts_text = handle.read()
        elif status == 0:
            raise RuntimeError("smsfilter-job: smsfilter classify wrote no counts for %s" % archive)

        if not config["remote_prefix"] and counts_text is not None:
            target = os.path.join(prefix, entry["counts"])
            temporary = os.path.join(prefix, "._%s.%s.tmp" % (entry["counts"], os.getpid()))
            shutil.copyfile(counts_path, temporary)
            os.replace(temporary, target)
        elif config["remote_prefix"]:
            shell = shell or HadoopShell(config["hadoop_conf"], workdir)
            # The counts go last: their presence marks the archive as done.
            uploads = [p for p in (output_path, counts_path) if os.path.isfile(p)]
            if uploads:
                shell.put(uploads, prefix)

        return {
            "index": entry["index"],
            "archive": archive,
            "output": entry["output"],
            "counts": entry["counts"] if counts_text is not None else None,
            "status": "ok" if status == 0 else "damaged",
            "exitStatus": status,
            "stderr": message,
            "countsJSON": counts_text,
            "seconds": round(time.time() - started, 3),
            "host": os.uname().nodename,
        }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


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
            entries.append({"index": index, "archive": archive, "output": output, "counts": counts,
                            "remote": is_uri(archive), "format": format_by_name(archive)})

        # One task per archive. Bare paths (and URIs streamed by FsShell) are distributed by
        # parallelizing the manifest with one slice per archive; URIs read by Spark come from one
        # single-file sc.binaryFiles RDD each (one partition per file), appended to the same job.
        by_spark = [e for e in entries if e["remote"] and args.remote_read == "spark"]
        by_path = [e for e in entries if not (e["remote"] and args.remote_read == "spark")]
        rdds = []
        if by_path:
            rdds.append(sc.parallelize(by_path, len(by_path))
                        .map(lambda entry: classify_archive(config, entry)))
        for entry in by_spark:
            rdds.append(sc.binaryFiles(entry["archive"])
                        .map(lambda pair, entry=entry: classify_archive(config, entry, pair[1])))
        rdd = rdds[0] if len(rdds) == 1 else sc.union(rdds)
        if rdd.getNumPartitions() != len(entries):
            print("smsfilter-job: warning: %d tasks for %d archives" % (rdd.getNumPartitions(), len(entries)),
                  file=sys.stderr)
        sc.setJobDescription("smsfilter classify: %d archives" % len(entries))
        started = time.time()
        results = rdd.collect()
        elapsed = time.time() - started

        results.sort(key=lambda r: r["index"])
        if len(results) != len(entries):
            raise RuntimeError("expected %d task results, got %d" % (len(entries), len(results)))
        damaged = [r for r in results if r["status"] == "damaged"]

        index = [{k: r[k] for k in ("archive", "output", "counts", "status", "exitStatus", "seconds", "host")}
                 for r in results]
        self.write("index.json", (json.dumps(index, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))

        for r in damaged:
            print("smsfilter-job: DAMAGED archive %s (exit 65): %s" % (r["archive"], r["stderr"]), file=sys.stderr)

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
