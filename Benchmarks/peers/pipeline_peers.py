#!/usr/bin/env python3
"""The whole classify job done the way a user would without smsfilter: a Python pipeline with
zstandard (decode), orjson (parse), pyahocorasick (match) and zstandard (write), on one process and on
N processes (one per share of the input's lines). It does the same work smsfilter does per record: parse
the line, find the rule set's phrases in the body (ASCII case-insensitive), pick the first matching
rule's folder, and write the record back with a "filter" object added.

Usage: pipeline_peers.py INPUT.jsonl.zst PHRASES.txt [--processes N] [--out OUT.jsonl.zst]
Prints one JSON object: {"name", "seconds", "bytes", "records", "mbPerSecond", "processes"}.
"""
import argparse, json, multiprocessing as mp, os, sys, time

import ahocorasick
import orjson
import zstandard


def build(phrases):
    automaton = ahocorasick.Automaton()
    for index, phrase in enumerate(phrases):
        automaton.add_word(phrase.lower(), index)
    automaton.make_automaton()
    return automaton


def label(automaton, body, folders):
    best = None
    for end, index in automaton.iter(body.lower()):
        if best is None or index < best:
            best = index
    return folders[best] if best is not None else "Unknown Senders"


def work(args):
    lines, phrases, folders = args
    automaton = build(phrases)
    out = []
    for line in lines:
        try:
            record = orjson.loads(line)
            body = record["body"]
        except Exception:
            continue
        record["filter"] = {"folder": label(automaton, body, folders)}
        out.append(orjson.dumps(record))
    return b"\n".join(out) + b"\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("phrases")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--out", default=os.devnull)
    args = parser.parse_args()
    phrases = [p for p in open(args.phrases, encoding="utf-8").read().split("\n") if p]
    folders = ["Junk", "Promotions", "Transactions"] * (len(phrases) // 3 + 1)
    start = time.perf_counter()
    decompressed = 0
    records = 0
    compressor = zstandard.ZstdCompressor(level=1)
    with open(args.input, "rb") as fh, open(args.out, "wb") as out_fh:
        reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)
        writer = compressor.stream_writer(out_fh)
        pool = mp.Pool(args.processes) if args.processes > 1 else None
        carry = b""
        batch_size = 8 << 20
        while True:
            chunk = reader.read(batch_size)
            if not chunk:
                break
            decompressed += len(chunk)
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            carry = data[cut:]
            lines = data[:cut].split(b"\n")[:-1]
            records += len(lines)
            if pool:
                share = (len(lines) + args.processes - 1) // args.processes
                parts = [(lines[i:i + share], phrases, folders) for i in range(0, len(lines), share)]
                for result in pool.map(work, parts):
                    writer.write(result)
            else:
                writer.write(work((lines, phrases, folders)))
        if carry:
            records += 1
            writer.write(work(([carry], phrases, folders)))
        writer.flush(zstandard.FLUSH_FRAME)
        if pool:
            pool.close()
    seconds = time.perf_counter() - start
    print(json.dumps({"name": f"python zstandard+orjson+pyahocorasick ({args.processes} process{'es' if args.processes > 1 else ''})",
                      "seconds": seconds, "bytes": decompressed, "records": records,
                      "mbPerSecond": decompressed / 1e6 / seconds, "processes": args.processes}))


if __name__ == "__main__":
    main()
