#!/usr/bin/env bash
# layers.sh SRC FLAGS_DIR CC LAYER...: the grader's floors hold (docs/grader-layers.md).
#
# SRC is grader/src; LAYER... its folders from the bottom up (WB_GRADER_LAYERS); FLAGS_DIR holds
# LAYER.include, the include directories CMake compiles that layer's library with, one a line.
#
# 1. The wall in the build: compiled with each layer's own include directories, the public header
#    of every layer at or below it is found and compiles, and that of every layer above it is not
#    found. This is what makes an upward include fail to build; it checks the CMake that makes it.
# 2. The rule on the sources: every quoted #include in SRC/LAYER/ names a header of LAYER itself or
#    the public header (wb_NAME.h) of a layer below, never a path, a private header of another
#    layer, or anything above. Every source lies in a layer folder.
# Exit 0 when both hold, 1 with one line per breach otherwise.
set -u
src=$1 flags=$2 cc=$3
shift 3
layers=("$@")
fail=0
breach() { echo "layers: $*"; fail=1; }

# The public header of a layer: wb_NAME.h; the top layer (the commands) has none but its table.
public_of() { if [[ -f $src/$1/wb_$1.h ]]; then echo "wb_$1.h"; else echo commands.h; fi; }
index_of() { local i; for i in "${!layers[@]}"; do [[ ${layers[$i]} == "$1" ]] && echo "$i" && return; done; echo -1; }

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT

# ---- 1. the wall in the build --------------------------------------------------------------------
for low in "${layers[@]}"; do
    [[ -f $flags/$low.include ]] || { breach "$flags/$low.include missing (CMake writes it)"; continue; }
    args=()
    while IFS= read -r dir; do [[ -n $dir ]] && args+=("-I$dir"); done < "$flags/$low.include"
    for other in "${layers[@]}"; do
        header=$(public_of "$other")
        printf '#include "%s"\nint wb_layers_probe;\n' "$header" > "$probe/probe.c"
        LC_ALL=C "$cc" -fsyntax-only "${args[@]}" "$probe/probe.c" > "$probe/out.txt" 2>&1
        rc=$?
        if (( $(index_of "$other") <= $(index_of "$low") )); then
            (( rc == 0 )) || { breach "$low cannot compile its own or a lower layer's $other/$header:"; sed 's/^/    /' "$probe/out.txt" | head -5; }
        else
            # the probe's own line must be the one that fails: the header itself is not found
            grep -Eq "probe\.c:1:[0-9]+: fatal error: '?$header'?(:| file not found)" "$probe/out.txt" ||
                breach "$low finds $other/$header, a layer above it: its include directories reach upward"
        fi
    done
done

# ---- 2. the rule on the sources ------------------------------------------------------------------
declare -A layer_of
for layer in "${layers[@]}"; do
    [[ -d $src/$layer ]] || { breach "no folder $src/$layer"; continue; }
    for h in "$src/$layer"/*.h; do [[ -e $h ]] && layer_of[$(basename "$h")]=$layer; done
done
for f in "$src"/*; do
    [[ -d $f ]] || { breach "$f lies outside the layer folders"; continue; }
    [[ " ${layers[*]} " == *" $(basename "$f") "* ]] || breach "$f is a folder that is no layer (add it to WB_GRADER_LAYERS in grader/CMakeLists.txt)"
done
for layer in "${layers[@]}"; do
    here=$(index_of "$layer")
    for f in "$src/$layer"/*.[ch]; do
        [[ -e $f ]] || continue
        while IFS=: read -r line text; do
            name=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' <<< "$text")
            [[ -n $name ]] || continue
            where="${f#"$src"/}:$line"
            if [[ $name == */* ]]; then breach "$where: #include \"$name\" names a path; include a layer's public header by name"; continue; fi
            owner=${layer_of[$name]:-}
            [[ -n $owner ]] || { breach "$where: #include \"$name\" is no header of the grader"; continue; }
            [[ $owner == "$layer" ]] && continue
            there=$(index_of "$owner")
            if (( there > here )); then breach "$where: #include \"$name\" reaches up from $layer to $owner"
            elif [[ $name != "$(public_of "$owner")" ]]; then breach "$where: #include \"$name\" is private to $owner; include $(public_of "$owner")"
            fi
        done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
    done
done

(( fail == 0 )) && echo "layers: ${layers[*]}: every include goes down, through public headers"
exit $fail
