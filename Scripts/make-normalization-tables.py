#!/usr/bin/env python3
"""Generates Sources/MessageFilter/Text/_NormalizationTables.swift, the tables of `normalize: standard`.

Sources (see Sources/MessageFilter/Text/NOTICE.md for the licences):
  * compatibility forms: Python's `unicodedata` (the Unicode Character Database of this Python's Unicode
    version): every scalar whose NFKC form differs from its NFC form (fullwidth and halfwidth forms,
    ligatures, circled and mathematical letters, superscripts, compatibility spaces…) or whose NFC form is
    one other scalar (singletons such as the Kelvin and Ohm signs) maps to its NFKC form;
  * invisible controls: Default_Ignorable_Code_Point (DerivedCoreProperties.txt), listed below; removed;
  * confusables: Unicode's confusables.txt as carried by PyPI's `confusable-homoglyphs` package
    (`pip install confusable-homoglyphs`): every Latin, Greek or Cyrillic letter outside ASCII that is a
    look-alike of an ASCII letter maps to that letter, keeping case where the data allows.

Run: python3 Scripts/make-normalization-tables.py > Sources/MessageFilter/Text/_NormalizationTables.swift
"""
import json, os, re, sys, unicodedata
import confusable_homoglyphs
from confusable_homoglyphs import categories

# Default_Ignorable_Code_Point, Unicode 15 (DerivedCoreProperties.txt) — the invisible characters spam uses
# to split words. The Hangul fillers U+115F/U+1160/U+3164/U+FFA0 are in it too (NFKC maps U+3164 and U+FFA0
# to U+1160, which is just as invisible: issue 21 put U+3164 inside "lottery").
IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
             (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
             (0xFFA0, 0xFFA0), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF)]

def ignorable(cp):
    return any(a <= cp <= b for a, b in IGNORABLE)

def is_surrogate(cp):
    return 0xD800 <= cp <= 0xDFFF

compat = {}
for cp in range(0x80, 0x110000):
    if is_surrogate(cp):
        continue
    ch = chr(cp)
    if ignorable(cp):
        compat[cp] = ""
        continue
    nfkc = unicodedata.normalize("NFKC", ch)
    nfc = unicodedata.normalize("NFC", ch)
    if nfkc == ch:
        continue
    if nfkc != nfc or len(nfc) == 1:
        # Drop invisible scalars that a decomposition may carry.
        compat[cp] = "".join(c for c in nfkc if not ignorable(ord(c)))

data_dir = os.path.dirname(confusable_homoglyphs.__file__)
confusables = json.load(open(os.path.join(data_dir, "confusables.json"), encoding="utf-8"))
# `standard` reads look-alikes of the scripts spam borrows letters from: Latin, Greek, Cyrillic, and
# Cherokee and Lisu (whose letters are nearly all Latin capitals: ꓡꓳꓔꓔꓰꓣꓬ, ᏞᎾᏆᏆᎬᎡᎽ). `leet` adds the
# look-alikes of every other script (Armenian օ, Coptic, Canadian syllabics, Tifinagh…) except the big
# living scripts of SMS traffic (Malayalam, Myanmar, Oriya, Ethiopic), where a word of look-alikes is a
# real word more often than an evasion.
SCRIPTS = {"LATIN", "GREEK", "CYRILLIC", "CHEROKEE", "LISU"}
NOT_LEET = {"COMMON", "INHERITED", "MALAYALAM", "MYANMAR", "ORIYA", "ETHIOPIC"}
skeleton = {}
leet_skeleton = {}
for ch in sorted(confusables):
    if len(ch) != 1 or ord(ch) < 0x80:
        continue
    script, cat = categories.aliases_categories(ch)
    if not cat.startswith("L") or (script not in SCRIPTS and script in NOT_LEET):
        continue
    table = skeleton if script in SCRIPTS else leet_skeleton
    targets = [h["c"] for h in confusables[ch] if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalpha()]
    if not targets:
        continue
    upper = ch.upper() == ch and ch.lower() != ch
    lower = ch.lower() == ch and ch.upper() != ch
    def rank(t):
        same = (upper and t.isupper()) or (lower and t.islower())
        return (0 if same else 1, t)
    target = sorted(targets, key=rank)[0]
    if target == "l" and upper:
        target = "I"  # confusables.txt's prototype of I is l; an upper-case look-alike of I reads as I
    table[ord(ch)] = target

# Small capitals (ʟᴏᴛᴛᴇʀʏ) imitate capital letters; confusables.txt lists only a few of them.
for cp in range(0x80, 0x20000):
    if is_surrogate(cp) or cp in skeleton:
        continue
    m = re.fullmatch(r"LATIN LETTER SMALL CAPITAL ([A-Z])", unicodedata.name(chr(cp), ""))
    if m:
        skeleton[cp] = m.group(1).lower()

