# swift-code.awk: `code(line)` returns one line of Swift without its comments and string literals, so that
# the Scripts/check-*.sh greps see only code. Block comments and multi-line strings are followed across lines
# in the globals `in_block`, `in_string` and `multi_line`: call `code_reset()` before each file.
function code_reset() { in_block = 0; in_string = 0; multi_line = 0 }
function code(s,    out, i, c, n) {
  out = ""; n = length(s)
  for (i = 1; i <= n; i++) {
    c = substr(s, i, 1)
    if (in_block) { if (substr(s, i, 2) == "*/") { in_block = 0; i++ }; continue }
    if (in_string) {
      if (c == "\\") { i++; continue }
      if (substr(s, i, 3) == "\"\"\"") { if (multi_line) { in_string = 0; multi_line = 0; i += 2 }; continue }
      if (c == "\"" && !multi_line) { in_string = 0; out = out "\"\"" }
      continue
    }
    if (substr(s, i, 2) == "//") break
    if (substr(s, i, 2) == "/*") { in_block = 1; i++; continue }
    if (substr(s, i, 3) == "\"\"\"") { in_string = 1; multi_line = 1; i += 2; continue }
    if (c == "\"") { in_string = 1; continue }
    out = out c
  }
  if (in_string && !multi_line) in_string = 0
  return out
}
