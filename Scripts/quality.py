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

Then the learner beside its peers (issue 32 item 5; docs/QUALITY.md, "The learner beside its peers"): on every
corpus of the "learner" list of Scripts/quality-corpora.json, `smsfilter learn --cv 5 --folds-file` at default
options, and scikit-learn's TF-IDF + LinearSVC and fastText on the same folds when they are importable (`make
peers-quality` installs them; here they are skipped with a message): spam precision, recall and F1, training
and prediction CPU seconds per 100k messages, model size.

usage: quality.py [--binary BIN] [--corpora DIR] [--json FILE] [--write-doc] [--learner-only | --no-learner]
"""
import argparse, collections, datetime, json, os, platform, re, resource, statistics, subprocess, sys, tempfile

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


# --- The learner beside its peers ----------------------------------------------------------------------------

PEERS = os.path.join(ROOT, "Benchmarks/peers")
# The peers' recipes (docs/QUALITY.md, "The learner's defaults"; issue 32): what each script is given.
SVM_ARGS = ["--words", "1-2", "--chars", "1-4"]
FASTTEXT_ARGS = ["--minn", "2", "--maxn", "4"]  # with quality_fasttext.py's epoch 25, lr 0.5, wordNgrams 2, thread 1
LEARNER_MARKERS = ("<!-- learner table: make quality -->\n", "<!-- end of learner table -->\n")


def cpu_seconds(args):
    """Runs args; the CPU seconds (user + system) of the child and everything it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run(args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def importable(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def spam_scores(confusion, mapping):
    """Spam (truth mapped to junk or promotion) against the folders learn's cross-validation filed each label
    in (Junk or Promotions = spam)."""
    tp = fp = fn = 0
    for label, row in confusion.items():
        spam = mapping.get(label) in ("junk", "promotion")
        for folder, n in row.items():
            if filtered(folder):
                tp, fp = (tp + n, fp) if spam else (tp, fp + n)
            elif spam:
                fn += n
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0, "support": tp + fn}


def repeated(path, n, out):
    """The corpus's lines repeated (in order) to exactly n lines, written to out."""
    lines = run(["zstd", "-dcq", path]).decode().splitlines(keepends=True)
    with open(out, "w") as f:
        for i in range(n):
            f.write(lines[i % len(lines)])
    return len(lines)


def learner_figures(binary, corpora, entry, work, peers):
    """One corpus of the learner table: learn, and each peer present, on the same 5 folds."""
    corpus = os.path.join(corpora, entry["file"])
    mapping = dict(item.split("=", 1) for item in entry["map"].split(","))
    tag = re.sub(r"[^a-z0-9]+", "-", entry["name"].lower()).strip("-")
    folds = os.path.join(work, tag + "-folds.jsonl")
    report = json.loads(run([binary, "learn", "--quiet", "--json", "--cv", "5", "--map", entry["map"], "--folds-file", folds, corpus]))
    cv = report["crossValidation"]
    confusion = cv.get("confusion") or cv["byInput"][0]["confusion"]
    learn = dict(spam_scores(confusion, mapping), macroF1=cv["macroF1"])
    # Training: the whole corpus, the model written, at default options (median of 3); prediction: `classify
    # --threads 1 --labels-only` with the compiled model of the corpus repeated to 100,000 messages (process
    # start, load, reading and writing included; median of 3). Both CPU seconds of the child (user + system).
    model, smsf = os.path.join(work, tag + ".yaml"), os.path.join(work, tag + ".smsf")
    train = statistics.median(cpu_seconds([binary, "learn", "-q", "-f", "--map", entry["map"], "-o", model, corpus]) for _ in range(3))
    run([binary, "compile", "--quiet", "-f", model, "-o", smsf])
    big = os.path.join(work, tag + "-100k.jsonl")
    messages = repeated(corpus, 100_000, big)
    predict = statistics.median(cpu_seconds([binary, "classify", "--threads", "1", "--quiet", "--labels-only", "--rules", smsf, big, "-o", os.devnull])
                                for _ in range(3))
    learn.update(trainSecondsPer100k=train / messages * 1e5, predictSecondsPer100k=predict, modelBytes=os.path.getsize(smsf))
    # The size goal is on 100k messages: learn again on the corpus repeated to 100,000 (once).
    model100k, smsf100k = os.path.join(work, tag + "-100k.yaml"), os.path.join(work, tag + "-100k.smsf")
    learn["trainSeconds100k"] = cpu_seconds([binary, "learn", "-q", "-f", "--map", entry["map"], "-o", model100k, big])
    run([binary, "compile", "--quiet", "-f", model100k, "-o", smsf100k])
    learn["modelBytes100k"] = os.path.getsize(smsf100k)
    os.remove(big)
    out = {"messages": messages, "map": entry["map"], "learn": learn}
    for name, script, extra in peers:
        path = os.path.join(work, f"{tag}-{name}.json")
        run([sys.executable, os.path.join(PEERS, script), corpus, folds, entry["map"], "--json", path] + extra, cwd=PEERS)
        peer = json.load(open(path))
        out[name] = dict(peer["spam"], macroF1=peer["macroF1"], trainSecondsPer100k=peer["fitSecondsPer100k"],
                         predictSecondsPer100k=peer["predictSecondsPer100k"], modelBytes=peer["modelBytes"])
    return out


def size(n):
    return f"{n / 1e6:.2f} MB" if n >= 1e5 else f"{n / 1e3:.0f} kB"


