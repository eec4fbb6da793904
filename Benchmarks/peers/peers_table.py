#!/usr/bin/env python3
"""Runs smsfilter and its peers on one corpus and one phrase list, in one run, and prints one table
(MB/s, messages/s, ratio to smsfilter). With --doc, writes the table into that Markdown file between
`<!-- peers:begin -->` and `<!-- peers:end -->`, with the date, the machine and the versions.

Matchers are compared over bodies preloaded in memory, ASCII case-insensitively (pyahocorasick and
ahocorasick_rs get lower-cased bodies and phrases, hyperscan HS_FLAG_CASELESS), one call per body (what a
pipeline does). Whole-job rows read the same .jsonl.zst and write labelled output.
"""
import argparse, datetime, json, os, platform, re, statistics, subprocess, sys, time

def sh(command, **kw):
    return subprocess.run(command, shell=True, check=True, capture_output=True, **kw)

def timed(command, repeat):
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        sh(command)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)

def median_call(fn, repeat):
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--phrases", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", default="/tmp/smsfilter-peers")
    ap.add_argument("--doc")
    ap.add_argument("--matcher-bytes", type=int, default=100_000_000)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    corpus, phrases_path, work, bin_ = a.corpus, a.phrases, a.work, a.bin
    decoded_bytes = int(sh(f"zstd -dc {corpus} | wc -c").stdout)
    records = int(sh(f"zstd -dc {corpus} | wc -l").stdout)
    rows = []  # (group, name, seconds, bytes, records, command)

    # Floors.
    rows.append(("job", "zstd -dc (decompression floor)", timed(f"zstd -q -dc {corpus} > /dev/null", a.repeat), decoded_bytes, records, f"zstd -dc IN > /dev/null"))
    rows.append(("job", "zstd -dc \\| zstd -1 (codec floor)", timed(f"zstd -q -dc {corpus} | zstd -q -1 -c > {work}/floor.zst", a.repeat), decoded_bytes, records, "zstd -dc IN | zstd -1 -c > OUT"))
    rows.append(("job", "ripgrep -z -c -F -i -f (count only)", timed(f"rg -z -c -F -i -f {phrases_path} {corpus} > /dev/null || true", a.repeat), decoded_bytes, records, "rg -z -c -F -i -f PHRASES IN"))

    # smsfilter.
    bench = json.loads(sh(f"{bin_} bench --json --repeat {a.repeat} --threads 2 --matcher-bytes {a.matcher_bytes} {corpus}").stdout)
    labels = json.loads(sh(f"{bin_} bench --json --repeat {a.repeat} --threads 2 --matcher-bytes 1M --labels-only {corpus}").stdout)
    e2e = bench["endToEnd"]
    rows.append(("job", "smsfilter classify → .jsonl.zst (2 threads)", e2e["seconds"], e2e["bytes"], e2e["records"], "smsfilter bench --threads 2 IN (endToEnd)"))
    rows.append(("job", "smsfilter classify --labels-only (2 threads)", labels["endToEnd"]["seconds"], labels["endToEnd"]["bytes"], labels["endToEnd"]["records"], "smsfilter bench --labels-only --threads 2 IN"))

    # Python whole-job pipelines.
    for processes in (1, 2):
        result = json.loads(sh(f"python3 {here}/pipeline_peers.py {corpus} {phrases_path} --processes {processes} --out {work}/py.zst").stdout)
        rows.append(("job", result["name"], result["seconds"], result["bytes"], result["records"], f"pipeline_peers.py --processes {processes}"))

    # Matchers over preloaded bodies.
    import orjson, ahocorasick, ahocorasick_rs, hyperscan
    bodies = []
    total = 0
    for line in sh(f"zstd -dc {corpus}").stdout.split(b"\n"):
        if not line:
            continue
        body = orjson.loads(line)["body"]
        bodies.append(body)
        total += len(body.encode())
        if total >= bench["matcher"]["bytes"]:
            break
    phrases = [p for p in open(phrases_path, encoding="utf-8").read().split("\n") if p]
    lower_bodies = [b.lower() for b in bodies]
    pa = ahocorasick.Automaton()
    for i, p in enumerate(phrases):
        pa.add_word(p.lower(), i)
    pa.make_automaton()
    def run_pa():
        n = 0
        for b in lower_bodies:
            for _ in pa.iter(b):
                n += 1
        return n
    rs = ahocorasick_rs.AhoCorasick([p.lower() for p in phrases])
    def run_rs():
        n = 0
        for b in lower_bodies:
            n += len(rs.find_matches_as_indexes(b, overlapping=True))
        return n
    db = hyperscan.Database()
    byte_bodies = [b.encode() for b in bodies]
    db.compile(expressions=[re.escape(p).encode() for p in phrases], ids=list(range(len(phrases))),
               flags=[hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_UTF8] * len(phrases))
    def run_hs():
        count = [0]
        def on_match(id, start, end, flags, context):
            count[0] += 1
        for b in byte_bodies:
            db.scan(b, match_event_handler=on_match)
        return count[0]
    for name, fn in [("pyahocorasick (lower-cased, per body)", run_pa), ("ahocorasick_rs (lower-cased, overlapping, per body)", run_rs),
                     ("hyperscan (caseless, per body)", run_hs)]:
        rows.append(("matcher", name, median_call(fn, a.repeat), total, len(bodies), "peers_table.py"))
    m, auto = bench["matcher"], bench["automaton"]
    rows.append(("matcher", "smsfilter automaton (rule-set phrases, ASCII fold)", auto["seconds"], auto["bytes"], auto["records"], "smsfilter bench (automaton)"))
    rows.append(("matcher", "smsfilter classifier (automata + rules, 1 thread)", m["seconds"], m["bytes"], m["records"], "smsfilter bench (matcher)"))

    job_ref = e2e["bytes"] / 1e6 / e2e["seconds"]
    matcher_ref = auto["bytes"] / 1e6 / auto["seconds"] if auto["seconds"] else 1
    lines = ["| group | tool | MB/s | messages/s | seconds | vs smsfilter |", "|---|---|---:|---:|---:|---:|"]
    for group, name, seconds, nbytes, nrecords, _ in rows:
        mbps = nbytes / 1e6 / seconds if seconds else 0
        ref = job_ref if group == "job" else matcher_ref
        lines.append(f"| {group} | {name} | {mbps:,.1f} | {nrecords / seconds if seconds else 0:,.0f} | {seconds:.3f} | {mbps / ref:.2f}× |")
    table = "\n".join(lines)
    versions = {
        "zstd": (re.findall(r"v[0-9.]+", sh("zstd --version").stdout.decode()) or ["?"])[0],
        "ripgrep": sh("rg --version").stdout.decode().split()[1],
        "python": platform.python_version(),
    }
    for module in ["ahocorasick", "ahocorasick_rs", "hyperscan", "zstandard", "orjson"]:
        try:
            from importlib.metadata import version
            dist = {"ahocorasick": "pyahocorasick"}.get(module, module)
            versions[dist] = version(dist)
        except Exception:
            pass
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    header = (f"Measured {datetime.date.today().isoformat()} on {os.cpu_count()} cores ({cpu}), "
              f"{decoded_bytes / 1e6:,.0f} MB of generated JSONL ({records:,} records, `smsfilter generate --seed 1`), "
              f"{len(phrases)} phrases of the embedded rules, median of {a.repeat}. "
              f"Ratios: job rows against smsfilter's end-to-end run, matcher rows against smsfilter's automaton. "
              f"Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ". Command: `make peers`.")
    print(header)
    print(table)
    if a.doc:
        text = open(a.doc, encoding="utf-8").read() if os.path.exists(a.doc) else "# Performance\n"
        block = f"<!-- peers:begin -->\n{header}\n\n{table}\n<!-- peers:end -->"
        if "<!-- peers:begin -->" in text:
            text = re.sub(r"<!-- peers:begin -->.*?<!-- peers:end -->", lambda _: block, text, flags=re.S)
        else:
            text += "\n## Peers, side by side\n\n" + block + "\n"
        open(a.doc, "w", encoding="utf-8").write(text)

if __name__ == "__main__":
    main()
