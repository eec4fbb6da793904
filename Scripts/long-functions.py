#!/usr/bin/env python3
"""Hand-written functions over a line budget, per module (issue 25: no function a screen can't hold).

A function is a `func`, `init`, `deinit` or `subscript` with a body; its length is the lines from its
declaration to its closing brace, both included (a nested function counts inside its parent too).
Comments and string literals are stripped before braces are counted (as Scripts/lib/swift-code.awk does).

Left out, as not hand-written logic: generated files (the embedded rule set and model, the normalisation
tables), templates (functions whose lines are mostly inside a multi-line string literal: the iOS
extension's source files in ExtensionTemplates) and tables (functions most of whose lines hold a string
literal: the generator's templates per category, the HTML report's page). `--all` lists them too, marked.

    python3 Scripts/long-functions.py                 every module under Sources: the long functions, then a
                                                      summary line per module (count, longest)
    python3 Scripts/long-functions.py --limit 60      another budget (default 80)
    python3 Scripts/long-functions.py --summary       only the summary lines
    python3 Scripts/long-functions.py --all           the templates and tables over the budget too, marked
    python3 Scripts/long-functions.py PATH...         only these files or folders

Exit status 0 always: a report, not a check.
"""
import os
import re
import sys

GENERATED = re.compile(r"(\+Embedded\.swift|/_NormalizationTables\.swift)$")
DECL = re.compile(
    r"^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*"
    r"((public|internal|fileprivate|private|package|open|final|static|class|override|mutating|nonmutating|"
    r"nonisolated|convenience|required|dynamic|@inlinable|@usableFromInline|consuming|borrowing)\s+)*"
    r"(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\s*[(<{]?")
CONTINUES = ("{", "->", "throws", "rethrows", "async", "where", ")", ".")


def code_lines(text):
    """Each line as (code without comments and string contents, whether the line is inside a multi-line
    string for most of its length)."""
    out = []
    in_block = in_string = multi = False
    for line in text.split("\n"):
        code = []
        started_in_multi = in_string and multi
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if in_block:
                if line.startswith("*/", i):
                    in_block = False
                    i += 1
                i += 1
                continue
            if in_string:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith('"""', i):
                    if multi:
                        in_string = multi = False
                        i += 3
                        continue
                elif c == '"' and not multi:
                    in_string = False
                    code.append('""')
                i += 1
                continue
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                in_block = True
                i += 2
                continue
            if line.startswith('"""', i):
                in_string = multi = True
                i += 3
                continue
            if c == '"':
                in_string = True
                i += 1
                continue
            code.append(c)
            i += 1
        if in_string and not multi:
            in_string = False
        out.append(("".join(code), started_in_multi and in_string and multi))
    return out


def functions(path):
    """(name, first line, length, template?) of every function with a body in the file."""
    with open(path, encoding="utf-8") as f:
        lines = code_lines(f.read())
    found = []
    for start, (code, _) in enumerate(lines):
        m = DECL.match(code)
        if not m:
            continue
        name = m.group(5).split()[-1] if m.group(5).startswith("func") else m.group(5).rstrip("?!")
        # Find the body's `{` (the signature may span lines); none: a requirement or a declaration only.
        depth = 0
        body = None
        row, col = start, m.end(5)
        while row < len(lines) and body is None:
            text = lines[row][0]
            while col < len(text):
                ch = text[col]
                if ch in "([":
                    depth += 1
                elif ch in ")]":
                    depth -= 1
                elif ch == "{" and depth <= 0:
                    body = (row, col)
                    break
                col += 1
            if body is None:
                row, col = row + 1, 0
                if depth <= 0:
                    nxt = lines[row][0].strip() if row < len(lines) else ""
                    if not nxt.startswith(CONTINUES):
                        break
        if body is None:
            continue
        # Match the braces.
        depth = 0
        row, col = body
        end = None
        while row < len(lines) and end is None:
            text = lines[row][0]
            while col < len(text):
                if text[col] == "{":
                    depth += 1
                elif text[col] == "}":
                    depth -= 1
                    if depth == 0:
                        end = row
                        break
                col += 1
            row, col = row + 1, 0
        if end is None:
            continue
        length = end - start + 1
        in_template = sum(1 for r in range(start, end + 1) if lines[r][1] or '""' in lines[r][0])
        found.append((name, start + 1, length, in_template * 2 > length))
    return found


def main(argv):
    limit = 80
    summary_only = False
    show_all = False
    paths = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--limit":
            limit = int(args.pop(0))
        elif a == "--summary":
            summary_only = True
        elif a == "--all":
            show_all = True
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            paths.append(a)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    if not paths:
        paths = ["Sources"]
    files = []
    for p in paths:
        if os.path.isdir(p):
            for d, _, names in os.walk(p):
                files += [os.path.join(d, n) for n in names if n.endswith(".swift")]
        else:
            files.append(p)
    per_module = {}
    rows = []
    for path in sorted(files):
        if GENERATED.search(path):
            continue
        parts = path.split(os.sep)
        module = parts[parts.index("Sources") + 1] if "Sources" in parts else parts[0]
        stats = per_module.setdefault(module, [0, 0, ""])
        for name, line, length, template in functions(path):
            if template:
                if show_all and length > limit:
                    rows.append((module, length, f"{path}:{line}", name + " (template or table)"))
                continue
            if length > stats[1]:
                stats[1], stats[2] = length, f"{name} ({path}:{line})"
            if length > limit:
                stats[0] += 1
                rows.append((module, length, f"{path}:{line}", name))
    if not summary_only:
        for module, length, where, name in sorted(rows, key=lambda r: (r[0], -r[1])):
            print(f"{module}\t{length}\t{where}\t{name}")
    for module in sorted(per_module):
        count, longest, where = per_module[module]
        print(f"{module}: {count} function(s) over {limit} lines; longest {longest}: {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
