#!/usr/bin/env python3
"""The scikit-learn baseline of docs/QUALITY.md: TF-IDF (word + character 2-5-grams) + LinearSVC, on the
folds `smsfilter learn --folds-file` wrote, so both are scored on exactly the same split.

usage: quality_svm.py CORPUS.jsonl[.zst] FOLDS.jsonl MAP [--label-field label] [--json OUT]
  MAP: label=target,... as given to smsfilter (one target per label)
Prints per-target precision/recall/F1 over the folds, the fit and predict time per 100k messages (process
CPU seconds, so other load on a shared machine does not count).
"""
import argparse, json, time

import numpy as np
from quality_common import load_split, score
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import FeatureUnion
from sklearn.svm import LinearSVC


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("folds")
    ap.add_argument("map")
    ap.add_argument("--label-field", default="label")
    ap.add_argument("--json")
    a = ap.parse_args()
    bodies, truth, fold, targets = load_split(a.corpus, a.folds, a.map, a.label_field)
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
    out = {"fitSecondsPer100k": fit_seconds / fit_messages * 1e5,
           "predictSecondsPer100k": predict_seconds / predict_messages * 1e5, "messages": len(truth)}
    score(predicted, truth, targets, out)
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
