#!/usr/bin/env bash
# Scripts/check-portability.sh: AhoCorasick and MessageFilter must build for Apple platforms (iOS: the
# message filter extension that `smsfilter export-extension` writes links them) as well as for Linux.
#
#   Scripts/check-portability.sh                 check Sources/AhoCorasick and Sources/MessageFilter, and
#                                                their dependencies in Package.swift
#   Scripts/check-portability.sh DIR|FILE ...    check these Swift sources only (no Package.swift check)
#   Scripts/check-portability.sh --package P --targets "A B" DIR ...   also check targets A, B in P
#
# Fails (exit 1), naming file:line, when one of these appears outside a block that only Linux-like
# platforms compile:
#   - an import of a Linux-only module: Glibc, Musl, SwiftGlibc, FoundationNetworking, FoundationXML,
#     Android, Bionic, WASILibc, WinSDK, ucrt, CRT (any import form: `@_implementationOnly import`,
#     `internal import`, `import struct Glibc.stat`, …);
#   - a Linux-only API (a module-qualified `Glibc.` call, epoll, inotify, eventfd, memfd_create, sendfile,
#     splice, statx, pipe2, accept4, dup3, posix_fadvise, fallocate, sched_getaffinity, get_nprocs,
#     malloc_usable_size, malloc_trim, mallinfo, mremap, gettid, prctl, MAP_POPULATE, O_DIRECT, O_TMPFILE,
#     O_PATH, O_NOATIME, MADV_HUGEPAGE, MADV_DONTDUMP, CLOCK_BOOTTIME, SOCK_CLOEXEC, SOCK_NONBLOCK,
#     MSG_NOSIGNAL, 64-bit-suffixed libc calls such as stat64/lseek64/off64_t, or a path under /proc/,
#     /sys/ or /dev/shm);
#   - Foundation API that exists on Linux and macOS but not on iOS: Process, NSTask, Host, XMLDocument,
#     XMLElement, XMLDTD, NSWorkspace, homeDirectoryForCurrentUser; and Float80 (x86 only);
#   - and, with a package, a dependency of a checked target that is neither another checked target nor a
#     package known to support iOS (IOS_CAPABLE below).
#
# "Only Linux-like platforms compile it" is decided by a state machine over #if/#elseif/#else/#endif
# nesting (comments and string literals are skipped): a branch is guarded when its condition can only hold
# off Apple platforms (canImport(Glibc), canImport(Musl), canImport(FoundationNetworking), os(Linux),
# os(Android), os(Windows), _runtime(_Native), !canImport(Darwin), !os(macOS) && !os(iOS) && …, and
# conjunctions containing one of these), or when an earlier branch of the same #if holds on every Apple
# platform (`#if canImport(Darwin) … #else <guarded> #endif`). Unbalanced directives are errors too.
set -euo pipefail

# Packages whose products build for iOS (checked by hand: their Package.swift lists iOS or no platforms
# restriction, and they use no Linux-only API). Add a package here only after checking it.
IOS_CAPABLE="Yams swift-collections swift-numerics swift-algorithms"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
package=""
targets=""
paths=()
while [ $# -gt 0 ]; do
    case "$1" in
        --package) package="$2"; shift 2 ;;
        --targets) targets="$2"; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "check-portability: unknown option $1 (see --help)" >&2; exit 64 ;;
        *) paths+=("$1"); shift ;;
    esac
done
if [ ${#paths[@]} -eq 0 ]; then
    paths=("$root/Sources/AhoCorasick" "$root/Sources/MessageFilter")
    [ -n "$package" ] || package="$root/Package.swift"
    [ -n "$targets" ] || targets="AhoCorasick MessageFilter CAhoCorasickSIMD CSIMDDispatch"
fi

files=()
for p in "${paths[@]}"; do
    if [ -d "$p" ]; then
        while IFS= read -r f; do files+=("$f"); done < <(find "$p" -type f -name '*.swift' | LC_ALL=C sort)
    elif [ -f "$p" ]; then
        files+=("$p")
    else
        echo "check-portability: $p: no such file or folder" >&2
        exit 66
    fi
done
if [ ${#files[@]} -eq 0 ]; then
    echo "check-portability: no Swift files under ${paths[*]}" >&2
    exit 66
fi

status=0
report="$(awk '
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }

# Strips one pair of parentheses around the whole expression, when they match each other.
function unparen(s,    i, c, depth) {
    s = trim(s)
    while (substr(s, 1, 1) == "(" && substr(s, length(s), 1) == ")") {
        depth = 0
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (c == "(") depth++
            else if (c == ")") { depth--; if (depth == 0 && i < length(s)) return s }
        }
        s = trim(substr(s, 2, length(s) - 2))
    }
    return s
}

# Splits s at top-level occurrences of op ("||" or "&&") into parts[1..n]; returns n.
function split_top(s, op, parts,    i, c, depth, n, start) {
    n = 0; depth = 0; start = 1
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "(") depth++
        else if (c == ")") depth--
        else if (depth == 0 && substr(s, i, 2) == op) { parts[++n] = substr(s, start, i - start); start = i + 2; i++ }
    }
    parts[++n] = substr(s, start)
    return n
}

