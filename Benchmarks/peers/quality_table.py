#!/usr/bin/env python3
"""Prints docs/QUALITY.md's table from the files Benchmarks/peers/quality.sh wrote into OUT."""
import json, statistics, sys

out = sys.argv[1]
maps = {"uci": {"spam": "junk", "ham": "none"}, "thai": {"OTP": "transaction", "scam": "junk", "spam": "promotion", "OK": "none"}}


def median_seconds(prefix):
    # CPU seconds (user + system) of the run: `/usr/bin/time -f "%e %M %U %S"`.
    def cpu(i):
        fields = open(f"{out}/{prefix}-{i}").read().split()
        return float(fields[2]) + float(fields[3])
    return statistics.median(cpu(i) for i in (1, 2, 3))


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


print("| corpus | target | default rules P / R / F1 | learn P / R / F1 | SVM P / R / F1 | fastText words P / R / F1 | fastText words + chars P / R / F1 |")
print("|---|---|---|---|---|---|---|")
times = []
for name in ("uci", "thai"):
    # learn's plain decisions (argmax of the scores, like the SVM's and fastText's); the calibrated margins
    # (abstain unless 98% precise) are a separate row below.
    cv = json.load(open(f"{out}/{name}-learn-cv.json"))["crossValidation"]
    learn = cv.get("withoutMargins", cv)
    svm = json.load(open(f"{out}/{name}-svm.json"))
    ft = json.load(open(f"{out}/{name}-fasttext.json"))
    ftc = json.load(open(f"{out}/{name}-fasttext-chars.json"))
    rules = rules_scores(name)
    f1s = {"rules": [], "learn": [], "svm": [], "ft": [], "ftc": []}
    for t in learn["targets"]:
        target = t["target"]
        s = svm["targets"][target]
        r = rules[target]
        f, fc = ft["targets"][target], ftc["targets"][target]
        f1s["rules"].append(r[2]); f1s["learn"].append(t["f1"]); f1s["svm"].append(s["f1"])
        f1s["ft"].append(f["f1"]); f1s["ftc"].append(fc["f1"])
        print(f"| {name} | {target} | {r[0]:.3f} / {r[1]:.3f} / {r[2]:.3f} | {t['precision']:.3f} / {t['recall']:.3f} / **{t['f1']:.3f}** | "
              f"{s['precision']:.3f} / {s['recall']:.3f} / **{s['f1']:.3f}** | {f['precision']:.3f} / {f['recall']:.3f} / **{f['f1']:.3f}** | "
              f"{fc['precision']:.3f} / {fc['recall']:.3f} / **{fc['f1']:.3f}** |")
    m = {k: sum(v) / len(v) for k, v in f1s.items()}
    print(f"| {name} | macro F1 | {m['rules']:.3f} | **{m['learn']:.3f}** | **{m['svm']:.3f}** | **{m['ft']:.3f}** | **{m['ftc']:.3f}** |")
    if "withoutMargins" in cv:
        print(f"| {name} | macro F1, learn with its calibrated margins (abstentions count as none) | | {cv['macroF1']:.3f} | | | |")
    n = sum(1 for _ in open(f"{out}/{name}.jsonl"))
    learn_s = median_seconds(f"{name}-learn-time") / n * 1e5
    times.append((name, n, learn_s, median_seconds(f"{name}-classify-model"), median_seconds(f"{name}-classify-rules"),
                  peak_kib(f"{name}-learn-time"), svm, ft, ftc))
print()
print("CPU seconds of one core per 100k messages (learn: per 100k of the corpus, the whole model written; the peers: per")
print("100k training messages over the 5 folds; classify: `classify --threads 1 --labels-only`, the whole job of reading,")
print("decoding and writing included; the peers' predict: the held-out bodies already in memory).")
print()
print("| corpus | learn | SVM fit | fastText words fit | fastText words + chars fit | classify with the model | default rules | SVM predict | fastText words predict | fastText words + chars predict | learn peak RSS |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, n, ls, cm, cr, rss, svm, ft, ftc in times:
    print(f"| {name} ({n:,} messages) | {ls:.2f} | {svm['fitSecondsPer100k']:.2f} | {ft['fitSecondsPer100k']:.2f} | {ftc['fitSecondsPer100k']:.2f} | "
          f"{cm:.2f} | {cr:.2f} | {svm['predictSecondsPer100k']:.2f} | {ft['predictSecondsPer100k']:.2f} | {ftc['predictSecondsPer100k']:.2f} | {rss / 1024:.0f} MiB |")
print()
print("Ratios (issue 23's goal: a learned model's classify ≥ 10× fastText's predict per core on the same messages):")
for name, n, ls, cm, cr, rss, svm, ft, ftc in times:
    print(f"- {name}: fastText words predict ÷ classify {ft['predictSecondsPer100k'] / cm:.1f}×, fastText words + chars "
          f"{ftc['predictSecondsPer100k'] / cm:.1f}×, SVM predict {svm['predictSecondsPer100k'] / cm:.0f}×; "
          f"fastText fit ÷ learn {ft['fitSecondsPer100k'] / ls:.1f}× (words), {ftc['fitSecondsPer100k'] / ls:.1f}× (words + chars)")
