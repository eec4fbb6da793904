"""What the quality peers (quality_svm.py, quality_fasttext.py) share: reading the corpus and the fold file
`smsfilter learn --folds-file` wrote, and scoring predictions per target the way docs/QUALITY.md reports them."""
import json, subprocess

import numpy as np


def read_jsonl(path):
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    else:
        data = open(path, "rb").read()
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def load_split(corpus, folds_path, map_text, label_field="label", body=lambda text: text):
    """(bodies, truth, fold, targets): the corpus's messages that the fold file names, each body through
    `body`, truth mapped by MAP (label=target,...), as numpy arrays where the peers index them."""
    mapping = dict(item.split("=", 1) for item in map_text.split(","))
    folds = {row["line"]: row["fold"] for row in read_jsonl(folds_path)}
    bodies, truth, fold = [], [], []
    for line, r in enumerate(read_jsonl(corpus), start=1):
        if line not in folds:
            continue
        bodies.append(body(r["body"]))
        truth.append(mapping[r[label_field]])
        fold.append(folds[line])
    return bodies, np.array(truth), np.array(fold), list(dict.fromkeys(mapping.values()))


def score(predicted, truth, targets, out):
    """Per-target precision, recall and F1, macro F1 and accuracy into `out`, printed as they are added."""
    out["targets"] = {}
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
    # Spam = junk or promotion (the targets smsfilter files away), against every other target: the binary
    # figure docs/QUALITY.md's learner table gives for every map.
    spam = {"junk", "promotion"}
    ps, ts = np.isin(predicted, list(spam)), np.isin(truth, list(spam))
    tp, fp, fn = int(np.sum(ps & ts)), int(np.sum(ps & ~ts)), int(np.sum(~ps & ts))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    out["spam"] = {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0, "support": tp + fn}
    out["macroF1"] = float(np.mean(f1s))
    out["accuracy"] = float(np.mean(predicted == truth))
    print(f"accuracy {out['accuracy']:.4f} macro F1 {out['macroF1']:.4f}")
    print(f"fit {out['fitSecondsPer100k']:.2f} s per 100k training messages, predict {out['predictSecondsPer100k']:.2f} s per 100k")
