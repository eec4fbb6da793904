#!/usr/bin/env bash
# The layering of folders inside a module (docs/DESIGN.md, "The map"): a folder may use the types of the
# folders listed before it, never those of a folder listed after it (no arrow runs back up), and folders of
# one rank (written `A|B`) do not use each other.
#
# A "use" is a file of folder F naming, outside comments and string literals, a top-level type (struct,
# class, enum, protocol, actor, typealias) or free function declared in folder G; `extension T` counts as a
# use of T. Files at the module's root form the folder `root`, which must be in the layering like any other
# (the CLI's root command sits on top). A name declared in two folders is ambiguous and left out.
#
#   bash Scripts/check-layers.sh            check: exits 1 when an enforced module has an arrow back up
#   bash Scripts/check-layers.sh --graph    also print every module's folder graph (F -> G: uses)
#
# Modules are enforced or reported: a reported module's arrows back up are printed but do not fail the run.
set -euo pipefail
cd "$(dirname "$0")/.."

graph=0
[ "${1:-}" = "--graph" ] && graph=1

# module  mode      folders, lowest first
layers=(
  "BatchPipeline  enforced  Primitives Formats Reading Pipeline Split Generate Export Evaluate Learn"
  "MessageFilter  enforced  Files|Embedded Taxonomy Text|Senders Conditions|Model Rules Compiled Classification"
  "SMSFilterCLI   enforced  Support ExtensionTemplates Commands root"
)

status=0
for line in "${layers[@]}"; do
  read -r module mode order <<<"$line"
  root="Sources/$module"
  [ -d "$root" ] || continue
  # Every Swift file below a folder of the module: "folder<TAB>path".
  files=$(find "$root" -mindepth 1 -name '*.swift' | sort | awk -v root="$root/" '{
    rel = substr($0, length(root) + 1); k = split(rel, p, "/"); print (k == 1 ? "root" : p[1]) "\t" $0 }')
  report=$(printf '%s\n' "$files" | awk -F'\t' -v order="$order" -v mode="$mode" -v module="$module" -v graph="$graph" \
    -f Scripts/lib/swift-code.awk -f <(cat <<'AWK'
    BEGIN {
      nranks = split(order, names, " ")
      for (r = 1; r <= nranks; r++) {
        k = split(names[r], same, "|")
        for (j = 1; j <= k; j++) { rank[same[j]] = r; folders[++nfolders] = same[j] }
      }
    }
    { folder[NR] = $1; path[NR] = $2; n = NR }
    END {
      # Pass 1: where each top-level type is declared.
      for (f = 1; f <= n; f++) {
        code_reset()
        while ((getline raw < path[f]) > 0) {
          s = code(raw)
          if (match(s, /^(@[A-Za-z]+(\([^)]*\))? +)*((public|internal|fileprivate|private|package|final|indirect|nonisolated) +)*(struct|class|enum|protocol|actor|typealias|func) +[A-Za-z_][A-Za-z0-9_]*/)) {
            decl = substr(s, RSTART, RLENGTH); sub(/.* /, "", decl)
            if (decl in home && home[decl] != folder[f]) ambiguous[decl] = 1
            home[decl] = folder[f]
          }
        }
        close(path[f])
      }
      # Pass 2: which folders name which.
      for (f = 1; f <= n; f++) {
        code_reset()
        from = folder[f]
        while ((getline raw < path[f]) > 0) {
          s = code(raw)
          while (match(s, /[A-Za-z_][A-Za-z0-9_]*/)) {
            word = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
            if (!(word in home) || (word in ambiguous)) continue
            to = home[word]
            if (to == from) continue
            key = from SUBSEP to
            if (!((key SUBSEP word) in seen)) { seen[key SUBSEP word] = 1; uses[key] = uses[key] (uses[key] == "" ? "" : " ") word }
            count[key]++
          }
        }
        close(path[f])
      }
      bad = 0
      for (a = 1; a <= nfolders; a++) for (b = 1; b <= nfolders; b++) {
        key = folders[a] SUBSEP folders[b]
        if (!(key in count)) continue
        up = rank[folders[b]] >= rank[folders[a]]
        if (graph) printf "%s: %s -> %s: %d (%s)%s\n", module, folders[a], folders[b], count[key], uses[key], up ? "  BACK UP" : ""
        if (up) { bad++; if (!graph) printf "%s: %s uses %s (%s), a folder listed after it or beside it\n", module, folders[a], folders[b], uses[key] }
      }
      for (f = 1; f <= n; f++) if (!(folder[f] in rank) && !(folder[f] in unlisted)) {
        unlisted[folder[f]] = 1; bad++
        printf "%s: the folder %s is not in the layering (Scripts/check-layers.sh)\n", module, folder[f]
      }
      printf "%s %d\n", "#arrows-back-up", bad
    }
AWK
  ))
  printf '%s\n' "$report" | grep -v '^#arrows-back-up' || true
  bad=$(printf '%s\n' "$report" | awk '/^#arrows-back-up/ { print $2 }')
  if [ "$bad" -gt 0 ]; then
    if [ "$mode" = enforced ]; then
      echo "check-layers: $module: $bad arrow(s) back up (order: $order)" >&2
      status=1
    else
      echo "check-layers: $module: $bad arrow(s) back up, reported only (order: $order)"
    fi
  else
    echo "check-layers: $module: every arrow goes down (order: $order)"
  fi
done
exit $status
