#!/bin/sh
# get_data.sh [OUT_FILE] [tinystories-valid|tinystories-train|kjv]: writes a UTF-8 training text
# for lesson 04 (default data/train.txt beside this script's lesson, source tinystories-valid).
#
#   tinystories-valid  TinyStories validation split, about 19 MB (22k stories): enough for a small
#                      model to write "One day, a little girl named Lily went to the park."
#   tinystories-train  the training split, about 1.9 GB
#   kjv                the King James Bible (public domain, about 4.3 MB) from Debian's
#                      bible-kjv-text package, read with the `bible` program of bible-kjv
#
# Where the machine is offline (the GPU machine is), TinyStories falls back to the Bible when the
# Debian packages are installed (apt-get install bible-kjv bible-kjv-text). The lesson's tests
# and grader variants need none of this: they train on a corpus the program generates
# (--data builtin).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/data/train.txt}
source=${2:-tinystories-valid}
mkdir -p "$(dirname "$out")"

fetch() { # URL FILE
    if command -v curl >/dev/null 2>&1; then curl -fL --retry 2 --connect-timeout 10 -o "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then wget -q -T 10 -O "$2" "$1"
    else return 1; fi
}

kjv() {
    if ! command -v bible >/dev/null 2>&1; then
        echo "get_data.sh: the fallback needs Debian's bible-kjv and bible-kjv-text:" >&2
        echo "    apt-get install bible-kjv bible-kjv-text" >&2
        exit 1
    fi
    # one verse per line; drop the "Ge1:1 " references
    bible -f "gen1:1-rev22:21" | sed 's/^[^ ]* //' > "$out"
    echo "get_data.sh: wrote $out (King James Bible, $(wc -c < "$out") bytes)"
}

case $source in
tinystories-valid | tinystories-train)
    split=${source#tinystories-}
    url="https://huggingface.co/datasets/roneneldan/TinyStories/resolve/main/TinyStories-$split.txt"
    if fetch "$url" "$out.part" 2>/dev/null; then
        mv "$out.part" "$out"
        echo "get_data.sh: wrote $out (TinyStories $split, $(wc -c < "$out") bytes)"
    else
        rm -f "$out.part"
        echo "get_data.sh: cannot download TinyStories (offline?); falling back to the King James Bible" >&2
        kjv
    fi
    ;;
kjv) kjv ;;
*)
    echo "usage: get_data.sh [OUT_FILE] [tinystories-valid|tinystories-train|kjv]" >&2
    exit 2
    ;;
esac
