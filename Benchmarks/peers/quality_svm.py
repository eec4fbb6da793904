#!/usr/bin/env python3
"""The scikit-learn baseline of docs/QUALITY.md: TF-IDF (word + character 2-5-grams by default) + LinearSVC, on
the folds `smsfilter learn --folds-file` wrote, so both are scored on exactly the same split.

usage: quality_svm.py CORPUS.jsonl[.zst] FOLDS.jsonl MAP [--words 1-1] [--chars 2-5] [--label-field label] [--json OUT]
  MAP: label=target,... as given to smsfilter (one target per label)
  --words, --chars: the n-gram lengths of the word and character TF-IDF (`make quality`'s learner table, issue 32:
  --words 1-2 --chars 1-4)
Prints per-target precision/recall/F1 over the folds, the fit and predict time per 100k messages (process
CPU seconds, so other load on a shared machine does not count), and the size of the last fold's fitted
vectoriser + classifier, pickled.
"""
import argparse, json, pickle, time

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
    ap.add_argument("--words", default="1-1", help="word n-gram lengths, LO-HI")
    ap.add_argument("--chars", default="2-5", help="character n-gram lengths, LO-HI")
    a = ap.parse_args()
    words = tuple(int(x) for x in a.words.split("-"))
    chars = tuple(int(x) for x in a.chars.split("-"))
    bodies, truth, fold, targets = load_split(a.corpus, a.folds, a.map, a.label_field)
    predicted = np.empty(len(truth), dtype=object)
    fit_seconds = predict_seconds = 0.0
    fit_messages = predict_messages = 0
    for k in sorted(set(fold)):
        train = np.where(fold != k)[0]
        test = np.where(fold == k)[0]
        t0 = time.process_time()
        vec = FeatureUnion([("word", TfidfVectorizer(ngram_range=words)), ("char", TfidfVectorizer(analyzer="char", ngram_range=chars))])
        x = vec.fit_transform([bodies[i] for i in train])
        clf = LinearSVC().fit(x, truth[train])
        fit_seconds += time.process_time() - t0
        fit_messages += len(train)
        t0 = time.process_time()
        predicted[test] = clf.predict(vec.transform([bodies[i] for i in test]))
        predict_seconds += time.process_time() - t0
        predict_messages += len(test)
    out = {"fitSecondsPer100k": fit_seconds / fit_messages * 1e5,
           "predictSecondsPer100k": predict_seconds / predict_messages * 1e5, "messages": len(truth),
           "modelBytes": len(pickle.dumps((vec, clf))), "params": {"words": list(words), "chars": list(chars)}}
    score(predicted, truth, targets, out)
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
