#!/usr/bin/env python3
"""The scikit-learn pins of `smsfilter evaluate` (issue 32 item 4; docs/EVALUATE.md, "Figures").

For every case below found in the corpora folder, runs `smsfilter evaluate … --predictions FILE --json-file -`,
reads the y_true/y_pred it wrote, and computes scikit-learn's `f1_score(y_true, y_pred, average="macro")`,
`accuracy_score` and the F1 of each class (`precision_recall_fscore_support`, labels = the union of y_true and
y_pred, zero_division=0). Prints one Markdown row per case: evaluate's macro F1 beside scikit-learn's, and exits
1 when they differ at the fourth decimal.

With --write, stores the pins in Tests/Fixtures/sklearn/pins.json: per case the arguments, the count of each
(y_true, y_pred) pair (the predictions' fingerprint: no text, no id) and scikit-learn's figures.
SMSFilterCLITests.ScikitLearnPinTests replays each case without scikit-learn: when the pairs are the pinned
ones, evaluate's figures must be scikit-learn's. Re-run with --write when the default rules or model change
what they predict (the test says which case).

With --unit, prints scikit-learn's figures on the fixed sequences of BatchPipelineTests.ScikitLearnScoreTests.

usage: pin-sklearn-f1.py [--binary BIN] [--corpora DIR] [--write] [--unit]
needs: scikit-learn (pip install scikit-learn), zstd
"""
import argparse, collections, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PINS = os.path.join(ROOT, "Tests/Fixtures/sklearn/pins.json")
USER_RULES = "Tests/Fixtures/sklearn/thai-user-rules.yaml"
INDIA_OTHER = ["General", "Info", "Income", "Utilities", "Food", "Transfer", "Request", "Other", "Travel", "Refund", "Shopping"]

# (name, corpus file, evaluate arguments). Rules: the default (rules + model), the embedded rules alone, and a
# user's fixed rule file (its predictions stay fixed whatever the defaults become).
MAPS = [
    ("uci", "uci_sms_spam.jsonl.zst", ["--map", "spam=junk|promotion,ham=other"]),
    ("uci-ignore-case", "uci_sms_spam.jsonl.zst", ["--map", "SPAM=junk|promotion,Ham=other", "--ignore-case"]),
    ("thai", "thai_sms.jsonl.zst", ["--map", "OTP=transaction,scam=junk,spam=promotion,OK=other"]),
    ("thai-lists", "thai_sms.jsonl.zst", ["--map", "OTP=transaction,scam=junk|promotion,spam=promotion|junk,OK=other"]),
    ("india", "india_bank_sms.jsonl.zst", ["--map", "SPAM=junk|promotion,OTP=transaction," + ",".join(l + "=transaction" for l in INDIA_OTHER)]),
    ("india-folders", "india_bank_sms.jsonl.zst",
     ["--map", "SPAM=junk|promotion,OTP=Transactions/Others|Transactions/Finance,"
      + ",".join(l + "=Transactions/Finance" for l in ["Income", "Utilities", "Food", "Transfer", "Refund", "Shopping", "Travel"])
      + ",General=transaction,Info=transaction,Request=transaction,Other=other"]),
    ("mudou", "mudou_spam_zh.jsonl.zst", ["--map", "1=junk|promotion,0=other"]),
    ("nus", "nus_sms_zh.jsonl.zst", ["--truth-field", "lang", "--map", "zh=other"]),
]
RULES = [("default", []), ("embedded:rules", ["--rules", "embedded:rules"])]
CASES = [(f"{name} / {rules}", corpus, args + extra, rules) for name, corpus, args in MAPS for rules, extra in RULES]
CASES += [("thai-lists / user rules", "thai_sms.jsonl.zst", MAPS[3][2] + ["--rules", USER_RULES], "user rules"),
          ("uci / user rules", "uci_sms_spam.jsonl.zst", MAPS[0][2] + ["--rules", USER_RULES], "user rules")]

UNIT = {
    "A": (["spam", "spam", "spam", "ham", "ham", "ham", "ham", "OK", "OK"], ["spam", "ham", "transaction", "ham", "ham", "spam", "promo", "OK", "ham"]),
    "B": (["a", "a", "b", "b", "c"], ["a", "b", "b", "b", "a"]),
    "hand": (["junk"] * 3 + ["none"] * 4, ["junk", "promotion", "junk", "transaction", "none", "transaction", "none"]),
    "list": (["junk|promotion"] * 3 + ["none"] * 4, ["junk|promotion"] * 3 + ["transaction", "none", "transaction", "none"]),
}


