#!/usr/bin/env bash
# link_walls.sh NM LAYER=ARCHIVE...: the grader's floors hold for calls too (docs/grader-layers.md).
#
# The layers' static libraries, from the bottom up (WB_GRADER_LAYERS order). A function a layer
# calls must be its own, a lower layer's or an outside library's, never a layer's above it: the
# include walls stop an upward #include, this stops an upward call written with a declaration of
# its own (extern int wb_grade_predictions(...)), which compiles and, in the one binary, links.
# Every undefined symbol of a layer's objects (nm -u) is looked up among the symbols defined by
# the layers above it (nm --defined-only). Exit 0 when none is, 1 with one line per upward call.
#
# link_walls.sh --self-test NM CC AR: plants an upward call in two layers of its own making and
# fails unless the check finds it (and passes them without it).
set -u

check() { # NM LAYER=ARCHIVE...
    local nm=$1
    shift
    local names=() archives=() i j fail=0 tmp
    for arg in "$@"; do names+=("${arg%%=*}") archives+=("${arg#*=}"); done
    tmp=$(mktemp -d)
    for i in "${!archives[@]}"; do
        [[ -f ${archives[$i]} ]] || { echo "link_walls: ${archives[$i]} missing (build the grader first)"; rm -rf "$tmp"; return 1; }
        # "object: symbol" for each symbol the layer's objects need from elsewhere, and what it defines
        "$nm" -A -u "${archives[$i]}" 2>/dev/null | awk '{ sub(/:$/, "", $1); n = split($1, p, ":"); print p[n], $NF }' |
            sort -u > "$tmp/$i.undefined"
        "$nm" -g --defined-only "${archives[$i]}" 2>/dev/null | awk 'NF >= 3 && $2 ~ /^[TDBRVWGSCi]$/ { print $3 }' |
            sort -u > "$tmp/$i.defined"
    done
    for i in "${!archives[@]}"; do
        for ((j = i + 1; j < ${#archives[@]}; j++)); do
            # the calls of layer i that land on a definition of layer j, above it
            awk 'NR == FNR { up[$1] = 1; next } ($2 in up) { print $1, $2 }' "$tmp/$j.defined" "$tmp/$i.undefined" |
                while read -r object symbol; do
                    echo "link_walls: ${names[$i]}/$object calls $symbol, which layer ${names[$j]} defines, above it"
                done > "$tmp/breach"
            if [[ -s $tmp/breach ]]; then cat "$tmp/breach"; fail=1; fi
        done
    done
    rm -rf "$tmp"
    return $fail
}

self_test() { # NM CC AR
    local nm=$1 cc=$2 ar=$3 dir
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' RETURN
    printf 'int wb_low_helper(int x) { return x + 1; }\n' > "$dir/low.c"
    printf 'int wb_low_helper(int);\nint wb_high_entry(int x) { return wb_low_helper(x) * 2; }\n' > "$dir/high.c"
    printf 'int wb_high_entry(int);\nint wb_low_reach(int x) { return wb_high_entry(x); }\n' > "$dir/reach.c"
    "$cc" -c "$dir/low.c" -o "$dir/low.o" && "$cc" -c "$dir/high.c" -o "$dir/high.o" && "$cc" -c "$dir/reach.c" -o "$dir/reach.o" || return 1
    "$ar" rcs "$dir/liblow.a" "$dir/low.o" && "$ar" rcs "$dir/libhigh.a" "$dir/high.o" || return 1
    check "$nm" low="$dir/liblow.a" high="$dir/libhigh.a" > "$dir/out" ||
        { echo "link_walls self-test: a downward call was refused:"; cat "$dir/out"; return 1; }
    "$ar" rcs "$dir/liblow.a" "$dir/reach.o"
    if check "$nm" low="$dir/liblow.a" high="$dir/libhigh.a" > "$dir/out"; then
        echo "link_walls self-test: an upward call (low calls wb_high_entry) was not found"
        return 1
    fi
    grep -q "low/reach.o calls wb_high_entry, which layer high defines" "$dir/out" ||
        { echo "link_walls self-test: the breach is not named:"; cat "$dir/out"; return 1; }
    echo "link_walls self-test: an upward call is found and named"
}

if [[ ${1:-} == --self-test ]]; then
    shift
    self_test "$@"
else
    check "$@"
fi
