#!/usr/bin/env python3
"""The scikit-learn baseline of docs/QUALITY.md: TF-IDF (word + character 2-5-grams) + LinearSVC, on the
folds `smsfilter learn --folds-file` wrote, so both are scored on exactly the same split.

usage: quality_svm.py CORPUS.jsonl[.zst] FOLDS.jsonl MAP [--label-field label] [--json OUT]
  MAP: label=target,... as given to smsfilter (one target per label)
Prints per-target precision/recall/F1 over the folds, the fit and predict time per 100k messages (process
CPU seconds, so other load on a shared machine does not count).
"""
import argparse, io, json, subprocess, sys, time

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import FeatureUnion
from sklearn.svm import LinearSVC


def read_jsonl(path):
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    else:
        data = open(path, "rb").read()
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("folds")
    ap.add_argument("map")
    ap.add_argument("--label-field", default="label")
    ap.add_argument("--json")
    a = ap.parse_args()
    mapping = dict(item.split("=", 1) for item in a.map.split(","))
    records = read_jsonl(a.corpus)
    folds = {}
    for row in read_jsonl(a.folds):
        folds[row["line"]] = row["fold"]
    bodies, truth, fold = [], [], []
    for line, r in enumerate(records, start=1):
        if line not in folds:
            continue
        bodies.append(r["body"])
        truth.append(mapping[r[a.label_field]])
        fold.append(folds[line])
    truth = np.array(truth)
    fold = np.array(fold)
    targets = list(dict.fromkeys(mapping.values()))
    predicted = np.empty(len(truth), dtype=object)
    fit_seconds = predict_seconds = 0.0
    fit_messages = predict_messages = 0
    for k in sorted(set(fold)):
        train = np.where(fold != k)[0]
        test = np.where(fold == k)[0]
        t0 = time.process_time()
        vec = FeatureUnion([("word", TfidfVectorizer()), ("char", TfidfVectorizer(analyzer="char", ngram_range=(2, 5)))])
        x = vec.fit_transform([bodies[i] for i in train])
        clf = LinearSVC().fit(x, truth[train])
        fit_seconds += time.process_time() - t0
        fit_messages += len(train)
        t0 = time.process_time()
        predicted[test] = clf.predict(vec.transform([bodies[i] for i in test]))
        predict_seconds += time.process_time() - t0
        predict_messages += len(test)
    out = {"targets": {}, "fitSecondsPer100k": fit_seconds / fit_messages * 1e5,
           "predictSecondsPer100k": predict_seconds / predict_messages * 1e5, "messages": len(truth)}
    f1s = []
    for t in targets:
        tp = int(np.sum((predicted == t) & (truth == t)))
        fp = int(np.sum((predicted == t) & (truth != t)))
        fn = int(np.sum((predicted != t) & (truth == t)))
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        f1s.append(f)
        out["targets"][t] = {"precision": p, "recall": r, "f1": f, "support": tp + fn}
        print(f"{t:14s} precision {p:.4f} recall {r:.4f} F1 {f:.4f} support {tp + fn}")
    out["macroF1"] = float(np.mean(f1s))
    out["accuracy"] = float(np.mean(predicted == truth))
    print(f"accuracy {out['accuracy']:.4f} macro F1 {out['macroF1']:.4f}")
    print(f"fit {out['fitSecondsPer100k']:.2f} s per 100k training messages, predict {out['predictSecondsPer100k']:.2f} s per 100k")
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
