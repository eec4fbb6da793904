#!/usr/bin/env python3
"""The fastText baseline of docs/QUALITY.md: fastText supervised (word 1-2-grams, and with --chars also
character 2-5-grams; one thread), on the folds `smsfilter learn --folds-file` wrote, so all are scored on exactly the same split.

usage: quality_fasttext.py CORPUS.jsonl[.zst] FOLDS.jsonl MAP [--chars | --minn N --maxn N] [--label-field label] [--json OUT]
  MAP: label=target,... as given to smsfilter (one target per label)
  --minn, --maxn: subword n-gram lengths (`make quality`'s learner table, issue 32: --minn 2 --maxn 4)
Prints per-target precision/recall/F1 over the folds, the training time per 100k training messages and the
predict time per 100k messages, both in process CPU seconds (so other load on a shared machine does not
count): one thread (`thread=1` for training; predict on a list of bodies is fastText's own C++ loop); and the
size of the last fold's model as `save_model` writes it (`.bin`).
"""
import argparse, json, os, tempfile, time

import fasttext
import numpy as np
from quality_common import load_split, score

# fastText prints its training progress on stderr; keep the measured figures only.
fasttext.FastText.eprint = lambda *args, **kwargs: None

# fastText's usual text-classification recipe (epoch 25, word bigrams); --chars adds subword n-grams, which
# unspaced scripts (Thai) need. Everything else is fastText's default for `supervised`.
PARAMS = dict(epoch=25, lr=0.5, wordNgrams=2, thread=1, verbose=0, seed=1)
CHARS = dict(minn=2, maxn=5)


def one_line(body):
    # fastText reads one example per line, labels first: no newline in the text, no word that is a label.
    return " ".join(w for w in body.split() if not w.startswith("__label__"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("folds")
    ap.add_argument("map")
    ap.add_argument("--label-field", default="label")
    ap.add_argument("--json")
    ap.add_argument("--chars", action="store_true", help="character 2-5-grams too (minn 2, maxn 5)")
    ap.add_argument("--minn", type=int, help="shortest subword n-gram (with --maxn)")
    ap.add_argument("--maxn", type=int, help="longest subword n-gram (with --minn)")
    a = ap.parse_args()
    params = dict(PARAMS, **(CHARS if a.chars else {}))
    if a.minn is not None or a.maxn is not None:
        params.update(minn=a.minn or 0, maxn=a.maxn or 0)
    bodies, truth, fold, targets = load_split(a.corpus, a.folds, a.map, a.label_field, body=one_line)
    predicted = np.empty(len(truth), dtype=object)
    fit_seconds = predict_seconds = 0.0
    fit_messages = predict_messages = 0
    with tempfile.TemporaryDirectory() as work:
        for k in sorted(set(fold)):
            train = np.where(fold != k)[0]
            test = np.where(fold == k)[0]
            path = os.path.join(work, f"train-{k}.txt")
            with open(path, "w", encoding="utf-8") as f:
                for i in train:
                    f.write(f"__label__{truth[i]} {bodies[i]}\n")
            t0 = time.process_time()
            model = fasttext.train_supervised(input=path, **params)
            fit_seconds += time.process_time() - t0
            fit_messages += len(train)
            texts = [bodies[i] for i in test]
            t0 = time.process_time()
            labels, _ = model.predict(texts)
            predict_seconds += time.process_time() - t0
            predict_messages += len(test)
            predicted[test] = [l[0][len("__label__"):] for l in labels]
        bin_path = os.path.join(work, "model.bin")
        model.save_model(bin_path)
        model_bytes = os.path.getsize(bin_path)
    out = {"fitSecondsPer100k": fit_seconds / fit_messages * 1e5,
           "predictSecondsPer100k": predict_seconds / predict_messages * 1e5, "messages": len(truth),
           "modelBytes": model_bytes, "params": {k: v for k, v in params.items() if k != "verbose"}}
    score(predicted, truth, targets, out)
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
