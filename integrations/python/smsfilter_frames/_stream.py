"""Stream rows through one `smsfilter classify --labels-only` process and get their labels back in order.

One process per call (per Spark partition, per pandas frame, per Parquet file). Rows go to its standard
input as JSON Lines (`{"id": ROW, "body": …, "sender": …}`, ROW counting from 0 across the whole stream);
its standard output brings back one `{"id": ROW, "filter": {…}}` line per labelled row, in order; rejected
rows (no body, a body over --max-record, text the binary cannot read) come back on a pipe of their own
(`--rejects /dev/fd/N`) with the reason and their line, which is ROW + 1. Nothing touches the disk.

Three reader threads drain the process's standard output, rejects pipe and standard error while the calling
thread writes the rows, so the process never waits on us and we never wait on a full pipe. The calling
thread hands a chunk's labels back as soon as every row of it is settled: memory holds the rows in flight
(the process reads about 1 MiB at a time), not the stream.
"""

import collections
import json
import math
import os
import shutil
import subprocess
import threading

LABEL_KEYS = ("action", "subAction", "folder", "rule")
"""The label columns, in the order classify writes its `filter_*` CSV columns; then `reject`."""

COLUMNS = LABEL_KEYS + ("reject",)


class SMSFilterError(RuntimeError):
    """The binary failed (exit status and its standard error), or it could not be started."""

    def __init__(self, message, status=None, stderr=""):
        super().__init__(message)
        self.status = status
        self.stderr = stderr


def find_binary(binary=None):
    """The smsfilter binary: `binary`, else $SMSFILTER_BINARY, else `smsfilter` on the PATH."""
    spec = binary or os.environ.get("SMSFILTER_BINARY") or "smsfilter"
    if os.sep in spec:
        if not os.path.isfile(spec):
            raise SMSFilterError("smsfilter binary %s: no such file" % spec)
        return spec
    found = shutil.which(spec)
    if found is None:
        raise SMSFilterError("smsfilter binary %r: not found on the PATH (give binary= or set SMSFILTER_BINARY)" % spec)
    return found


def _plain(value):
    """A cell as JSON takes it: NaN and pandas' missing values are null."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if value.__class__.__name__ in ("NAType", "NaTType"):
        return None
    return value


class Labels:
    """The labels of one chunk's rows, one list per column of `COLUMNS` (None where it does not apply)."""

    __slots__ = COLUMNS

    def __init__(self, n):
        for key in COLUMNS:
            setattr(self, key, [None] * n)

    def column(self, key):
        return getattr(self, key)


class _Process:
    """The running binary and what its three reader threads have collected so far."""

    def __init__(self, command, pass_fd, read_fd):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     pass_fds=(pass_fd,), bufsize=1 << 16)
        os.close(pass_fd)
        self.cond = threading.Condition()
        self.labels = {}          # row → (action, subAction, folder, rule)
        self.reasons = {}         # row → reject reason
        self.stdout_done = False
        self.rejects_done = False
        self.stderr = bytearray()
        self.failure = None       # a line the reader could not understand
        self.threads = [threading.Thread(target=target, daemon=True) for target in
                        (self._read_labels, lambda: self._read_rejects(read_fd), self._read_stderr)]
        for thread in self.threads:
            thread.start()

    def _read_labels(self):
        try:
            for lines in _line_blocks(self.proc.stdout):
                parsed = []
                for line in lines:
                    record = json.loads(line)
                    f = record["filter"]
                    parsed.append((int(record["id"]), (f["action"], f["subAction"], f["folder"], f["rule"])))
                with self.cond:
                    self.labels.update(parsed)
                    self.cond.notify_all()
        except Exception as error:  # a line that is not what --labels-only writes
            with self.cond:
                self.failure = "unexpected output from smsfilter: %s" % error
        finally:
            with self.cond:
                self.stdout_done = True
                self.cond.notify_all()

    def _read_rejects(self, fd):
        try:
            with os.fdopen(fd, "rb", buffering=0) as pipe:
                for lines in _line_blocks(pipe):
                    parsed = [json.loads(line) for line in lines]
                    with self.cond:
                        for record in parsed:
                            self.reasons[int(record["line"]) - 1] = record["reason"]
                        self.cond.notify_all()
        except Exception as error:
            with self.cond:
                self.failure = "unexpected rejects from smsfilter: %s" % error
        finally:
            with self.cond:
                self.rejects_done = True
                self.cond.notify_all()

    def _read_stderr(self):
        for block in iter(lambda: self.proc.stderr.read(8192), b""):
            if len(self.stderr) < 1 << 16:
                self.stderr += block[: (1 << 16) - len(self.stderr)]