function atom_linux(a) {
    return a ~ /^canImport\((Glibc|Musl|SwiftGlibc|FoundationNetworking|FoundationXML|Android|Bionic|WASILibc|WinSDK|ucrt|CRT)\)$/ \
        || a ~ /^os\((Linux|Android|Windows|WASI|FreeBSD|OpenBSD|Cygwin|PS4|Haiku|none)\)$/ \
        || a == "_runtime(_Native)"
}
function atom_apple_all(a) {
    return a ~ /^canImport\((Darwin|ObjectiveC|Foundation|Dispatch)\)$/ || a == "_runtime(_ObjC)"
}
function atom_apple_os(a) { return a ~ /^os\((macOS|OSX|iOS|tvOS|watchOS|visionOS|xrOS)\)$/ }

# Whether condition c can only hold off Apple platforms.
function linux_only(c,    parts, n, i, t) {
    c = unparen(c)
    n = split_top(c, "||", parts)
    if (n > 1) { for (i = 1; i <= n; i++) if (!linux_only(parts[i])) return 0; return 1 }
    n = split_top(c, "&&", parts)
    if (n > 1) {
        for (i = 1; i <= n; i++) if (linux_only(parts[i])) return 1
        # !os(macOS) && !os(iOS) && !os(tvOS) && !os(watchOS) && !os(visionOS)
        return not_every_apple_os(parts, n)
    }
    if (substr(c, 1, 1) == "!") { t = unparen(substr(c, 2)); return atom_apple_all(t) || apple_all(t) }
    return atom_linux(c)
}

# Whether condition c holds on every Apple platform.
function apple_all(c,    parts, n, i, t, seen) {
    c = unparen(c)
    n = split_top(c, "||", parts)
    if (n > 1) {
        for (i = 1; i <= n; i++) if (apple_all(parts[i])) return 1
        for (i = 1; i <= n; i++) { t = unparen(parts[i]); if (atom_apple_os(t)) { sub(/^os\(/, "", t); sub(/\)$/, "", t); if (t == "OSX") t = "macOS"; if (t == "xrOS") t = "visionOS"; seen[t] = 1 } }
        return ("macOS" in seen) && ("iOS" in seen) && ("tvOS" in seen) && ("watchOS" in seen) && ("visionOS" in seen)
    }
    n = split_top(c, "&&", parts)
    if (n > 1) { for (i = 1; i <= n; i++) if (!apple_all(parts[i])) return 0; return 1 }
    if (substr(c, 1, 1) == "!") { t = unparen(substr(c, 2)); return atom_linux(t) }
    return atom_apple_all(c)
}

function not_every_apple_os(parts, n,    i, t, seen) {
    for (i = 1; i <= n; i++) {
        t = unparen(parts[i])
        if (substr(t, 1, 1) != "!") continue
        t = unparen(substr(t, 2))
        if (atom_apple_os(t)) { sub(/^os\(/, "", t); sub(/\)$/, "", t); if (t == "OSX") t = "macOS"; if (t == "xrOS") t = "visionOS"; seen[t] = 1 }
    }
    return ("macOS" in seen) && ("iOS" in seen) && ("tvOS" in seen) && ("watchOS" in seen) && ("visionOS" in seen)
}

function problem(msg) {
    printf "%s:%d: %s\n", FILENAME, FNR, msg
    problems++
}

# Whether the line is inside a branch whose condition requires x86 (`#if arch(x86_64) || arch(i386)`).
function x86_only(    d, c) {
    for (d = 1; d <= depth; d++) {
        c = branch_cond[d]
        gsub(/[ \t]/, "", c)
        if (c ~ /^\(*arch\((x86_64|i386)\)\)*(\|\|\(*arch\((x86_64|i386)\)\)*)*$/) return 1
    }
    return 0
}

