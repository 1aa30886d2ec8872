#!/bin/bash
# test_timeline_ja.sh GRADER: the timeline page in Japanese, as Chromium renders it.
#
# grader check of lesson 01 with LANG=ja_JP.UTF-8 (replaying, the answer key's values) writes
# timeline.html with <html lang="ja"> and the labels of the Japanese catalog (looked up here with
# gettext(1) from the build's catalog, not copied from the grader); Chromium's DOM and screenshot
# show the step as in English (check_timeline.py), and the Japanese glyphs render: four different
# kana, drawn by the page's font stack, leave four different marks (a missing font draws the same
# empty box for each). Skipped (77) without Chromium or a Japanese font (Debian: chromium,
# fonts-noto-cjk; .ci/run installs both).
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIPPED: no Chromium here (Debian: apt-get install chromium)"
    exit 77
fi
if [ -z "$(fc-list :lang=ja 2>/dev/null)" ]; then
    echo "SKIPPED: no Japanese font here (Debian: apt-get install fonts-noto-cjk)"
    exit 77
fi
. "$(dirname "$0")/lib.sh"
LOCALEDIR=$(dirname "$GRADER")/../share/locale
ja() { LANGUAGE=ja LC_ALL=C.UTF-8 TEXTDOMAINDIR=$LOCALEDIR gettext -d workbench -- "$1"; }

chromium_run() { # flags... URL
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$(mktemp -d "$WORK/profile-XXXXXX")" "$@" 2>>"$WORK/chromium.log"
}

check_lesson() { # RECORDING LESSON_DIR LESSON ANSWERS
    local recording=$1 dir=$2 lesson=$3 answers=$4 rc html variants label
    [ "$lesson" = 01_matmul_add ] || return 0
    LANG=ja_JP.UTF-8 "$GRADER" check "$dir" --predictions "$answers" --replay "$recording" --format json >"$WORK/report.json" 2>"$WORK/stderr"; rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then fail "$lesson: grader check exit $rc: $(cat "$WORK/stderr")"; return; fi
    read -r html variants < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["timeline_file"], " ".join(r["summary"]))' "$WORK/report.json")
    grep -q '<html lang="ja">' "$html" || fail "$lesson: the page is not marked lang=\"ja\""
    for label in "host API calls" "NVTX ranges" "microseconds from the start of the step" "GEMM kernel" "Hover over a box for its full name and times."; do
        [ "$(ja "$label")" != "$label" ] || fail "the catalog has no Japanese for '$label'"
        grep -qF "$(ja "$label")" "$html" || fail "$lesson: the page lacks the Japanese of '$label'"
    done
    chromium_run --dump-dom "file://$html" >"$WORK/ja.dom.html" || fail "$lesson: chromium --dump-dom failed"
    chromium_run --screenshot="$WORK/ja.png" --window-size=1280,760 "file://$html" >/dev/null || fail "$lesson: screenshot failed"
    python3 "$HERE/check_timeline.py" --occurrence "{of} 回中 {which} 回目" "$recording" "$WORK/ja.dom.html" "$WORK/ja.png" $variants ||
        fail "$lesson: the Japanese timeline does not show the step (see above)"
    grep -qF "$(ja "host API calls")" "$WORK/ja.dom.html" || fail "$lesson: Chromium's DOM lacks the Japanese lane title"
    if [ -n "${WB_KEEP_SCREENSHOTS:-}" ]; then cp "$WORK/ja.png" "$WB_KEEP_SCREENSHOTS/$lesson.ja.png"; fi
    # the glyphs: the page's own font stack, four kana in cells of 200 px
    style=$(grep -o "body,svg text{font-family:[^}]*}" "$html")
    [ -n "$style" ] || fail "$lesson: the Japanese page sets no Japanese font"
    printf '<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><style>%s body{margin:0} span{display:inline-block;width:200px;height:200px;font-size:120px;line-height:200px;text-align:center;color:#000;background:#fff}</style></head><body><span>カ</span><span>ネ</span><span>ル</span><span>ス</span></body></html>' "$style" >"$WORK/glyphs.html"
    chromium_run --screenshot="$WORK/glyphs.png" --window-size=800,200 "file://$WORK/glyphs.html" >/dev/null || fail "glyph screenshot failed"
    python3 - "$HERE" "$WORK/glyphs.png" <<'PY' || fail "the Japanese glyphs do not render (a font is missing: fonts-noto-cjk)"
import sys
sys.path.insert(0, sys.argv[1])
from check_timeline import read_png
width, height, bpp, rows = read_png(sys.argv[2])
cells = []
for k in range(4):
    ink = frozenset((x, y) for y in range(height) for x in range(200 * k, 200 * k + 200)
                    if sum(rows[y][x * bpp:x * bpp + 3]) < 384)
    cells.append(frozenset((x - 200 * k, y) for x, y in ink))
print("ink per glyph:", [len(c) for c in cells])
assert all(len(c) > 300 for c in cells), "a glyph left (almost) no ink"
assert len(set(cells)) == 4, "two different kana drew the same mark: boxes for a missing font"
PY
    echo "checked $lesson in Japanese"
}
for_each_recording check_lesson
finish