def _command(binary, rules, threads, classify_args, rejects_fd):
    command = [find_binary(binary), "classify", "--labels-only", "--quiet", "--input-format", "jsonl",
               "--threads", str(threads), "--rejects", "/dev/fd/%d" % rejects_fd]
    if rules:
        command += ["--rules", rules]
    return command + list(classify_args) + ["-"]


def _encode(row, body, sender):
    record = {"id": row, "body": _plain(body)}
    if sender is not None:
        record["sender"] = _plain(sender)
    # Lone surrogates (which Arrow and pandas strings can hold in Python only) go out as they are: the
    # binary rejects the row as invalid UTF-8, with the reason in the reject column.
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")


def label_chunks(chunks, binary=None, rules=None, threads=1, classify_args=()):
    """Label chunks of rows through one smsfilter process, in order.

    `chunks` yields `(payload, bodies, senders)`: any payload (a record batch, a slice of a frame), the
    bodies (strings; None for a missing body) and the senders (a list of the same length, or None). Yields
    `(payload, Labels)` for each chunk, in the order given, each as soon as all its rows are labelled or
    rejected. Raises `SMSFilterError` with the binary's message when it fails.
    """
    read_fd, write_fd = os.pipe()
    try:
        command = _command(binary, rules, threads, classify_args, write_fd)
        process = _Process(command, write_fd, read_fd)
    except BaseException:
        for fd in (read_fd, write_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        raise
    pending = collections.deque()   # [payload, first row, row count, rows known settled]
    next_row = 0
    try:
        for payload, bodies, senders in chunks:
            n = len(bodies)
            if senders is not None and len(senders) != n:
                raise ValueError("%d senders for %d bodies" % (len(senders), n))
            lines = [_encode(next_row + k, bodies[k], None if senders is None else senders[k]) for k in range(n)]
            try:
                process.proc.stdin.write(b"".join(lines))
            except BrokenPipeError:
                break  # the binary stopped reading: its exit status and message say why (below)
            pending.append([payload, next_row, n, 0])
            next_row += n
            while pending and _settled(process, pending[0], wait=False):
                yield _take(process, pending.popleft())
        try:
            process.proc.stdin.close()
        except BrokenPipeError:
            pass
        while pending:
            _settled(process, pending[0], wait=True)
            yield _take(process, pending.popleft())
        _finish(process)
    finally:
        if process.proc.poll() is None:
            process.proc.kill()
            process.proc.wait()


def _settled(process, entry, wait):
    """Whether every row of `entry` is labelled or rejected (with its reason); waits for it if asked.

    `entry[3]` is how many of its rows are known settled, so that each row is looked at about once.
    """
    _, first, n, _ = entry
    with process.cond:
        while True:
            if process.failure:
                raise SMSFilterError(process.failure)
            k = entry[3]
            while k < n and (first + k in process.labels or first + k in process.reasons):
                k += 1
            entry[3] = k
            if k == n:
                return True
            if process.stdout_done and process.rejects_done:
                break
            if not wait:
                return False
            process.cond.wait(0.5)
    # Both outputs are closed: the process has ended. Its status says why a row has no answer.
    _finish(process)
    raise SMSFilterError("smsfilter exited 0 but neither labelled nor rejected row %d" % (first + entry[3]))


def _take(process, entry):
    payload, first, n, _ = entry
    labels = Labels(n)
    with process.cond:
        for k in range(n):
            row = first + k
            found = process.labels.pop(row, None)
            if found is not None:
                labels.action[k], labels.subAction[k], labels.folder[k], labels.rule[k] = found
            else:
                reason = process.reasons.pop(row, None)
                if reason is None:
                    raise SMSFilterError("smsfilter neither labelled nor rejected row %d" % row)
                labels.reject[k] = reason
            process.reasons.pop(row, None)
    return payload, labels


def _line_blocks(stream):
    """The complete lines of `stream`, a list per read (about 64 KiB), so a reader takes its lock per block."""
    carry = b""
    for block in iter(lambda: stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16), b""):
        block = carry + block
        end = block.rfind(b"\n") + 1
        carry = block[end:]
        if end:
            yield block[:end].splitlines()
    if carry.strip():
        yield [carry]


def _finish(process):
    """Waits for the binary; raises `SMSFilterError` with its message unless it exited 0."""
    status = process.proc.wait()
    for thread in process.threads:
        thread.join()
    if process.failure:
        raise SMSFilterError(process.failure, status, bytes(process.stderr).decode("utf-8", "replace"))
    if status != 0:
        text = bytes(process.stderr).decode("utf-8", "replace").strip()
        raise SMSFilterError("smsfilter classify exited with status %d: %s" % (status, text or "(no message)"),
                             status, text)