def sklearn_figures(y_true, y_pred):
    from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support
    labels = sorted(set(y_true) | set(y_pred))
    _, _, f1, support = precision_recall_fscore_support(y_true, y_pred, labels=labels, zero_division=0)
    return {
        "macroF1": float(f1_score(y_true, y_pred, average="macro", zero_division=0)),
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "f1": {l: float(f) for l, f in zip(labels, f1)},
    }


def default_binary():
    for b in ("debug", "release"):
        path = os.path.join(ROOT, ".build", b, "smsfilter")
        if os.path.exists(path):
            return path
    sys.exit("pin-sklearn-f1: no built smsfilter: run `swift build` (or pass --binary)")


def run_case(binary, corpora, name, corpus, args):
    path = os.path.join(corpora, corpus)
    with tempfile.TemporaryDirectory(prefix="smsfilter-pins-") as work:
        predictions = os.path.join(work, "predictions.jsonl")
        command = [binary, "evaluate", path, *args, "--predictions", predictions, "--json-file", "-", "--quiet"]
        r = subprocess.run(command, capture_output=True, cwd=ROOT)
        if r.returncode != 0:
            sys.exit(f"pin-sklearn-f1: {name}: {' '.join(command)} failed ({r.returncode}): {r.stderr.decode(errors='replace')[-2000:]}")
        report = json.loads(r.stdout)
        y_true, y_pred = [], []
        with open(predictions, encoding="utf-8") as f:
            for line in f:
                o = json.loads(line)
                y_true.append(o["y_true"])
                y_pred.append(o["y_pred"])
    assert len(y_true) == report["scored"], (name, len(y_true), report["scored"])
    pairs = collections.Counter(f"{t}\t{p}" for t, p in zip(y_true, y_pred))
    return report, y_true, y_pred, dict(sorted(pairs.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=None)
    ap.add_argument("--corpora", default=os.path.join(os.path.dirname(ROOT), "shared/corpora"))
    ap.add_argument("--write", action="store_true", help="store the pins in " + os.path.relpath(PINS, ROOT))
    ap.add_argument("--unit", action="store_true", help="print the pins of the fixed sequences")
    a = ap.parse_args()
    import sklearn
    if a.unit:
        for name, (t, p) in UNIT.items():
            print(name, json.dumps(sklearn_figures(t, p)))
        return 0
    binary = a.binary or default_binary()
    pins, bad = [], 0
    print(f"scikit-learn {sklearn.__version__}; {binary}\n")
    print("| corpus | map (below) | rules | scored | evaluate macro F1 | scikit-learn macro F1 | equal to 4 decimals |")
    print("|---|---|---|---:|---:|---:|---|")
    for name, corpus, args, rules in CASES:
        if not os.path.exists(os.path.join(a.corpora, corpus)):
            print(f"| {corpus} | {name} | {rules} | missing | | | |")
            continue
        report, y_true, y_pred, pairs = run_case(binary, a.corpora, name, corpus, args)
        figures = sklearn_figures(y_true, y_pred)
        ours = report["macroF1"]
        equal = round(figures["macroF1"], 4) == ours and round(figures["accuracy"], 4) == report["accuracy"]
        equal = equal and all(round(f, 4) == report["classes"][c]["f1"] for c, f in figures["f1"].items())
        bad += not equal
        print(f"| {corpus.split('.')[0]} | {name.split(' / ')[0]} | {rules} | {report['scored']} | {ours:.4f} | {figures['macroF1']:.6f} | {'yes' if equal else '**NO**'} |")
        pins.append({"name": name, "corpus": corpus, "arguments": args, "fixedRules": rules == "user rules", "scored": report["scored"],
                     "pairs": pairs, "sklearn": figures})
    print()
    for name, _, args in MAPS:
        print(f"- {name}: `{' '.join(args)}`")
    if a.write:
        document = {
            "about": "scikit-learn's figures on evaluate's y_true/y_pred for fixed predictions of the real corpora; made by "
                     "Scripts/pin-sklearn-f1.py --write, replayed by SMSFilterCLITests.ScikitLearnPinTests. pairs: records per "
                     "y_true<TAB>y_pred (the predictions the figures belong to).",
            "sklearn": sklearn.__version__,
            "cases": pins,
        }
        with open(PINS, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=1, ensure_ascii=False, sort_keys=False)
            f.write("\n")
        print(f"\nwrote {os.path.relpath(PINS, ROOT)} ({len(pins)} cases)")
    if bad:
        print(f"\n{bad} case(s) differ from scikit-learn", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
