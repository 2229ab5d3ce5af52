#!/bin/sh
# check_layers.sh TABLE ROOT: fails (exit 1, one line per fault) when an #include of the
# source tree at ROOT breaks the stage table TABLE, which CMakeLists.txt writes from its
# apidex_stage() list (one line per stage: "name layer dep...", in declaration order).
#
# The build runs it before compiling anything, so a wrong include fails `make build`
# (docs/ARCHITECTURE.md, "Stages and their dependencies"). The rules:
# - the table: layers are library < product < face; a stage's DEPS are stages declared before
#   it (so the graph has no cycle) and of its own layer or a lower one;
# - src/S/*: "X/file.h" only for X = S or X in S's DEPS; never another stage's private
#   header (*_int.h); stage headers are written "stage/file.h" ("apidex.h" is the public
#   API); no "..", no include by macro (neither could be checked); every stage named in
#   DEPS is included by some file of S, so the table stays S's real dependencies; every
#   folder of src/ is a stage of the table and every stage has a folder;
# - tests/unit/test_S_*.c, tests/fuzz/fuzz_S_*.c and the helpers tests/unit/S_*.h (they
#   link S and what it depends on): S's headers, private ones included, and the public
#   headers of every stage S depends on, directly or not.
# Plain sh and awk (POSIX; mawk too), so it runs wherever the project builds.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: check_layers.sh TABLE ROOT" >&2
    exit 2
fi
table=$1
root=$2
if [ ! -r "$table" ]; then
    echo "check_layers: cannot read the stage table $table" >&2
    exit 2
fi
list=$(mktemp)
trap 'rm -f "$list"' EXIT
# Every file the rules cover, one a line (a path holding a newline is not ours).
(
    cd "$root"
    for f in src/*/*.c src/*/*.h src/*/*.def tests/unit/*.c tests/unit/*.h tests/fuzz/*.c; do
        [ -f "$f" ] && printf '%s\n' "$f"
    done
    for d in src/*/; do
        [ -d "$d" ] && printf 'DIR %s\n' "$d"
    done
) >"$list"

