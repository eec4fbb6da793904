#!/usr/bin/env python3
"""The automaton beside `rg -F -i` and `LC_ALL=C grep -F -i` on the same bodies and keywords, in one run.

    python3 grep_peers.py FIXTURES_DIR MATCHER_TOOL [--repetitions 5] [--megabytes 200] [--before OTHER_TOOL]

FIXTURES_DIR holds what `matcher-tool fixtures DIR` writes (bodies-{real,generated}.txt, one body per
line; keywords-{50,5000}.txt). The command-line tools read a file of the same bodies repeated to about
--megabytes (so that their start-up and pattern compilation do not dominate; the file is in the page
cache after the first run). Ours is `matcher-tool` (MATCHER_FIXTURES_DIR=FIXTURES_DIR, ASCII case
folding, the automatic engine, batch scan over the bodies as spans of one buffer, median of 7 inside
the tool). Each repetition runs ours and then every peer once, so they share the machine's load; the
figure is the median over the repetitions and the ratio is ours / peer.

With --before, a second matcher-tool (e.g. built from an older commit) runs in the same repetitions, so
a change's effect and the peers' ratios come from one run.

Modes, because they do different amounts of work:
  rg -c, grep -c          count matching lines: stop at a line's first match (the issue's figures)
  rg --count-matches,     every non-overlapping match
  grep -o | wc -l
Ours reports every overlapping match, so it does at least the work of either. grep's output is piped:
GNU grep stops at the first match when its output is /dev/null.
"""
import os
import re
import statistics
import subprocess
import sys
import time


def timed(command, **kwargs):
    start = time.perf_counter()
    out = subprocess.run(command, capture_output=True, check=False, **kwargs)
    return time.perf_counter() - start, out.stdout


def main():
    folder, tool = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    repetitions = int(args[args.index("--repetitions") + 1]) if "--repetitions" in args else 5
    megabytes = int(args[args.index("--megabytes") + 1]) if "--megabytes" in args else 200
    before = args[args.index("--before") + 1] if "--before" in args else None
    env = dict(os.environ, LC_ALL="C")
    tool_env = dict(os.environ, MATCHER_FIXTURES_DIR=folder)
    rows = []
    for corpus in ["real", "generated"]:
        path = f"{folder}/bodies-{corpus}.txt"
        with open(path, "rb") as f:
            one = f.read()
        big = f"{folder}/big-{corpus}.txt"
        copies = max(1, megabytes * 1_000_000 // len(one))
        if not os.path.exists(big) or os.path.getsize(big) != copies * len(one):
            with open(big, "wb") as f:
                for _ in range(copies):
                    f.write(one)
        big_bytes = copies * (len(one) - one.count(b"\n"))
        for count in [50, 5000]:
            keywords = f"{folder}/keywords-{count}.txt"
            label = f"{corpus} kw={count}"
            peers = {
                "rg -F -i -c": (["rg", "--no-config", "-F", "-i", "-c", "-f", keywords, big], {}),
                "rg -F -i --count-matches": (["rg", "--no-config", "-F", "-i", "--count-matches", "-f", keywords, big], {}),
                "LC_ALL=C grep -F -i -c | cat": (["bash", "-c", f"grep -F -i -c -f {keywords} {big} | cat"], {"env": env}),
                "LC_ALL=C grep -F -i -o | wc -l": (["bash", "-c", f"grep -F -i -o -f {keywords} {big} | wc -l"], {"env": env}),
            }
            samples = {name: [] for name in ["ours", "before"] + list(peers)}
            engine = ""
            engine_before = ""
            for _ in range(repetitions):
                for key, binary in [("ours", tool), ("before", before)]:
                    if binary is None:
                        continue
                    _, out = timed([binary, f"={corpus} kw={count} fold=ascii auto+pf"], env=tool_env)
                    match = re.search(r"batch ([0-9.]+) GB/s.*\[(.*)\]", out.decode())
                    samples[key].append(float(match.group(1)) * 1000)
                    if key == "ours":
                        engine = match.group(2)
                    else:
                        engine_before = match.group(2)
                for name, (command, kwargs) in peers.items():
                    seconds, _ = timed(command, **kwargs)
                    samples[name].append(big_bytes / seconds / 1e6)
            ours = statistics.median(samples["ours"])
            print(f"{label}: ours {ours:,.0f} MB/s [{engine}]", flush=True)
            old = statistics.median(samples["before"]) if samples["before"] else None
            if old:
                print(f"{label}: before {old:,.0f} MB/s [{engine_before}]", flush=True)
            for name in peers:
                peer = statistics.median(samples[name])
                rows.append((label, name, peer, ours / peer))
                extra = f"   before / peer {old / peer:5.2f}x" if old else ""
                print(f"  {name:34} {peer:8,.0f} MB/s   ours / peer {ours / peer:5.2f}x{extra}", flush=True)


if __name__ == "__main__":
    main()
