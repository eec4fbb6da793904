#!/usr/bin/env python3
"""Matcher peers: pyahocorasick, ahocorasick_rs, hyperscan and ripgrep on the fixtures of `matcher-tool`.

    python3 matcher_peers.py FIXTURES_DIR [--repetitions 5]

FIXTURES_DIR holds bodies-{real,generated}.txt (one body per line) and keywords-{50,5000}.txt, written by
`matcher-tool fixtures FIXTURES_DIR` (Benchmarks/peers/run-matcher-peers.sh does it all, ours included).

Like with like: bodies are read into memory before timing; matching is case-sensitive and overlapping
(standard semantics, every match counted) for the three libraries; the figure is the median of the
repetitions. Each library is timed two ways: "per body" (one call per message, what a pipeline does)
and "one buffer" (all bodies joined by newlines in one call: their best case; keywords hold no newline
so no match crosses bodies). ripgrep is a process reading the file (page cache), counting
non-overlapping matches (`--count-matches`, leftmost-first), so its counts differ.
"""
import statistics
import subprocess
import sys
import time


def median_time(fn, repetitions):
    samples = []
    result = None
    for _ in range(repetitions):
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def main():
    folder = sys.argv[1]
    repetitions = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--repetitions" else 5
    rows = []
    for corpus in ["real", "generated"]:
        path = f"{folder}/bodies-{corpus}.txt"
        with open(path, "rb") as f:
            raw = f.read()
        bodies = raw.split(b"\n")[:-1]
        total = sum(len(b) for b in bodies)
        joined = b"\n".join(bodies)
        str_bodies = [b.decode("utf-8", "replace") for b in bodies]
        str_joined = "\n".join(str_bodies)
        for count in [50, 5000]:
            keywords_path = f"{folder}/keywords-{count}.txt"
            with open(keywords_path, "rb") as f:
                keywords = [k for k in f.read().split(b"\n") if k]
            label = f"{corpus} kw={count}"

            def record(name, seconds, matches):
                rows.append((label, name, total / seconds / 1e6, matches))
                print(f"{label:20} {name:34} {total / seconds / 1e6:10.1f} MB/s  matches {matches}", flush=True)

            # pyahocorasick (str automaton, the library's usual mode).
            try:
                import ahocorasick

                automaton = ahocorasick.Automaton()
                for i, k in enumerate(keywords):
                    automaton.add_word(k.decode("utf-8"), i)
                automaton.make_automaton()

                def py_per_body():
                    n = 0
                    for b in str_bodies:
                        for _ in automaton.iter(b):
                            n += 1
                    return n

                def py_joined():
                    n = 0
                    for _ in automaton.iter(str_joined):
                        n += 1
                    return n

                record("pyahocorasick per body", *median_time(py_per_body, repetitions))
                record("pyahocorasick one buffer", *median_time(py_joined, repetitions))
            except ImportError:
                print("pyahocorasick not installed (pip install pyahocorasick)")

            # ahocorasick_rs (the Rust crate; bytes, standard, overlapping).
            try:
                import ahocorasick_rs

                rs = ahocorasick_rs.BytesAhoCorasick(keywords, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)

                def rs_per_body():
                    return sum(len(rs.find_matches_as_indexes(b, overlapping=True)) for b in bodies)

                def rs_joined():
                    return len(rs.find_matches_as_indexes(joined, overlapping=True))

                record("ahocorasick_rs per body", *median_time(rs_per_body, repetitions))
                record("ahocorasick_rs one buffer", *median_time(rs_joined, repetitions))
            except ImportError:
                print("ahocorasick_rs not installed (pip install ahocorasick_rs)")

            # hyperscan (literal expressions, block mode, every match reported to a callback).
            try:
                import re

                import hyperscan

                db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
                expressions = [re.escape(k.decode("utf-8")).encode("utf-8") for k in keywords]
                db.compile(expressions=expressions, ids=list(range(len(keywords))), flags=[0] * len(keywords))
                counter = [0]

                def on_match(id, start, end, flags, context):
                    counter[0] += 1

                def hs_per_body():
                    counter[0] = 0
                    for b in bodies:
                        db.scan(b, match_event_handler=on_match)
                    return counter[0]

                def hs_joined():
                    counter[0] = 0
                    db.scan(joined, match_event_handler=on_match)
                    return counter[0]

                record("hyperscan per body", *median_time(hs_per_body, repetitions))
                record("hyperscan one buffer", *median_time(hs_joined, repetitions))
            except ImportError:
                print("hyperscan not installed (pip install hyperscan)")

            # ripgrep (a process; the file is in the page cache after the read above).
            def rg():
                out = subprocess.run(
                    ["rg", "--no-config", "-F", "--count-matches", "-f", keywords_path, path],
                    capture_output=True, check=False,
                )
                return int(out.stdout.strip() or b"0")

            try:
                record("ripgrep -F --count-matches", *median_time(rg, repetitions))
            except FileNotFoundError:
                print("ripgrep not installed (apt-get install ripgrep)")


if __name__ == "__main__":
    main()
