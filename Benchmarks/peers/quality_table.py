#!/usr/bin/env python3
"""Prints docs/QUALITY.md's table from the files Benchmarks/peers/quality.sh wrote into OUT."""
import json, statistics, sys

out = sys.argv[1]
maps = {"uci": {"spam": "junk", "ham": "none"}, "thai": {"OTP": "transaction", "scam": "junk", "spam": "promotion", "OK": "none"}}


def median_seconds(prefix):
    return statistics.median(float(open(f"{out}/{prefix}-{i}").read().split()[0]) for i in (1, 2, 3))


def peak_kib(prefix):
    return max(int(open(f"{out}/{prefix}-{i}").read().split()[1]) for i in (1, 2, 3))


def rules_scores(name):
    # The default rules' verdict mapped to the same targets: UCI junk = junk or promotion (spam is both);
    # Thai by action; none and allow are "none".
    truth = [maps[name][json.loads(l)["label"]] for l in open(f"{out}/{name}.jsonl")]
    pred = []
    for l in open(f"{out}/{name}-rules.jsonl"):
        a = json.loads(l)["filter"]["action"]
        if name == "uci":
            pred.append("junk" if a in ("junk", "promotion") else "none")
        else:
            pred.append("none" if a in ("none", "allow") else a)
    scores = {}
    for t in dict.fromkeys(maps[name].values()):
        tp = sum(1 for x, y in zip(truth, pred) if x == t and y == t)
        fp = sum(1 for x, y in zip(truth, pred) if x != t and y == t)
        fn = sum(1 for x, y in zip(truth, pred) if x == t and y != t)
        p = tp / (tp + fp) if tp + fp else 0
        r = tp / (tp + fn) if tp + fn else 0
        scores[t] = (p, r, 2 * p * r / (p + r) if p + r else 0)
    return scores


print("| corpus | target | default rules P / R / F1 | learn P / R / F1 | SVM P / R / F1 |")
print("|---|---|---|---|---|")
times = []
for name in ("uci", "thai"):
    learn = json.load(open(f"{out}/{name}-learn-cv.json"))["crossValidation"]
    svm = json.load(open(f"{out}/{name}-svm.json"))
    rules = rules_scores(name)
    f1s = {"rules": [], "learn": [], "svm": []}
    for t in learn["targets"]:
        target = t["target"]
        s = svm["targets"][target]
        r = rules[target]
        f1s["rules"].append(r[2]); f1s["learn"].append(t["f1"]); f1s["svm"].append(s["f1"])
        print(f"| {name} | {target} | {r[0]:.3f} / {r[1]:.3f} / {r[2]:.3f} | {t['precision']:.3f} / {t['recall']:.3f} / **{t['f1']:.3f}** | "
              f"{s['precision']:.3f} / {s['recall']:.3f} / **{s['f1']:.3f}** |")
    m = {k: sum(v) / len(v) for k, v in f1s.items()}
    print(f"| {name} | macro F1 | {m['rules']:.3f} | **{m['learn']:.3f}** | **{m['svm']:.3f}** |")
    n = sum(1 for _ in open(f"{out}/{name}.jsonl"))
    learn_s = median_seconds(f"{name}-learn-time") / n * 1e5
    times.append((name, n, learn_s, svm["fitSecondsPer100k"], median_seconds(f"{name}-classify-model"),
                  median_seconds(f"{name}-classify-rules"), svm["predictSecondsPer100k"], peak_kib(f"{name}-learn-time")))
print()
print("| corpus | learn, s per 100k | SVM fit, s per 100k | classify with the model, s per 100k | default rules, s per 100k | SVM predict, s per 100k | predict ÷ classify | learn peak RSS |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for name, n, ls, fs, cm, cr, ps, rss in times:
    print(f"| {name} ({n:,} messages) | {ls:.2f} | {fs:.2f} | {cm:.2f} | {cr:.2f} | {ps:.2f} | {ps / cm:.0f}× | {rss / 1024:.0f} MiB |")
