#!/usr/bin/env python3
"""`make quality`: the default (rules + model), the rules alone and the model alone on every corpus of
Scripts/quality-corpora.json found in the corpora folder, as one Markdown table (docs/QUALITY.md, "Held-out
quality"). Evaluation-only corpora are classified whole; training corpora (the default model learned from
them) are cross-validated for the default and the model: `smsfilter learn --cv 5` with the default model's
recipe (Scripts/make-default-model.sh), with and without the default rules. The rules alone learn nothing, so
they are scored on every message. Bodies are never printed.

Then the market test sets of Tests/Fixtures/markets (issue 34: hand-written Japanese, Korean, Chinese and Indian
messages with the folder each belongs in) as a second table: the share in the right folder per market, with the
default and with the rules alone (personal chat labelled Inbox counts as right in Unknown Senders too), and
Tests/Fixtures/chat/links.jsonl (hand-written personal chat with links: the share left unfiltered).

usage: quality.py [--binary BIN] [--corpora DIR] [--json FILE] [--write-doc]
"""
import argparse, collections, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [("default", None), ("rules alone", "embedded:rules"), ("model alone", os.path.join(ROOT, "samples/default-model.yaml"))]


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit(f"quality: {' '.join(args)} failed ({r.returncode}): {r.stderr.decode(errors='replace')[-2000:]}")
    return r.stdout


def labels_of(path):
    out = []
    for line in run(["zstd", "-dcq", path]).decode().splitlines():
        label = json.loads(line).get("label")
        out.append(label if label is not None else "(none)")
    return out


def classified(binary, rules, path):
    """Confusion truth label → folder of `classify` over the whole corpus."""
    args = [binary, "classify", "--labels-only", "--quiet", "-o", "-", path]
    if rules:
        args[2:2] = ["--rules", rules]
    folders = [json.loads(l)["filter"]["folder"] for l in run(args).decode().splitlines()]
    labels = labels_of(path)
    assert len(folders) == len(labels), (path, len(folders), len(labels))
    confusion = collections.defaultdict(collections.Counter)
    for label, folder in zip(labels, folders):
        confusion[label][folder] += 1
    return confusion


def recipe():
    """The default model's options, read from Scripts/make-default-model.sh (said once, there)."""
    text = open(os.path.join(ROOT, "Scripts/make-default-model.sh")).read()
    values = dict(re.findall(r"^(PRIORITY|PRECISION|MIN_SCRIPT|MIN_OVERRULES)=(\S+)", text, re.M))
    return ["--priority", values["PRIORITY"], "--precision-target", values["PRECISION"], "--min-script-messages", values["MIN_SCRIPT"],
            "--min-overrules", values["MIN_OVERRULES"]] + (["--links", "company"] if "--links company" in text else [])


def cross_validated(binary, corpora, training, rules):
    """Confusion per training corpus from `learn --cv 5` with the default model's recipe."""
    with tempfile.TemporaryDirectory(prefix="smsfilter-quality-") as work:
        inputs = []
        for c in training:
            path = os.path.join(corpora, c["file"])
            if c["file"].startswith("thai_sms"):
                # As Scripts/make-default-model.sh: Thai "spam" (promotions) is "thai spam" for the map.
                renamed = os.path.join(work, "thai_sms.jsonl")
                with open(renamed, "w") as f:
                    for line in run(["zstd", "-dcq", path]).decode().splitlines(keepends=True):
                        f.write(line.replace('"label": "spam", "lang": "th"}', '"label": "thai spam", "lang": "th"}'))
                path = renamed
            inputs.append(path)
        args = [binary, "learn", "--quiet", "--json", "--cv", "5", "--map-file", os.path.join(ROOT, "samples/default-model-map.json"),
                "--model-name", "default-model"] + recipe() + inputs
        if rules:
            args[2:2] = ["--rules", rules]
        report = json.loads(run(args))
    by_input = report["crossValidation"].get("byInput") or [{"input": os.path.basename(inputs[0]), "confusion": report["crossValidation"]["confusion"]}]
    out = {}
    for c, entry in zip(training, by_input):
        confusion = collections.defaultdict(collections.Counter)
        for label, folders in entry["confusion"].items():
            label = "spam" if label == "thai spam" else label
            for folder, n in folders.items():
                confusion[label][folder] += n
        out[c["file"]] = confusion
    return out