# Cherokee small letters (U+AB70…, U+13F8…) read as their capitals do, in lower case.
for cp in list(range(0xAB70, 0xABC0)) + list(range(0x13F8, 0x13FE)):
    upper = ord(chr(cp).upper()) if len(chr(cp).upper()) == 1 else None
    if cp not in skeleton and upper in skeleton:
        skeleton[cp] = skeleton[upper].lower()

# `leet` also strips accents from Latin letters (lóttêry → lottery): a letter whose canonical decomposition is
# an ASCII letter and combining marks reads as that letter.
for cp in list(range(0xC0, 0x250)) + list(range(0x1E00, 0x1F00)):
    if cp in skeleton or cp in leet_skeleton:
        continue
    d = unicodedata.normalize("NFD", chr(cp))
    if len(d) > 1 and d[0].isascii() and d[0].isalpha() and all(unicodedata.combining(c) for c in d[1:]):
        leet_skeleton[cp] = d[0]

# Canonical composition (NFC's pairs), so that a body written decomposed (NFD: e + U+0301) reads as the
# precomposed letter (é) the phrases are written with; and the combining class of every mark that composes.
compositions = {}
for cp in range(0x80, 0x30000):
    if is_surrogate(cp):
        continue
    d = unicodedata.decomposition(chr(cp))
    if not d or d.startswith("<"):
        continue
    parts = [int(x, 16) for x in d.split()]
    if len(parts) != 2:
        continue
    if unicodedata.normalize("NFC", chr(parts[0]) + chr(parts[1])) != chr(cp):
        continue  # a composition exclusion
    compositions[(parts[0], parts[1])] = cp
combining = {b: unicodedata.combining(chr(b)) for (_, b) in compositions}

# A look-alike whose compatibility form is not ASCII (Greek lunate sigma ϲ → σ) keeps its look-alike
# reading instead: the compatibility step would hide it.
for cp in list(compat):
    if cp in skeleton and not compat[cp].isascii():
        del compat[cp]

def hexes(s):
    return " ".join("%X" % ord(c) for c in s)

out = []
out.append("// Generated by Scripts/make-normalization-tables.py: do not edit. Data: the Unicode Character Database")
out.append("// (Python %s, Unicode %s) and Unicode's confusables.txt as carried by confusable-homoglyphs %s;" % (
    sys.version.split()[0], unicodedata.unidata_version, getattr(confusable_homoglyphs, "__version__", "?")))
out.append("// licences in NOTICE.md beside this file.")
out.append("")
out.append("enum _NormalizationTables {")
out.append("    /// Unicode version of the compatibility data.")
out.append('    static let unicodeVersion = "%s"' % unicodedata.unidata_version)
out.append("    /// `scalar:replacement scalars;` in hex, ascending; an empty replacement removes the scalar.")
out.append("    /// Compatibility forms (NFKC) and default-ignorable code points: %d entries." % len(compat))
lines = []
line = ""
for cp in sorted(compat):
    item = "%X:%s;" % (cp, hexes(compat[cp]))
    if len(line) + len(item) > 110:
        lines.append(line)
        line = ""
    line += item
lines.append(line)
out.append('    static let compatibility = """')
out.extend("        " + l for l in lines)
out.append('        """')
out.append("    /// `scalar:ASCII letter;` in hex: Latin, Greek, Cyrillic, Cherokee and Lisu look-alikes and small capitals of ASCII letters: %d entries." % len(skeleton))
lines = []
line = ""
for cp in sorted(skeleton):
    item = "%X:%s;" % (cp, skeleton[cp])
    if len(line) + len(item) > 110:
        lines.append(line)
        line = ""
    line += item
lines.append(line)
out.append('    static let confusables = """')
out.extend("        " + l for l in lines)
out.append('        """')

def table_lines(items):
    lines = []
    line = ""
    for item in items:
        if len(line) + len(item) > 110:
            lines.append(line)
            line = ""
        line += item
    lines.append(line)
    return lines

out.append("    /// `scalar:ASCII letter;` in hex: look-alikes read only under `leet` (other scripts, accented Latin): %d entries." % len(leet_skeleton))
out.append('    static let leetConfusables = """')
out.extend("        " + l for l in table_lines(["%X:%s;" % (cp, leet_skeleton[cp]) for cp in sorted(leet_skeleton)]))
out.append('        """')
out.append("    /// `first second:composite;` in hex: canonical composition pairs (NFC): %d entries." % len(compositions))
out.append('    static let compositions = """')
out.extend("        " + l for l in table_lines(["%X %X:%X;" % (a, b, compositions[(a, b)]) for (a, b) in sorted(compositions)]))
out.append('        """')
out.append("    /// `mark:combining class;` in hex: the canonical combining class of every second scalar of a pair.")
out.append('    static let combiningClasses = """')
out.extend("        " + l for l in table_lines(["%X:%X;" % (b, combining[b]) for b in sorted(combining)]))
out.append('        """')
out.append("}")
print("\n".join(out))
