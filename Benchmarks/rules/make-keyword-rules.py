#!/usr/bin/env python3
"""Writes rule files with N keywords (for measuring how throughput scales with the keyword count):
the N most frequent words of 4+ characters in a corpus's bodies, after skipping the 200 most frequent,
spread over 12 rules (one per sub-action) plus a junk rule.

Usage: make-keyword-rules.py CORPUS.jsonl[.zst] N OUT.yaml
"""
import collections, json, re, subprocess, sys

corpus, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = subprocess.run(["zstd", "-dcf", corpus], capture_output=True, check=True).stdout.decode("utf-8", "replace")
counts = collections.Counter()
for i, line in enumerate(text.splitlines()):
    if i >= 400_000:
        break
    try:
        body = json.loads(line)["body"]
    except Exception:
        continue
    counts.update(w.lower() for w in re.findall(r"[^\W\d_]{4,}", body))
words = [w for w, _ in counts.most_common(n + 200)][200:200 + n]
subs = ["transactionalOthers", "transactionalFinance", "transactionalOrders", "transactionalReminders",
        "transactionalHealth", "transactionalWeather", "transactionalCarrier", "transactionalRewards",
        "transactionalPublicServices", "promotionalOthers", "promotionalOffers", "promotionalCoupons"]
rules = []
for k, sub in enumerate(subs + ["junk"]):
    share = words[k::len(subs) + 1]
    if not share:
        continue
    action = "junk" if sub == "junk" else ("transaction" if sub.startswith("transactional") else "promotion")
    rule = {"name": f"r{k}-{sub}", "action": action, "keywords": share}
    if sub != "junk":
        rule["subAction"] = sub
    rules.append(rule)
with open(out, "w", encoding="utf-8") as f:
    f.write(f"# {len(words)} keywords from {corpus} (Benchmarks/rules/make-keyword-rules.py)\nversion: 1\nrules:\n")
    for r in rules:
        f.write(f"  - name: {r['name']}\n    action: {r['action']}\n")
        if "subAction" in r:
            f.write(f"    subAction: {r['subAction']}\n")
        f.write("    keywords: " + json.dumps(r["keywords"], ensure_ascii=False) + "\n")
print(f"{len(words)} keywords in {len(rules)} rules -> {out}")
