#!/usr/bin/env bash
# The automaton beside Hyperscan's C API on the same bodies and keywords, interleaved in one run (issue 23
# item 5): `make peers` runs it; alone:  bash Benchmarks/peers/run-hyperscan-c.sh [ROUNDS]   (default 3)
#
# Both sides: ASCII case folding (Hyperscan's HS_FLAG_CASELESS; the automaton's fold=ascii), every match
# counted, one scan per body, bodies in memory; 50 and 5,000 keywords on the real and the generated bodies
# of `matcher-tool fixtures`. Both tools time process CPU (HS_COUNT_CLOCK=cpu, MATCHER_TOOL_CLOCK=cpu: one
# thread each, so CPU time is the scan's time without the waits of a shared machine; ROUNDS=... CLOCK=wall
# for the wall clock). Each side's figure is the median of 7 repetitions inside the tool; the table
# shows the median over ROUNDS rounds (the two tools alternate, so both see the same load), and the ratio
# automaton ÷ Hyperscan (goal ≥ 1.0×). "per body" is one `forEachMatch` call per body, as Hyperscan's one
# `hs_scan` per body; "batch" is the automaton's batch call over all the bodies' spans (each body still
# scanned on its own from the start state: what the classifier does per chunk). Match counts must agree.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
clock="${CLOCK:-cpu}"
work="${PEERS_DIR:-/tmp/smsfilter-peers}/hyperscan"
mkdir -p "$work"
if [ ! -f /usr/include/hs/hs.h ]; then
  echo "peers: installing libhyperscan-dev with apt-get"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq libhyperscan-dev >/dev/null
fi
cc -O2 -Wall -Wextra -o "$work/hs_count" Benchmarks/peers/hyperscan/hs_count.c -lhs
(cd Benchmarks && swift build -c release --product matcher-tool >/dev/null)
tool=Benchmarks/.build/release/matcher-tool
[ -s "$work/fixtures/keywords-5000.txt" ] || "$tool" fixtures "$work/fixtures" >/dev/null
results="$work/results.tsv"
: > "$results"
for round in $(seq 1 "$rounds"); do
  for corpus in real generated; do
    for kw in 50 5000; do
      read -r mbs matches _ < <(HS_COUNT_CLOCK=$clock "$work/hs_count" "$work/fixtures/keywords-$kw.txt" "$work/fixtures/bodies-$corpus.txt" 7)
      printf '%s\t%s\t%s\t%s\t%s\n' "$corpus" "$kw" hyperscan "$mbs" "$matches" >> "$results"
      MATCHER_TOOL_CLOCK=$clock MATCHER_FIXTURES_DIR="$work/fixtures" "$tool" "=$corpus kw=$kw fold=ascii auto+pf" \
        | awk -v c="$corpus" -v k="$kw" '/batch/ { for (i = 1; i <= NF; i++) { if ($i == "batch") b = $(i + 1); if ($i == "single") s = $(i + 1); if ($i == "matches") m = $(i + 1) }
            printf "%s\t%s\tbatch\t%.1f\t%s\n%s\t%s\tper-body\t%.1f\t%s\n", c, k, b * 1000, m, c, k, s * 1000, m }' >> "$results"
    done
  done
done
python3 - "$results" "$rounds" "$clock" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
matches = collections.defaultdict(set)
for line in open(sys.argv[1]):
    corpus, kw, side, mbs, m = line.split()
    rows[(corpus, kw, side)].append(float(mbs))
    matches[(corpus, kw)].add(m)
print(f"MB/s of body bytes per {sys.argv[3]} second, median of {sys.argv[2]} rounds (each a median of 7); ratio = automaton ÷ Hyperscan")
print()
print("| bodies | keywords | Hyperscan C API, hs_scan per body | automaton per body | automaton batch | per body ÷ Hyperscan | batch ÷ Hyperscan | matches |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
bad = False
for corpus in ("real", "generated"):
    for kw in ("50", "5000"):
        hs = statistics.median(rows[(corpus, kw, "hyperscan")])
        one = statistics.median(rows[(corpus, kw, "per-body")])
        batch = statistics.median(rows[(corpus, kw, "batch")])
        m = matches[(corpus, kw)]
        same = len(m) == 1
        bad |= not same
        print(f"| {corpus} | {int(kw):,} | {hs:.0f} | {one:.0f} | {batch:.0f} | {one / hs:.2f}× | {batch / hs:.2f}× | "
              f"{' / '.join(sorted(m)) if not same else next(iter(m))}{'' if same else ' MISMATCH'} |")
if bad:
    sys.exit("run-hyperscan-c: the automaton and Hyperscan counted different matches")
PY