function guarded(    d) {
    for (d = 1; d <= depth; d++) if (branch_guarded[d]) return 1
    return 0
}

# Splits the raw line into code (comments removed, string contents blanked) and text (comments removed,
# strings kept), carrying block-comment and multi-line-string state across lines.
function scan(line,    i, c, n, in_str, raw_hashes) {
    code = ""; text = ""
    n = length(line)
    i = 1
    while (i <= n) {
        c = substr(line, i, 1)
        if (block_depth > 0) {
            if (substr(line, i, 2) == "/*") { block_depth++; i += 2; continue }
            if (substr(line, i, 2) == "*/") { block_depth--; i += 2; continue }
            i++; continue
        }
        if (in_multi) {
            if (substr(line, i, 3) == "\"\"\"") { in_multi = 0; code = code "\"\"\""; text = text "\"\"\""; i += 3; continue }
            text = text c; i++; continue
        }
        if (substr(line, i, 2) == "//") break
        if (substr(line, i, 2) == "/*") { block_depth = 1; i += 2; continue }
        if (substr(line, i, 3) == "\"\"\"") { in_multi = 1; code = code "\"\"\""; text = text "\"\"\""; i += 3; continue }
        if (c == "\"") {
            # A one-line string literal: skip to the closing quote (backslash escapes skipped).
            code = code "\"\""; text = text c; i++
            while (i <= n) {
                c = substr(line, i, 1)
                if (c == "\\") { text = text substr(line, i, 2); i += 2; continue }
                text = text c; i++
                if (c == "\"") break
            }
            continue
        }
        code = code c; text = text c; i++
    }
}

FNR == 1 {
    if (NR > 1) finish()
    depth = 0; block_depth = 0; in_multi = 0; files++
}

{
    scan($0)
    line = trim(code)
    if (line ~ /^#if([ \t(!]|$)/) {
        cond = trim(substr(line, 4))
        depth++
        if_line[depth] = FNR
        branch_guarded[depth] = linux_only(cond)
        apple_seen[depth] = apple_all(cond)
        branch_cond[depth] = cond
        next
    }
    if (line ~ /^#elseif([ \t(!]|$)/) {
        if (depth == 0) { problem("#elseif without #if"); next }
        cond = trim(substr(line, 8))
        branch_guarded[depth] = apple_seen[depth] || linux_only(cond)
        if (apple_all(cond)) apple_seen[depth] = 1
        branch_cond[depth] = cond
        next
    }
    if (line ~ /^#else([ \t]|$)/) {
        if (depth == 0) { problem("#else without #if"); next }
        branch_guarded[depth] = apple_seen[depth]
        branch_cond[depth] = "#else"
        next
    }
    if (line ~ /^#endif([ \t]|$)/) {
        if (depth == 0) { problem("#endif without #if"); next }
        depth--
        next
    }
    if (guarded()) next

    if (match(code, /(^|[^A-Za-z0-9_])import[ \t]+((typealias|struct|class|enum|protocol|let|var|func)[ \t]+)?(Glibc|Musl|SwiftGlibc|FoundationNetworking|FoundationXML|Android|Bionic|WASILibc|WinSDK|ucrt|CRT)([ \t.;]|$)/)) {
        m = substr(code, RSTART, RLENGTH)
        sub(/^[^A-Za-z]*import[ \t]+((typealias|struct|class|enum|protocol|let|var|func)[ \t]+)?/, "", m)
        sub(/[ \t.;]$/, "", m)
        problem("unguarded Linux-only import of " m ": put it inside #if canImport(" m ") ... #endif, with the Apple equivalent in an #elseif canImport(Darwin) branch")
        next
    }
    padded = " " code " "
    if (match(padded, /[^A-Za-z0-9_](Glibc|Musl|SwiftGlibc|FoundationNetworking|FoundationXML)\./)) {
        m = substr(padded, RSTART + 1, RLENGTH - 2)
        problem("Linux-only module " m " used outside a #if canImport(" m ")/#if os(Linux) block")
        next
    }
    if (match(padded, /[^A-Za-z0-9_](epoll_[a-z_]+|inotify_[a-z_]+|eventfd|memfd_create|sendfile|splice|statx|pipe2|accept4|dup3|posix_fadvise|fallocate|sched_getaffinity|sched_setaffinity|get_nprocs|get_nprocs_conf|malloc_usable_size|malloc_trim|mallinfo2?|mremap|gettid|prctl|MAP_POPULATE|O_DIRECT|O_TMPFILE|O_PATH|O_NOATIME|MADV_HUGEPAGE|MADV_DONTDUMP|CLOCK_BOOTTIME|SOCK_CLOEXEC|SOCK_NONBLOCK|MSG_NOSIGNAL|stat64|fstat64|lstat64|lseek64|open64|mmap64|off64_t|pread64|pwrite64|__errno_location)[^A-Za-z0-9_]/)) {
        m = substr(padded, RSTART + 1, RLENGTH - 2)
        problem("Linux-only API " m " used outside a #if canImport(Glibc)/#if os(Linux) block")
        next
    }
    if (match(padded, /[^A-Za-z0-9_]Float80[^A-Za-z0-9_]/) && !x86_only()) {
        problem("Float80 exists only on x86 (not on iOS devices, which are ARM): guard it with #if arch(x86_64) || arch(i386)")
        next
    }
    if (match(padded, /[^A-Za-z0-9_.](Process|NSTask|Host|XMLDocument|XMLElement|XMLDTD|NSWorkspace|homeDirectoryForCurrentUser)[^A-Za-z0-9_]/)) {
        m = substr(padded, RSTART + 1, RLENGTH - 2)
        problem("Foundation API " m " is not available on iOS (it is on Linux and macOS): keep it out of this module or inside #if os(Linux) || os(macOS)")
        next
    }
    if (match(text, /"[^"]*(\/proc\/|\/sys\/|\/dev\/shm)/)) {
        problem("Linux-only path in a string literal: guard it with #if os(Linux)")
        next
    }
}