def filtered(folder):
    return folder == "Junk" or folder.startswith("Promotions")


def unfiltered(folder):
    return folder in ("Inbox", "Unknown Senders")


def figures(c, confusion):
    """The figures of one corpus under one configuration."""
    f = {}
    spam = set(c.get("spam", []))
    legit = c.get("legit", [])
    everything = [(label, folder, n) for label, row in confusion.items() for folder, n in row.items()]
    if spam:
        tp = sum(n for label, folder, n in everything if label in spam and filtered(folder))
        predicted = sum(n for label, folder, n in everything if filtered(folder))
        positives = sum(n for label, folder, n in everything if label in spam)
        p = tp / predicted if predicted else 0.0
        r = tp / positives if positives else 0.0
        f.update(spamPrecision=p, spamRecall=r, spamF1=2 * p * r / (p + r) if p + r else 0.0, filtered=predicted, spam=positives)
    if legit:
        rows = [(label, folder, n) for label, folder, n in everything if "*" in legit or label in legit]
        total = sum(n for _, _, n in rows)
        f["legitUnfiltered"] = sum(n for _, folder, n in rows if unfiltered(folder)) / total
        f["legitNotFiltered"] = sum(n for _, folder, n in rows if not filtered(folder)) / total
        f["legit"] = total
    if c.get("otp"):
        rows = [(folder, n) for label, folder, n in everything if label in c["otp"]]
        f["otpInTransactions"] = sum(n for folder, n in rows if folder.startswith("Transactions")) / sum(n for _, n in rows)
    if c.get("alerts"):
        rows = [(folder, n) for label, folder, n in everything if label not in spam]
        f["alerts"] = sum(n for _, n in rows)
        f["alertsInTransactions"] = sum(n for folder, n in rows if folder.startswith("Transactions"))
        f["alertsInFinance"] = sum(n for folder, n in rows if folder == "Transactions/Finance")
        f["alertsInJunk"] = sum(n for folder, n in rows if folder == "Junk")
    return f


