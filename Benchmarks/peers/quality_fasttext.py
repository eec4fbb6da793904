#!/usr/bin/env python3
"""The fastText baseline of docs/QUALITY.md: fastText supervised (word 1-2-grams, and with --chars also
character 2-5-grams; one thread), on the folds `smsfilter learn --folds-file` wrote, so all are scored on exactly the same split.

usage: quality_fasttext.py CORPUS.jsonl[.zst] FOLDS.jsonl MAP [--chars] [--label-field label] [--json OUT]
  MAP: label=target,... as given to smsfilter (one target per label)
Prints per-target precision/recall/F1 over the folds, the training time per 100k training messages and the
predict time per 100k messages, both in process CPU seconds (so other load on a shared machine does not
count): one thread (`thread=1` for training; predict on a list of bodies is fastText's own C++ loop).
"""
import argparse, json, os, subprocess, tempfile, time

import fasttext
import numpy as np

# fastText prints its training progress on stderr; keep the measured figures only.
fasttext.FastText.eprint = lambda *args, **kwargs: None

# fastText's usual text-classification recipe (epoch 25, word bigrams); --chars adds subword n-grams, which
# unspaced scripts (Thai) need. Everything else is fastText's default for `supervised`.
PARAMS = dict(epoch=25, lr=0.5, wordNgrams=2, thread=1, verbose=0, seed=1)
CHARS = dict(minn=2, maxn=5)


def read_jsonl(path):
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    else:
        data = open(path, "rb").read()
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


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
    a = ap.parse_args()
    params = dict(PARAMS, **(CHARS if a.chars else {}))
    mapping = dict(item.split("=", 1) for item in a.map.split(","))
    records = read_jsonl(a.corpus)
    folds = {row["line"]: row["fold"] for row in read_jsonl(a.folds)}
    bodies, truth, fold = [], [], []
    for line, r in enumerate(records, start=1):
        if line not in folds:
            continue
        bodies.append(one_line(r["body"]))
        truth.append(mapping[r[a.label_field]])
        fold.append(folds[line])
    truth = np.array(truth)
    fold = np.array(fold)
    targets = list(dict.fromkeys(mapping.values()))
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
    out = {"targets": {}, "fitSecondsPer100k": fit_seconds / fit_messages * 1e5,
           "predictSecondsPer100k": predict_seconds / predict_messages * 1e5, "messages": len(truth),
           "params": {k: v for k, v in params.items() if k != "verbose"}}
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
