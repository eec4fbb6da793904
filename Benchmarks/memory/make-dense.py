#!/usr/bin/env python3
"""Writes RECORDS JSON Lines records whose bodies are about BYTES bytes of words that are nearly all
keywords of a rule file: the long, keyword-dense records of docs/PERFORMANCE.md, "Memory by formula",
input (a) (20 records × 60 MB: `make-dense.py 20 60000000 | zstd -1 -q -o dense.jsonl.zst`).

Usage: make-dense.py RECORDS BYTES [--seed N] [--rules FILE.yaml] [--filler PERCENT] > OUT.jsonl

Keywords: every string in the `keywords` and `all` groups of the rule file's rules (default
samples/default-rules.yaml; its `unless` vetoes are left out). A body is those keywords picked by a seeded
generator (default seed 1), one in 100/PERCENT words a filler word that is no keyword (default 5%), joined
by spaces and cut at the last word that fits in BYTES bytes of UTF-8. Same arguments, same bytes.

Written on 2026-11-27 from the section's description of the session's `gen.py` (which was not kept):
its bytes are not gen.py's, and the figures in that section were measured with gen.py's output.
"""
import json, os, random, sys

try:
    import yaml
except ImportError:
    sys.exit("make-dense.py needs PyYAML (python3 -m pip install pyyaml) to read the rule file")


def keywords(path):
    """The rule file's keywords and `all` group members, in file order, without duplicates."""
    with open(path, encoding="utf-8") as f:
        rules = yaml.safe_load(f).get("rules", [])
    found = []

    def take(value):
        if isinstance(value, str):
            word = value.strip()
            if word and word not in seen:
                seen.add(word)
                found.append(word)
        elif isinstance(value, list):
            for item in value:
                take(item)

    seen = set()
    for rule in rules:
        take(rule.get("keywords"))
        take(rule.get("all"))
    return found


def main(argv):
    args, options = [], {"--seed": "1", "--rules": None, "--filler": "5"}
    i = 0
    while i < len(argv):
        if argv[i] in options and i + 1 < len(argv):
            options[argv[i]] = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        sys.exit(__doc__)
    records, size = int(args[0]), int(args[1])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    words = keywords(options["--rules"] or os.path.join(root, "samples", "default-rules.yaml"))
    if not words:
        sys.exit("make-dense.py: no keywords in the rule file")
    filler = ["the", "and", "for", "you", "this", "with", "today", "please", "thanks", "later"]
    filler = [w for w in filler if w not in words] or ["zzqx"]
    rng = random.Random(int(options["--seed"]))
    percent = float(options["--filler"])
    population = words + filler
    weights = [(100 - percent) / len(words)] * len(words) + [percent / len(filler)] * len(filler)
    out = sys.stdout.buffer
    for n in range(1, records + 1):
        parts, length = [], 0
        while length < size:
            # Words in blocks, so that a 60 MB body takes seconds, not minutes.
            for word in rng.choices(population, weights=weights, k=4096):
                cost = len(word.encode("utf-8")) + (1 if parts else 0)
                if length + cost > size:
                    length = size
                    break
                parts.append(word)
                length += cost
        record = {"id": f"dense:{n}", "sender": "+15550100", "body": " ".join(parts)}
        out.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")


if __name__ == "__main__":
    main(sys.argv[1:])