def learner_table(results, skipped):
    names = {"learn": "`learn` (default options)", "svm": "LinearSVC (TF-IDF word 1–2 + char 1–4)",
             "fasttext": "fastText (epoch 25, wordNgrams 2, minn 2, maxn 4)"}
    sizes = {"learn": "`.smsf`, whole corpus", "svm": "pickled, fold 5's", "fasttext": "`.bin`, fold 5's"}
    lines = []
    for name, r in results.items():
        lines += [f"**{name}** (`{r['map']}`, {r['messages']:,} messages)", "",
                  "| learner | spam P | spam R | spam F1 | macro F1 | train s per 100k | predict s per 100k | model size |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for key in ("learn", "svm", "fasttext"):
            if key in r:
                f = r[key]
                lines.append(f"| {names[key]} | {f['precision']:.4f} | {f['recall']:.4f} | **{f['f1']:.4f}** | {f['macroF1']:.4f} | "
                             f"{f['trainSecondsPer100k']:.1f} | {f['predictSecondsPer100k']:.2f} | {size(f['modelBytes'])} ({sizes[key]}) |")
        lines.append("")
    if skipped:
        lines += [f"Not measured here: {', '.join(skipped)} (`make peers-quality` installs them).", ""]
    lines += ["Issue 32's goals:", ""]
    for name, r in results.items():
        l = r["learn"]
        bits = []
        peers = [(r[k]["f1"], k) for k in ("svm", "fasttext") if k in r]
        if peers:
            best, which = max(peers)
            gap = l["f1"] - best
            signed = f"{gap:+.4f}".replace("-", "−")
            bits.append(f"F1 {l['f1']:.4f} vs best peer {best:.4f} ({'LinearSVC' if which == 'svm' else 'fastText'}): "
                        f"{signed}, goal ≥ −0.005 **{'met' if gap >= -0.005 else 'missed'}**")
        if "fasttext" in r:
            ratio = l["trainSecondsPer100k"] / r["fasttext"]["trainSecondsPer100k"]
            bits.append(f"training {ratio:.2f}× fastText's, goal ≤ 0.5× **{'met' if ratio <= 0.5 else 'missed'}**")
        mb = l["modelBytes100k"] / 1e6
        bits.append(f"`.smsf` learned from 100k messages (the corpus repeated) {mb:.2f} MB in {l['trainSeconds100k']:.1f} s, "
                    f"goal ≤ 1 MB **{'met' if mb <= 1 else 'missed'}**")
        lines.append(f"- {name}: " + "; ".join(bits))
    return "\n".join(lines) + "\n"


def learner_section(binary, corpora):
    config = json.load(open(os.path.join(ROOT, "Scripts/quality-corpora.json")))["learner"]
    present = [e for e in config["corpora"] if os.path.exists(os.path.join(corpora, e["file"]))]
    if not present:
        print(f"quality: no corpus of the learner list in {corpora}: the learner table is skipped", file=sys.stderr)
        return None, None
    peers, skipped = [], []
    for name, module, script, extra, label in (("svm", "sklearn", "quality_svm.py", SVM_ARGS, "LinearSVC (scikit-learn)"),
                                               ("fasttext", "fasttext", "quality_fasttext.py", FASTTEXT_ARGS, "fastText (fasttext-wheel)")):
        if importable(module) and importable("numpy"):
            peers.append((name, script, extra))
        else:
            skipped.append(label)
            print(f"quality: {label} is not installed: skipped in the learner table (make peers-quality installs it)", file=sys.stderr)
    results = {}
    with tempfile.TemporaryDirectory(prefix="smsfilter-learner-") as work:
        for e in present:
            print(f"quality: learner table: {e['name']}", file=sys.stderr)
            results[e["name"]] = learner_figures(binary, corpora, e, work, peers)
    versions = {}
    for name, module in (("scikit-learn", "sklearn"), ("fasttext", "fasttext")):
        if any(p[0] == ("svm" if module == "sklearn" else "fasttext") for p in peers):
            v = subprocess.run([sys.executable, "-c", f"import importlib.metadata as m; print(m.version({'scikit-learn' if module == 'sklearn' else 'fasttext-wheel'!r}))"],
                               capture_output=True, text=True).stdout.strip()
            versions[name] = v or "?"
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()[0]
    head = (f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `Scripts/quality.py` (`make quality`, its learner section), "
            f"binary of {commit or '?'} (release), {platform.machine()} with {os.cpu_count()} cores, load {load:.1f} at the end; "
            + (", ".join(f"{k} {v}" for k, v in versions.items()) or "no peers") + ".\n\n")
    return head + learner_table(results, skipped), results


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
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--learner-only", action="store_true", help="only the learner beside its peers")
    which.add_argument("--no-learner", action="store_true", help="everything but the learner beside its peers")
    a = ap.parse_args()
    if not a.learner_only:
        default_tables(a)
    if not a.no_learner:
        text, results = learner_section(a.binary, a.corpora)
        if text is None:
            return
        print("\nThe learner beside its peers (5-fold CV on the same folds; spam = junk or promotion)\n")
        print(text, end="")
        if a.json:
            path = a.json if a.learner_only else re.sub(r"(\.json)?$", "-learner.json", a.json, count=1)
            with open(path, "w") as f:
                json.dump(results, f, indent=1, sort_keys=True)
        if a.write_doc:
            path = os.path.join(ROOT, "docs/QUALITY.md")
            doc = replace_between(open(path).read(), *LEARNER_MARKERS, text)
            open(path, "w").write(doc)


def default_tables(a):
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