function finish() {
    if (depth > 0) { printf "%s:%d: #if is never closed by #endif\n", prev_file, if_line[depth]; problems++ }
    if (block_depth > 0) { printf "%s: a /* comment is never closed\n", prev_file; problems++ }
}
{ prev_file = FILENAME }

END {
    finish()
    printf "SUMMARY %d %d\n", problems, files
}
' "${files[@]}")"
printf '%s\n' "$report" | sed '$d' >&2
read -r _ nproblems nfiles <<< "$(printf '%s\n' "$report" | tail -n 1)"
[ "$nproblems" -eq 0 ] || status=1

# Dependencies of the checked targets in Package.swift.
dep_summary=""
if [ -n "$package" ]; then
    if [ ! -f "$package" ]; then
        echo "check-portability: $package: no such file" >&2
        exit 66
    fi
    # One line, without // comments (a // after ":" is a URL, not a comment).
    flat="$(sed -e 's#^[[:space:]]*//.*$##' -e 's#[[:space:]]//.*$##' "$package" | tr '\n' ' ')"
    for target in $targets; do
        if ! printf '%s' "$flat" | grep -q "\.target( *name: *\"$target\""; then
            echo "$package: no .target(name: \"$target\") found" >&2
            status=1
            nproblems=$((nproblems + 1))
            continue
        fi
        deps="$(printf '%s' "$flat" | grep -o "\.target( *name: *\"$target\" *, *dependencies: *\[[^]]*\]" \
            | sed 's/^[^[]*\[//' | grep -o '"[^"]*"' | tr -d '"' | LC_ALL=C sort -u || true)"
        for dep in $deps; do
            ok=0
            for allowed in $targets $IOS_CAPABLE; do [ "$dep" = "$allowed" ] && ok=1; done
            if [ $ok -eq 0 ]; then
                echo "$package: target $target depends on \"$dep\", which is not known to build for iOS (check it, then add it to IOS_CAPABLE in Scripts/check-portability.sh)" >&2
                status=1
                nproblems=$((nproblems + 1))
            fi
        done
        dep_summary+=" $target [$(echo $deps | tr ' ' ',')]"
    done
fi

if [ $status -ne 0 ]; then
    echo "check-portability: FAILED: $nproblems problem(s) in $nfiles Swift file(s) under ${paths[*]}${package:+ and $package}" >&2
    exit 1
fi
echo "check-portability: ok: $nfiles Swift files, no unguarded Linux-only import or API${dep_summary:+; dependencies:$dep_summary}"