def table(results, corpora_meta):
    def pct(x):
        return "" if x is None else f"{100 * x:.1f}%"

    def num(x):
        return "" if x is None else f"{x:.3f}"

    lines = ["| corpus | configuration | spam P | spam R | spam F1 | legit left unfiltered (Inbox/Unknown) | legit kept out of Junk/Promotions | OTP in Transactions | alerts in Transactions | alerts in Transactions/Finance | alerts in Junk |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in corpora_meta:
        for name, _ in CONFIGS:
            f = results[c["file"]][name]
            how = " (5-fold CV)" if c["role"] == "training" and name != "rules alone" else ""
            lines.append(f"| {c['name']} ({c['role']}) | {name}{how} | {num(f.get('spamPrecision'))} | {num(f.get('spamRecall'))} | "
                         f"{num(f.get('spamF1'))} | {pct(f.get('legitUnfiltered'))} | {pct(f.get('legitNotFiltered'))} | "
                         f"{pct(f.get('otpInTransactions'))} | {f.get('alertsInTransactions', '')} | {f.get('alertsInFinance', '')} | {f.get('alertsInJunk', '')} |")
    return "\n".join(lines) + "\n"


MARKETS = [("ja", "Japanese"), ("ko", "Korean"), ("zh", "Chinese"), ("in", "Indian English/Hindi")]


def market_accuracy(binary, rules, path):
    """(right, total, per-folder misses) of `classify` over one market test set."""
    args = [binary, "classify", "--labels-only", "--quiet", "-o", "-", path]
    if rules:
        args[2:2] = ["--rules", rules]
    folders = [json.loads(l)["filter"]["folder"] for l in run(args).decode().splitlines()]
    wants = [json.loads(l)["folder"] for l in open(path, encoding="utf-8")]
    assert len(folders) == len(wants), (path, len(folders), len(wants))
    right = sum(1 for got, want in zip(folders, wants) if got == want or (want == "Inbox" and got == "Unknown Senders"))
    return right, len(wants)


def market_table(binary):
    lines = ["| market | messages | default | rules alone |", "|---|---:|---:|---:|"]
    totals = {"default": [0, 0], "rules alone": [0, 0]}
    figures = {}
    for code, name in MARKETS:
        path = os.path.join(ROOT, "Tests/Fixtures/markets", code + ".jsonl")
        if not os.path.exists(path):
            continue
        row = {}
        for config, rules in CONFIGS[:2]:
            right, total = market_accuracy(binary, rules, path)
            row[config] = (right, total)
            totals[config][0] += right
            totals[config][1] += total
        figures[code] = {k: v[0] / v[1] for k, v in row.items()}
        n = row["default"][1]
        lines.append(f"| {name} (`{code}`) | {n} | {100 * row['default'][0] / n:.1f}% ({row['default'][0]}) | "
                     f"{100 * row['rules alone'][0] / n:.1f}% ({row['rules alone'][0]}) |")
    if totals["default"][1]:
        d, r = totals["default"], totals["rules alone"]
        lines.append(f"| all four | {d[1]} | {100 * d[0] / d[1]:.1f}% ({d[0]}) | {100 * r[0] / r[1]:.1f}% ({r[0]}) |")
    # Issue 34 item 3: personal chat with links, as its own row (the share left unfiltered, and filtered).
    path = os.path.join(ROOT, "Tests/Fixtures/chat/links.jsonl")
    if os.path.exists(path):
        row = {}
        for config, rules in CONFIGS[:2]:
            args = [binary, "classify", "--labels-only", "--quiet", "-o", "-", path]
            if rules:
                args[2:2] = ["--rules", rules]
            folders = [json.loads(l)["filter"]["folder"] for l in run(args).decode().splitlines()]
            row[config] = (sum(1 for f in folders if not filtered(f)), sum(1 for f in folders if filtered(f)), len(folders))
        figures["chat-links"] = {k: {"unfiltered": v[0] / v[2], "filtered": v[1] / v[2]} for k, v in row.items()}
        n = row["default"][2]
        cell = lambda v: f"{100 * v[0] / n:.1f}% ({v[0]}; filtered {100 * v[1] / n:.1f}%, {v[1]})"
        lines.append(f"| personal chat with links (`chat/links`; left unfiltered) | {n} | {cell(row['default'])} | {cell(row['rules alone'])} |")
    return "\n".join(lines) + "\n", figures


def replace_between(doc, start, end, text):
    if start not in doc or end not in doc:
        sys.exit(f"quality: docs/QUALITY.md has no {start.strip()} markers")
    head, rest = doc.split(start, 1)
    _, tail = rest.split(end, 1)
    return head + start + text + end + tail


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/smsfilter"))
    ap.add_argument("--corpora", default=os.environ.get("SMSFILTER_CORPORA", os.path.join(ROOT, "../shared/corpora")))
    ap.add_argument("--json", help="also write the figures as JSON to this file")
    ap.add_argument("--write-doc", action="store_true", help="replace the table in docs/QUALITY.md")
    a = ap.parse_args()
    meta = json.load(open(os.path.join(ROOT, "Scripts/quality-corpora.json")))["corpora"]
    present = [c for c in meta if os.path.exists(os.path.join(a.corpora, c["file"]))]
    if not present:
        sys.exit(f"quality: no corpus of Scripts/quality-corpora.json in {a.corpora}")
    results = {c["file"]: {} for c in present}
    training = [c for c in present if c["role"] == "training"]
    for name, rules in CONFIGS:
        for c in present:
            if c["role"] == "evaluation" or name == "rules alone":
                results[c["file"]][name] = figures(c, classified(a.binary, rules, os.path.join(a.corpora, c["file"])))
        if training and name != "rules alone":
            base = os.path.join(ROOT, "samples/default-rules.yaml") if name == "default" else None
            for file, confusion in cross_validated(a.binary, a.corpora, training, base).items():
                c = next(c for c in training if c["file"] == file)
                results[file][name] = figures(c, confusion)
    text = table(results, present)
    print(text, end="")
    markets, market_figures = market_table(a.binary)
    print("\nMarkets (Tests/Fixtures/markets: share of hand-written messages in the right folder)\n")
    print(markets, end="")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(results, markets=market_figures), f, indent=1, sort_keys=True)
    if a.write_doc:
        path = os.path.join(ROOT, "docs/QUALITY.md")
        doc = open(path).read()
        doc = replace_between(doc, "<!-- quality table: make quality -->\n", "<!-- end of quality table -->\n", text)
        doc = replace_between(doc, "<!-- markets table: make quality -->\n", "<!-- end of markets table -->\n", markets)
        open(path, "w").write(doc)


if __name__ == "__main__":
    main()