awk -v root="$root" -v table="$table" -v list="$list" '
function fault(where, msg) {
    print where ": " msg > "/dev/stderr"
    faults++
}
function in_deps(s, x) { return ((s SUBSEP x) in dep) }
function in_closure(s, x) { return ((s SUBSEP x) in clos) }
# The stage a test file belongs to, or "" (testutil.c, fuzz_jsonrpc.c: no stage of their own).
function test_owner(path,    base, s) {
    base = path
    sub(/^.*\//, "", base)
    if (base ~ /^(test|fuzz)_[a-z]+_/) {
        s = base
        sub(/^(test|fuzz)_/, "", s)
        sub(/_.*$/, "", s)
    } else if (base ~ /^[a-z]+_[a-z_]+\.h$/) {
        s = base
        sub(/_.*$/, "", s)
    } else {
        return ""
    }
    return (s in layer) ? s : ""
}
function check_include(path, n, line, owner, is_test,    t, x, head, where, rest) {
    where = path ":" n
    t = line
    sub(/^[ \t]*#[ \t]*include[ \t]*/, "", t)
    if (t ~ /^"/) {
        t = substr(t, 2)
        if (index(t, "\"") == 0) { fault(where, "unterminated #include"); return }
        t = substr(t, 1, index(t, "\"") - 1)
    } else if (t ~ /^</) {
        t = substr(t, 2)
        if (index(t, ">") == 0) { fault(where, "unterminated #include"); return }
        t = substr(t, 1, index(t, ">") - 1)
        head = t
        sub(/\/.*$/, "", head)
        if (index(t, "/") == 0 || !(head in layer))
            return # a system or library header
    } else {
        fault(where, "#include by macro: the stage rules cannot check it; name the header")
        return
    }
    if (t ~ /(^|\/)\.\.(\/|$)/) {
        fault(where, "#include \"" t "\" climbs out with ..; write \"stage/file.h\"")
        return
    }
    if (index(t, "/") == 0) {
        if (is_test || t == "apidex.h")
            return
        fault(where, "#include \"" t "\": write a stage header as \"stage/file.h\"")
        return
    }
    x = t
    sub(/\/.*$/, "", x)
    rest = substr(t, length(x) + 2)
    if (!(x in layer)) {
        fault(where, "#include \"" t "\": " x " is not a stage of the table (CMakeLists.txt apidex_stage)")
        return
    }
    if (x == owner)
        return
    if (rest ~ /_int\.h$/) {
        fault(where, "#include \"" t "\": " x "/" rest " is private to stage " x)
        return
    }
    if (is_test) {
        if (!in_closure(owner, x))
            fault(where, "#include \"" t "\": the tests of " owner " link " owner \
                  " and what it depends on, and " owner " does not depend on " x)
        return
    }
    if (in_deps(owner, x)) {
        used[owner SUBSEP x] = 1
        return
    }
    if (rank[layer[x]] > rank[layer[owner]])
        fault(where, "#include \"" t "\": " owner " (" layer[owner] ") may not use " x \
              " (" layer[x] "): " layer[owner] " stages stand below " layer[x] " stages")
    else if (declared_at[x] > declared_at[owner])
        fault(where, "#include \"" t "\": " x " is declared after " owner \
              " (it stands above); move the code, or declare the stages in another order")
    else
        fault(where, "#include \"" t "\": " x " is not in the DEPS of " owner \
              "; add it to apidex_stage(" owner " ...) in CMakeLists.txt if " owner " really needs it")
}
BEGIN {
    rank["library"] = 1; rank["product"] = 2; rank["face"] = 3
    faults = 0
    while ((getline line < table) > 0) {
        if (line ~ /^[ \t]*(#|$)/) continue
        nf = split(line, f, /[ \t]+/)
        s = f[1]; where = "CMakeLists.txt apidex_stage(" s ")"
        if (s in layer) { fault(where, "stage " s " is declared twice"); continue }
        if (!(f[2] in rank)) {
            fault(where, "stage " s ": layer \"" f[2] "\" is not library, product or face")
            continue
        }
        layer[s] = f[2]
        declared_at[s] = ++n_stages
        order[n_stages] = s
        for (i = 3; i <= nf; i++) {
            d = f[i]
            if (d == s) { fault(where, "stage " s " lists itself in DEPS"); continue }
            if (!(d in layer)) {
                fault(where, "stage " s ": DEPS names " d ", which is not declared before it " \
                      "(declare stages below the ones that use them: no cycle)")
                continue
            }
            if (rank[layer[d]] > rank[layer[s]])
                fault(where, "stage " s " (" layer[s] ") lists " d " (" layer[d] ") in DEPS: " \
                      layer[s] " stages stand below " layer[d] " stages")
            dep[s SUBSEP d] = 1
            deps_of[s] = deps_of[s] " " d
            clos[s SUBSEP d] = 1
            for (k = 1; k < n_stages; k++)
                if (in_closure(d, order[k])) clos[s SUBSEP order[k]] = 1
        }
    }
    close(table)
    if (n_stages == 0) fault(table, "no stage declared (CMakeLists.txt apidex_stage)")

    while ((getline path < list) > 0) {
        if (path ~ /^DIR /) {
            d = substr(path, 5)
            sub(/\/$/, "", d)
            s = d
            sub(/^src\//, "", s)
            has_dir[s] = 1
            if (!(s in layer))
                fault(d, "src/" s " is not a stage of the table: declare it with " \
                      "apidex_stage(" s " LAYER ... DEPS ...) in CMakeLists.txt")
            continue
        }
        is_test = (path ~ /^tests\//)
        if (is_test) {
            owner = test_owner(path)
            if (owner == "") continue
        } else {
            owner = path
            sub(/^src\//, "", owner)
            sub(/\/.*$/, "", owner)
            if (!(owner in layer)) continue # reported once, for its folder
        }
        n = 0
        file = root "/" path
        while ((getline line < file) > 0) {
            n++
            if (line ~ /^[ \t]*#[ \t]*include/)
                check_include(path, n, line, owner, is_test)
        }
        close(file)
    }
    close(list)

    for (i = 1; i <= n_stages; i++) {
        s = order[i]
        if (!(s in has_dir)) {
            fault("CMakeLists.txt apidex_stage(" s ")", "stage " s " has no folder src/" s)
            continue
        }
        m = split(deps_of[s], ds, " ")
        for (j = 1; j <= m; j++)
            if (!((s SUBSEP ds[j]) in used))
                fault("CMakeLists.txt apidex_stage(" s ")", "DEPS names " ds[j] ", but no file of src/" s \
                      " includes a header of " ds[j] "; remove it from apidex_stage(" s " ...)")
    }
    if (faults) {
        printf "check_layers: %d fault%s against the stage table (CMakeLists.txt apidex_stage; docs/ARCHITECTURE.md)\n", \
            faults, (faults == 1 ? "" : "s") > "/dev/stderr"
        exit 1
    }
}'
