# callgrind.sh: sourced by the scripts that count instructions with callgrind (budget.sh,
# measure-model-automaton.sh). One function:
#
#   callgrind_setup TOOL BIN WORK
#
# fails (exit 2, the message prefixed with TOOL) when valgrind or BIN is missing; copies BIN to WORK/smsfilter
# stripped of debug info (valgrind cannot read Swift's DWARF) and sets S to the copy; sets G to the generated
# corpus WORK/gen40k.jsonl.zst (`generate --count 40000 --seed 1 --frame-size 0`: 9.3 MB decoded, one frame),
# written by the copy when it is not there yet.
callgrind_setup() {
  local tool=$1 bin=$2 work=$3
  command -v valgrind > /dev/null || { echo "$tool: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
  [ -x "$bin" ] || { echo "$tool: no binary at $bin (make build)" >&2; exit 2; }
  mkdir -p "$work"
  cp "$bin" "$work/smsfilter"
  strip --strip-debug "$work/smsfilter"
  S=$work/smsfilter
  G=$work/gen40k.jsonl.zst
  [ -s "$G" ] || "$S" generate --count 40000 --seed 1 -o "$G" --quiet --frame-size 0
}
