#!/bin/bash
# test_i18n.sh GRADER: the grader in Japanese (docs/i18n.md), on a small course with its own
# Japanese text (a fixture written here, not the course's):
#   - the language follows --lang, LANGUAGE, LC_ALL, LC_MESSAGES, LANG; English by default, and
#     English output is the same byte for byte whatever the non-Japanese locale;
#   - a Japanese report fits 80 display columns (measured with Python's east_asian_width);
#   - questions, hints, the title and explanations come from i18n/ja.yaml and the key's
#     .ja.yaml, English where a translation is missing or stale;
#   - grader lint warns of a translation made stale by an edit to the English, and of a missing one;
#   - a release seals the Japanese explanations like the English ones, and they open after grading;
#   - an instructor's lesson.yaml errors (a work expression's too) and template issues in Japanese,
#     with the file and line of the English.
. "$(dirname "$0")/lib.sh"
PTY=$SRC/tests/grader/cli/pty_drive.py
make_course
L=$WORK/lessons/00_probe
sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }

# the Japanese text of lesson 00_probe: two questions and the title translated, one stale
mkdir -p "$L/i18n"
cat >"$L/i18n/ja.yaml" <<Y
translates: 0000000000000000000000000000000000000000
title: {en_sha: $(sha "probe: a program with a known trace"), text: "プローブ: トレースが分かっているプログラム"}
questions:
  two-kernels:
    en_sha: $(sha "$(printf 'How many kernels do two launches make?\nCount the <<<>>>.\nEach <<<>>> is one cudaLaunchKernel.')")
    ask: "2 回の起動で、カーネルはいくつ実行されますか？"
    hints: ["<<<>>> を数えてください。", "<<<>>> 1 つが cudaLaunchKernel 1 回です。"]
  memset:
    en_sha: $(sha "an older English text")
    ask: "古い訳の設問"
    hints: ["古い訳のヒント"]
Y
cat >"$WORK/expectations/00_probe.ja.yaml" <<Y
translates: 0000000000000000000000000000000000000000
explanations:
  two-kernels: {en_sha: $(sha "Two launches, two kernels."), text: "2 回の起動で 2 つのカーネルです。"}
  memset: {en_sha: $(sha "not the English"), text: "古い訳の解説"}
Y
T=$WB_STATE_DIR/test # this test's files, where grader release does not look
mkdir -p "$T"
right_predictions "$T/right.yaml" 00_probe

# --- which language ---------------------------------------------------------------------------------
out=$("$GRADER" --lang ja --help); contains "$out" "使い方: grader" "--lang ja"
out=$(LANG=ja_JP.UTF-8 "$GRADER" --help); contains "$out" "使い方: grader" "LANG=ja_JP.UTF-8 (no such locale needed)"
out=$(LC_ALL=ja_JP.UTF-8 LANG=en_US.UTF-8 "$GRADER" --help); contains "$out" "使い方: grader" "LC_ALL over LANG"
out=$(LANGUAGE=ja LANG=en_US.UTF-8 "$GRADER" --help); contains "$out" "使い方: grader" "LANGUAGE first"
out=$(LANGUAGE=ja LC_ALL= LANG= "$GRADER" --help); contains "$out" "usage: grader" "LANGUAGE under the C locale: English, as gettext"
out=$(LANG=ja_JP.UTF-8 "$GRADER" --lang en --help); contains "$out" "usage: grader" "--lang en over LANG"
out=$(LANG=ja_JP.UTF-8 "$GRADER" check --lang=ja --help); contains "$out" "使い方: grader check" "--lang after the command"
"$GRADER" --lang fr --help >/dev/null 2>&1; expect_rc 2 $? "--lang fr"

# --- the learner commands' --help, in Japanese within 80 display columns, English as it was -------
fits80() { # FILE WHAT: every line of FILE within 80 display columns (east_asian_width)
    python3 - "$1" <<'PY' || fail "$2 passes 80 display columns (above)"
import sys, unicodedata
def width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in line)
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
# a path is one unbreakable word: a line that is only a path (and its indent) may pass
bad = [l for l in lines if width(l) > 80 and len(l.split()) > 1]
for l in bad: print("%d columns: %s" % (width(l), l))
sys.exit(1 if bad else 0)
PY
}
for cmd in "reset:使い方: grader reset LESSON" "submit:講師に渡す提出ファイル" "diff:2 つのキャプチャを比べ" \
           "explain:カーネル名を読み解きます" "check:使い方: grader check" "list:使い方: grader list" \
           "hint:使い方: grader hint"; do
    name=${cmd%%:*}
    LANG=ja_JP.UTF-8 "$GRADER" "$name" --help >"$T/help-ja.txt" 2>&1; expect_rc 0 $? "grader $name --help in Japanese"
    contains "$(cat "$T/help-ja.txt")" "${cmd#*:}" "grader $name --help in Japanese"
    lacks "$(cat "$T/help-ja.txt")" "usage:" "grader $name --help in Japanese"
    fits80 "$T/help-ja.txt" "grader $name --help in Japanese"
    out=$(LANG=C.UTF-8 "$GRADER" "$name" --help); contains "$out" "usage: grader $name" "grader $name --help in English"
done
# start.sh's message after the build (scripts/i18n.sh: wb_say), through the same catalog
built=$(printf 'Built. grader check takes the next lesson you have not graded (lesson 01 the first time), names\nwhat to read before its questions, asks them here and grades your answers.')
LANGUAGE=ja LC_ALL=C.UTF-8 TEXTDOMAINDIR=$(dirname "$GRADER")/../share/locale gettext -d workbench -- "$built" >"$T/built-ja.txt"
contains "$(cat "$T/built-ja.txt")" "ビルドしました。grader check はまだ採点していない次のレッスン" "start.sh's message in Japanese"
fits80 "$T/built-ja.txt" "start.sh's message in Japanese"
out=$(LANG=ja_JP.UTF-8 "$GRADER" diff lessons/00_probe 2>&1); expect_rc 2 $? "diff with one capture"
contains "$out" "比べるキャプチャを 2 つ指定してください" "diff's usage error in Japanese"
out=$(LANG=ja_JP.UTF-8 "$GRADER" explain 2>&1); contains "$out" "カーネル名を指定してください" "explain's usage error in Japanese"

# --- "predicted": a lesson's state (予測済み) apart from the report's heading (予測) ---------------------
cp "$T/right.yaml" "$L/predictions.yaml"
out=$(LANG=ja_JP.UTF-8 "$GRADER" list); contains "$out" "予測済み" "grader list: the state predicted"
out=$(LANG=C.UTF-8 "$GRADER" list); contains "$out" "predicted" "grader list: the state in English"
rm "$L/predictions.yaml"

# --- a malformed predictions file: the reader's messages in Japanese, file:line:col as in English -----
# Japanese wraps between characters, where no space stands: looked for with all spaces removed
contains_ja() { grep -qF -- "$(tr -d ' \n' <<<"$2")" <<<"$(tr -d ' \n' <<<"$1")" || fail "$3: output lacks '$2'"; }
printf 'lesson: 00_probe\npredictions:\n  - id: two-kernels\n    range: two_kernels\n    kernels: "2"\n' >"$T/bad.yaml"
check_bad() { COLUMNS=80 "$@" "$GRADER" check "$L" --predictions "$T/bad.yaml" --replay 2>&1; }
out=$(check_bad env LANG=ja_JP.UTF-8); expect_rc 2 $? "a malformed predictions file in Japanese"
contains_ja "$out" "$T/bad.yaml:5:14: 予測 'two-kernels' の 'kernels' は整数か ~ にしてください (引用符付きの文字列 \"2\" と書かれています): 引用符を外してください" "a quoted count, in Japanese"
printf '%s\n' "$out" >"$T/bad-ja.txt"; fits80 "$T/bad-ja.txt" "the Japanese reader error"
out=$(check_bad env LANG=C.UTF-8); expect_rc 2 $? "a malformed predictions file in English"
contains "$out" "$T/bad.yaml:5:14: 'kernels' of prediction 'two-kernels' must be a whole number or ~, found the quoted string \"2\"; remove the quotes" "a quoted count, in English as before"
sed -i 's/kernels: "2"/kernel: 2/' "$T/bad.yaml"
out=$(check_bad env LANG=ja_JP.UTF-8); contains_ja "$out" "$T/bad.yaml:5:5: 'predictions' の 1 番目の項目: 知らないキー 'kernel' です (使えるのは id, variant, range, rank," "an unknown key, in Japanese"
printf 'lesson: 00_probe\npredictions: [\n' >"$T/bad.yaml"
out=$(check_bad env LANG=ja_JP.UTF-8); contains_ja "$out" "予測ファイルの YAML 構文エラー: " "a YAML syntax error, in Japanese"
out=$(check_bad env LANG=C.UTF-8); contains "$out" "YAML syntax error in the predictions file: " "a YAML syntax error, in English"
printf '# nothing yet\n' >"$T/bad.yaml"
out=$(check_bad env LANG=ja_JP.UTF-8); contains_ja "$out" "$T/bad.yaml: 予測ファイルが空です。YAML を書いてください" "an empty predictions file, in Japanese"
out=$(LANG=ja_JP.UTF-8 "$GRADER" check "$L" --predictions "$T/none.yaml" --replay 2>&1)
contains_ja "$out" "$T/none.yaml: この予測ファイルはありません。パスを確かめてください。またはレッスンのテンプレートを predictions.yaml にコピーしてください" "a missing predictions file, in Japanese"

# an entry without id: the message reads without a space before the particle
printf 'lesson: 00_probe\npredictions:\n  - range: two_kernels\n' >"$T/bad.yaml"
out=$(check_bad env LANG=ja_JP.UTF-8); contains "$out" "'predictions' の 1 番目の項目に 'id' がありません" "an entry without id, in Japanese"
# a regex the grader refuses (regex_limits.c), in Japanese; English as before
printf 'lesson: 00_probe\npredictions:\n  - id: two-kernels\n    range: two_kernels\n    kernels_named: {"re:a**": 2}\n' >"$T/bad.yaml"
out=$(check_bad env LANG=ja_JP.UTF-8); expect_rc 2 $? "a refused regex in Japanese"
contains_ja "$out" "正規表現 'a**' は受け付けられません: 繰り返しの直後の繰り返し (a**、a+?、a{2}*) は POSIX の正規表現では未定義です。" "a refused regex, in Japanese"
printf '%s\n' "$out" >"$T/bad-ja.txt"; fits80 "$T/bad-ja.txt" "the Japanese regex refusal"
out=$(check_bad env LANG=C.UTF-8); contains "$out" "the regex 'a**' is refused: one repetition right after another (a**, a+?, a{2}*) is undefined in POSIX regexes" "a refused regex, in English"

# --- recordings that do not load, and a lesson without one: in Japanese, English as before -----------
printf '{"format": "gpu-workbench-recording", "version": 99}\n' >"$T/other.json"
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" diff "$T/other.json:eager" "$T/other.json:graph" 2>&1)
contains_ja "$out" "$T/other.json: 記録の形式のバージョンが 1 ではありません。grader record で記録し直してください" "a recording of another version, in Japanese"
out=$(LANG=C.UTF-8 "$GRADER" diff "$T/other.json:eager" "$T/other.json:graph" 2>&1)
contains "$out" "$T/other.json: recording format version is not 1; re-record it with grader record" "a recording of another version, in English"
python3 - "$PROBE_REC" "$T/corrupt.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["runs"][0]["capture"]["kernels"][0]["start"] = "soon"
json.dump(r, open(sys.argv[2], "w"))
PY
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" diff "$T/corrupt.json:eager" "$T/corrupt.json:graph" 2>&1); rc_ja=$?
contains_ja "$out" "キャプチャが壊れています: kernels[0] の項目 'start' がないか、値が正しくありません (求められる値: 0 以上の整数)。" "a corrupt capture, in Japanese"
out=$(LANG=C.UTF-8 COLUMNS=80 "$GRADER" diff "$T/corrupt.json:eager" "$T/corrupt.json:graph" 2>&1)
expect_rc $rc_ja $? "a corrupt capture: the same exit code in both languages"
contains "$out" "corrupt capture: kernels[0] field 'start' is missing or not a non-negative integer. Re-record it" "a corrupt capture, in English"
python3 - "$PROBE_REC" "$T/duplicate.json" <<'PY'
import json, sys
text = json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"))
open(sys.argv[2], "w").write(text.replace('"memsets":[', '"memsets":[],"memsets":[', 1))
PY
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" diff "$T/duplicate.json:eager" "$T/duplicate.json:graph" 2>&1); rc_ja=$?
contains_ja "$out" "JSON として正しくありません: オブジェクトのキーが重複しています (ファイルが途中で切れているか壊れています。記録し直してください)" "a duplicate key, in Japanese"
out=$(LANG=C.UTF-8 COLUMNS=80 "$GRADER" diff "$T/duplicate.json:eager" "$T/duplicate.json:graph" 2>&1)
expect_rc $rc_ja $? "a duplicate key: the same exit code in both languages"
contains "$out" "not valid JSON: duplicate object key (the file is truncated or corrupt; re-record it)" "a duplicate key, in English"
mv "$L/traces" "$T/traces.away"
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" check "$L" --predictions "$T/right.yaml" --replay 2>&1)
contains_ja "$out" "再生する記録 (traces/*.json) がなく、実機でキャプチャする GPU もありません。" "no recording, in Japanese"
out=$(LANG=C.UTF-8 "$GRADER" check "$L" --predictions "$T/right.yaml" --replay 2>&1)
contains "$out" "no recording to replay (no traces/*.json) and no GPU to capture live" "no recording, in English"
mv "$T/traces.away" "$L/traces"

# --- grader submit refused before any grading: in Japanese, English as before ------------------------
out=$(WB_STATE_DIR=$T/fresh LANG=ja_JP.UTF-8 "$GRADER" submit 00_probe --out "$T/sub.json" 2>&1); rc_ja=$?
contains_ja "$out" "レッスン 00_probe はまだ採点されていません。先に採点してから (grader check 00_probe) 提出してください" "submit before grading, in Japanese"
out=$(WB_STATE_DIR=$T/fresh LANG=C.UTF-8 "$GRADER" submit 00_probe --out "$T/sub.json" 2>&1); expect_rc $rc_ja $? "submit refused: the same exit code"
contains "$out" "lesson 00_probe has not been graded yet: grade it first (grader check 00_probe), then submit" "submit before grading, in English"
out=$(WB_STATE_DIR=$T/fresh LANG=ja_JP.UTF-8 "$GRADER" submit --out "$T/sub.json" 2>&1)
contains_ja "$out" "注: レッスン 00_probe はまだ採点されていないため、提出に含めません" "submit's note, in Japanese"
contains_ja "$out" "まだ採点されたレッスンがありません。先に 1 つ採点してから (grader check) 提出してください" "submit with nothing graded, in Japanese"
out=$(WB_STATE_DIR=$T/fresh LANG=C.UTF-8 "$GRADER" submit --out "$T/sub.json" 2>&1)
contains "$out" "note: lesson 00_probe has not been graded yet: left out" "submit's note, in English"
[ -e "$T/sub.json" ] && fail "a refused submission wrote a file"

# --- English unchanged, Japanese within 80 display columns ---------------------------------------------
run_check() { COLUMNS=80 "$@" "$GRADER" check "$L" --predictions "$T/right.yaml" --replay; }
run_check env LANG=C >"$T/en-c.txt" 2>&1; expect_rc 0 $? "check in English"
run_check env LANG=en_US.UTF-8 LANGUAGE=de >"$T/en-us.txt" 2>&1
run_check env LANG=ja_JP.UTF-8 >"$T/ja.txt" 2>&1; expect_rc 0 $? "check in Japanese: the same exit code"
sed -i 's|/runs/00_probe/[^/]*/|/runs/00_probe/RUN/|' "$T/en-c.txt" "$T/en-us.txt"
cmp -s "$T/en-c.txt" "$T/en-us.txt" || fail "English output depends on the locale: $(diff "$T/en-c.txt" "$T/en-us.txt" | head)"
out=$(cat "$T/ja.txt")
contains "$out" "スコア: 8 個の事実のうち 8 個が正解" "Japanese score"
contains "$out" "解説: 2 回の起動で 2 つのカーネルです。" "the Japanese explanation"
contains "$out" "解説: A memset is a GPU operation of its own, not a kernel." "a stale translation: the English explanation"
contains "$out" "解説: cuBLAS runs one nvjet kernel." "no translation: the English explanation"
grep -qE '^  正解 +kernels +予測 ' "$T/ja.txt" || fail "the report's heading 'predicted' is 予測: $(grep -m1 kernels "$T/ja.txt")"
lacks "$out" "古い訳" "a stale translation"
fits80 "$T/ja.txt" "the Japanese report"
# traces cut short (docs/limits.md): the note says where, in both languages
out=$(WB_TRACE_MAX_RECORDS=4 run_check env LANG=C.UTF-8 2>&1)
contains "$out" "The traces stop at 4 records a file (docs/limits.md):" "the note on cut traces, in English"
WB_TRACE_MAX_RECORDS=4 run_check env LANG=ja_JP.UTF-8 >"$T/cut-ja.txt" 2>&1
contains "$(cat "$T/cut-ja.txt")" "トレースは 1 ファイル 4 レコードまでです (docs/limits.md)。" "the note on cut traces, in Japanese"
fits80 "$T/cut-ja.txt" "the Japanese note on cut traces"
COLUMNS=80 "$GRADER" check "$L" --predictions "$T/right.yaml" --replay --format json --lang ja >"$T/ja.json" 2>/dev/null
# the timeline page's hover texts (SVG <title>) in Japanese
html=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timeline_file"])' "$T/ja.json")
for tip in "が wb_probe_scale(float*, int, float) を起動" "(ランタイム API)" "&#181;s、開始 " "起動元 cudaLaunchKernel" "<title>レンジ "; do
    grep -qF -- "$tip" "$html" || fail "the timeline page lacks the Japanese hover text '$tip'"
done
grep -qF -- " launched " "$html" && fail "the Japanese timeline page has an English hover text: $(grep -oF -m1 -- ' launched ' "$html")"
COLUMNS=80 "$GRADER" check "$L" --predictions "$T/right.yaml" --replay --format json >"$T/en.json" 2>/dev/null
python3 - "$T/en.json" "$T/ja.json" <<'PY' || fail "--format json: keys or values other than text change with the language"
import json, sys
en, ja = (json.load(open(p)) for p in sys.argv[1:])
def keys(x, path=""):
    if isinstance(x, dict): return {path + "/" + k for k in x} | set().union(*(keys(v, path + "/" + k) for k, v in x.items()))
    if isinstance(x, list): return set().union(set(), *(keys(v, path + "[]") for v in x))
    return set()
assert keys(en) == keys(ja)
assert en["score"] == ja["score"] and en["facts"] == ja["facts"]
PY

# --- questions and hints in Japanese ----------------------------------------------------------------
cp "$L/predictions.template.yaml" "$T/open.yaml"
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 python3 "$PTY" --timeout 60 "? " "q\n" -- "$GRADER" check "$L" --predictions "$T/open.yaml" --replay 2>&1 | tr -d '\r')
contains "$out" "2 回の起動で、カーネルはいくつ実行されますか？" "the Japanese question"
contains "$out" "(バリアント eager、レンジ two_kernels)" "the question's heading"
out=$(LANG=ja_JP.UTF-8 "$GRADER" hint 00_probe two-kernels)
contains "$out" "<<<>>> を数えてください。" "the Japanese hint"
contains "$out" "2 回の起動で、カーネルはいくつ実行されますか？" "the Japanese question with its hint"
out=$(LANG=ja_JP.UTF-8 "$GRADER" hint 00_probe memset)
contains "$out" "A memset is not a kernel." "a stale question: the English hint"
out=$(LANG=ja_JP.UTF-8 "$GRADER" list)
contains "$out" "プローブ: トレースが分かっているプログラム" "the Japanese title in grader list"
out=$("$GRADER" list); contains "$out" "probe: a program with a known trace" "the English title"

# --- lint: the Japanese catalog's warnings ----------------------------------------------------------
out=$("$GRADER" lint "$L" 2>&1); rc=$?
expect_rc 0 $rc "lint with stale and missing translations (warnings only)"
contains "$out" "00_probe: Japanese catalog" "lint's section for the Japanese catalog"
contains "$out" "question 'memset' translates an older English text" "lint: a stale question"
contains "$out" "question 'graph-kernels' has no Japanese translation (en_sha $(sha "And when the two launches are replayed from a graph?"))" "lint: a missing question, with its en_sha"
contains "$out" "explanation of 'memset' translates an older English text" "lint: a stale explanation"
lacks "$out" "question 'two-kernels' translates" "lint: a fresh translation"
# an edit to the English ask makes the translation stale: lint flags it, check falls back to English
sed -i 's/How many kernels do two launches make?/How many kernels do the two launches make?/' "$L/lesson.yaml"
out=$("$GRADER" lint "$L" 2>&1); expect_rc 0 $? "lint after an English edit"
contains "$out" "question 'two-kernels' translates an older English text" "lint flags the translation the English edit made stale"
out=$(LANG=ja_JP.UTF-8 "$GRADER" hint 00_probe two-kernels)
contains "$out" "How many kernels do the two launches make?" "the edited English replaces the stale Japanese"
[ "$(python3 "$SRC/tools/i18n_sha.py" "$L" | grep -m1 -A1 '^  two-kernels:' | tail -1 | awk '{print $2}')" = \
  "$(sha "$(printf 'How many kernels do the two launches make?\nCount the <<<>>>.\nEach <<<>>> is one cudaLaunchKernel.')")" ] ||
    fail "tools/i18n_sha.py prints another en_sha than the grader's rule"
sed -i 's/How many kernels do the two launches make?/How many kernels do two launches make?/' "$L/lesson.yaml"
echo "broken: [" >"$L/i18n/bad.yaml"; cp "$L/i18n/ja.yaml" "$T/ja.keep"; echo "questions: [" >"$L/i18n/ja.yaml"
out=$("$GRADER" lint "$L" 2>&1); expect_rc 1 $? "lint with a ja.yaml that does not parse"
contains "$out" "[translation-unreadable]" "lint names the unreadable translation"
out=$(LANG=ja_JP.UTF-8 "$GRADER" hint 00_probe two-kernels); contains "$out" "Count the <<<>>>." "a broken ja.yaml: English"
cp "$T/ja.keep" "$L/i18n/ja.yaml"; rm "$L/i18n/bad.yaml"

# README.ja.md names the commit of the README it translates: lint warns once README.md changed since
git -C "$WORK" init -q && git -C "$WORK" add lessons/00_probe/README.md &&
    git -C "$WORK" -c user.name=t -c user.email=t@localhost commit -qm readme || fail "git commit of the README"
printf '<!-- translates: README.md @ %s -->\n# 00_probe\n\n予測してください。\n\n<!-- reveal -->\n' \
    "$(git -C "$WORK" rev-parse HEAD)" >"$L/README.ja.md"
out=$("$GRADER" lint "$L" 2>&1); lacks "$out" "README.md changed since" "lint: a README translation in step"
echo "More." >>"$L/README.md"
out=$("$GRADER" lint "$L" 2>&1); expect_rc 0 $? "lint after an English README edit"
contains "$out" "README.md changed since" "lint flags README.ja.md after an edit to README.md"
rm -rf "$WORK/.git" "$L/README.ja.md"

# --- the instructors' commands: verify, record, lint --------------------------------------------------
# contains_ja OUT TEXT WHAT: Japanese wraps between characters, where there is no space to squash:
# TEXT is looked for with all white space taken out of both
nospace() { printf '%s' "$1" | tr -d ' \r\n'; }
contains_ja() { grep -qF -- "$(nospace "$2")" <<<"$(nospace "$1")" || fail "$3: output lacks '$2'"; }
for cmd in verify record lint release new template gradebook; do
    out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" $cmd --help); expect_rc 0 $? "$cmd --help in Japanese"
    contains_ja "$out" "使い方: grader $cmd" "$cmd --help in Japanese"
    printf '%s\n' "$out" >"$T/help.txt"; fits80 "$T/help.txt" "$cmd --help in Japanese"
    out=$(LANG=C.UTF-8 "$GRADER" $cmd --help); contains "$out" "usage: grader $cmd" "$cmd --help in English"
done
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" --help)
for summary in "解答キーを実機キャプチャか記録で検証する" "受講者用のコースを書き出す" "講師用: 提出物を取り込み"; do
    contains "$out" "$summary" "grader --help in Japanese"
done
printf '%s\n' "$out" >"$T/help.txt"; fits80 "$T/help.txt" "grader --help in Japanese"

# verify: the same exit codes and JSON in both languages, verdicts in Japanese
COLUMNS=80 LANG=C.UTF-8 "$GRADER" verify 00_probe >"$T/verify-en.txt" 2>&1; expect_rc 0 $? "verify in English"
COLUMNS=80 LANG=ja_JP.UTF-8 "$GRADER" verify 00_probe >"$T/verify-ja.txt" 2>&1; expect_rc 0 $? "verify in Japanese"
contains "$(cat "$T/verify-en.txt")" "answers, verified) against the recording" "verify's English heading"
contains "$(cat "$T/verify-en.txt")" "holds: 8 facts, 0 differ" "verify's English verdict"
contains_ja "$(cat "$T/verify-ja.txt")" "の解答、検証済み) を記録" "verify's Japanese heading"
contains_ja "$(cat "$T/verify-ja.txt")" "成立: 事実 8 個、不一致 0 個" "verify's Japanese verdict"
fits80 "$T/verify-ja.txt" "verify in Japanese"
"$GRADER" verify 00_probe --format json >"$T/verify-en.json" 2>/dev/null
LANG=ja_JP.UTF-8 "$GRADER" verify 00_probe --format json >"$T/verify-ja.json" 2>/dev/null
cmp -s "$T/verify-en.json" "$T/verify-ja.json" || fail "verify --format json changes with the language"
K=$WORK/expectations/00_probe.yaml
cp "$K" "$T/key.keep"
sed -i '0,/kernels: 2/s//kernels: 3/' "$K" # two-kernels: one kernel too many
COLUMNS=80 LANG=C.UTF-8 "$GRADER" verify 00_probe >"$T/verify-en.txt" 2>&1; expect_rc 1 $? "verify of a wrong key in English"
COLUMNS=80 LANG=ja_JP.UTF-8 "$GRADER" verify 00_probe >"$T/verify-ja.txt" 2>&1; expect_rc 1 $? "verify of a wrong key in Japanese"
grep -q "^  differs  two-kernels kernels  *answer 3, captured 2$" "$T/verify-en.txt" || fail "verify's English difference: $(cat "$T/verify-en.txt")"
grep -q "^  不一致   two-kernels kernels  *解答 3、実測 2$" "$T/verify-ja.txt" || fail "verify's Japanese difference: $(cat "$T/verify-ja.txt")"
contains_ja "$(cat "$T/verify-ja.txt")" "不成立: 事実 8 個、不一致 1 個" "verify's Japanese verdict on a wrong key"
fits80 "$T/verify-ja.txt" "verify of a wrong key in Japanese"
cp "$T/key.keep" "$K"
out=$(LANG=ja_JP.UTF-8 "$GRADER" verify 2>&1); expect_rc 2 $? "verify without a lesson in Japanese"
contains_ja "$out" "どのレッスンですか？" "verify's usage error in Japanese"
out=$(LANG=ja_JP.UTF-8 "$GRADER" verify 00_probe --replay --repeat 2 2>&1); expect_rc 2 $? "verify --replay --repeat in Japanese"
contains_ja "$out" "--replay とは一緒に使えません" "verify --replay --repeat in Japanese"
out=$(LANG=ja_JP.UTF-8 "$GRADER" record 00_probe 2>&1); expect_rc 3 $? "record without a GPU in Japanese"
contains_ja "$out" "ここには CUDA デバイスがありません: 記録は GPU のあるマシンで作ります" "record without a GPU in Japanese"
out=$(LANG=C.UTF-8 "$GRADER" record 00_probe 2>&1); expect_rc 3 $? "record without a GPU in English"
contains "$out" "grader record: no CUDA device here: recordings are made on a GPU machine" "record without a GPU in English"

# lint: every finding in Japanese, its id unchanged; JSON the same but for the messages
COLUMNS=80 LANG=ja_JP.UTF-8 "$GRADER" lint "$L" >"$T/lint-ja.txt" 2>&1; expect_rc 0 $? "lint in Japanese"
out=$(cat "$T/lint-ja.txt")
contains_ja "$out" "00_probe: 日本語カタログ (i18n/ja.yaml、解答キーの .ja.yaml):" "lint's Japanese catalog heading in Japanese"
contains_ja "$out" "警告: 設問 'memset' の日本語訳は古い英語の文を訳したものです" "lint: a stale question, in Japanese"
contains "$out" "[translation-stale]" "lint's ids stay as they are in Japanese"
contains_ja "$out" "設問 'graph-kernels' に日本語訳がありません (en_sha" "lint: a missing question, in Japanese"
contains_ja "$out" "00_probe: 問題なし (警告" "lint's summary in Japanese"
fits80 "$T/lint-ja.txt" "lint in Japanese"
"$GRADER" lint "$L" --format json >"$T/lint-en.json"
LANG=ja_JP.UTF-8 "$GRADER" lint "$L" --format json >"$T/lint-ja.json"
python3 - "$T/lint-en.json" "$T/lint-ja.json" <<'PY' || fail "lint --format json: more than the messages changes with the language"
import json, sys
en, ja = (json.load(open(p)) for p in sys.argv[1:])
for r in en["lessons"] + ja["lessons"]:
    for i in r["issues"]: i.pop("message")
assert en == ja
PY
sed -i 's/^  gemm: .*/  gemm: "TODO"/' "$K"
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" lint "$L" 2>&1); expect_rc 1 $? "lint with an error in Japanese"
contains_ja "$out" "エラー: 'gemm' の解説にまだ TODO が残っています [explanation-todo]" "lint's error in Japanese"
contains_ja "$out" "00_probe: エラー 1 個、警告" "lint's summary with an error in Japanese"
out=$(LANG=C.UTF-8 "$GRADER" lint "$L" 2>&1)
contains "$out" "error: the explanation of 'gemm' still says TODO [explanation-todo]" "lint's error in English"
cp "$T/key.keep" "$K"

# new, template and release: what they wrote and their refusals, in Japanese
out=$(cd "$WORK" && LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" new attention --title "attention" 2>&1); expect_rc 0 $? "new in Japanese"
contains_ja "$out" "レッスン 02_attention を" "new's heading in Japanese"
contains_ja "$out" "lessons/02_attention/main.cu プログラムの骨組み: 計算を置き換え、構造は残す" "new's list of files in Japanese"
contains_ja "$out" "grader lint lessons/02_attention で問題がなくなるまで直します" "new's next steps in Japanese"
printf '%s\n' "$out" >"$T/new.txt"; fits80 "$T/new.txt" "new in Japanese"
rm -rf "$WORK/lessons/02_attention" "$WORK/expectations/02_attention.yaml"
out=$(cd "$WORK" && LANG=ja_JP.UTF-8 "$GRADER" new probe 2>&1); expect_rc 2 $? "new of a lesson that exists, in Japanese"
contains_ja "$out" "lessons/00_probe があります: その名前のレッスンがあります。別の名前にしてください。何も変更していません" \
    "new's refusal in Japanese"
out=$(cd "$WORK" && LANG=C.UTF-8 "$GRADER" new probe 2>&1)
contains "$out" "lessons/00_probe exists: a lesson by that name exists, pick another name; nothing was changed" "new's refusal in English"
out=$(LANG=ja_JP.UTF-8 "$GRADER" template 00_probe --write 2>&1); expect_rc 2 $? "template --write over a template, in Japanese"
contains_ja "$out" "すでにあります。先に削除するか、--write を付けずにテンプレートを表示してください" "template's refusal in Japanese"
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" release "$WORK/rel-ja" 2>&1); expect_rc 0 $? "release in Japanese"
contains_ja "$out" "にリリースしました: ファイル" "release's summary in Japanese"
contains_ja "$out" "封印した解答キー 1 個" "release's sealed keys in Japanese"
contains_ja "$out" "学習者はそのコピーの scripts/start.sh から始めます (docs/releasing.md)。" "release's next step in Japanese"
printf '%s\n' "$out" >"$T/release.txt"; fits80 "$T/release.txt" "release in Japanese"
out=$(LANG=ja_JP.UTF-8 "$GRADER" release "$WORK/rel-ja" 2>&1); expect_rc 2 $? "release into a folder that is not empty, in Japanese"
contains_ja "$out" "空ではありません。新しいフォルダか空のフォルダを指定してください (何も上書きしません)" "release's refusal in Japanese"
out=$(LANG=C.UTF-8 "$GRADER" release "$WORK/rel-ja" 2>&1)
contains "$out" "not empty; give a new or empty folder (nothing is ever overwritten)" "release's refusal in English"
rm -rf "$WORK/rel-ja"

# --- a release seals the Japanese explanations, which open after grading -----------------------------
"$GRADER" release "$WORK/rel" >/dev/null 2>&1; expect_rc 0 $? "grader release"
grep -rqF "2 回の起動で 2 つのカーネルです" "$WORK/rel" && fail "the release holds a Japanese explanation in clear text"
[ -e "$WORK/rel/expectations/00_probe.ja.yaml" ] && fail "the release holds the key's Japanese file"
out=$(cd "$WORK/rel" && WB_ROOT=$WORK/rel WB_STATE_DIR=$WORK/rel/.workbench LANG=ja_JP.UTF-8 COLUMNS=80 \
      "$GRADER" check lessons/00_probe --predictions "$T/right.yaml" --replay 2>&1)
contains "$out" "解説: 2 回の起動で 2 つのカーネルです。" "the sealed Japanese explanation opens in the release"
contains "$out" "解説: cuBLAS runs one nvjet kernel." "the release: English where no translation"
out=$(cd "$WORK/rel" && WB_ROOT=$WORK/rel WB_STATE_DIR=$WORK/rel/.workbench2 "$GRADER" check lessons/00_probe --predictions "$T/right.yaml" --replay 2>&1)
contains "$out" "Why: Two launches, two kernels." "the release in English"

# --- grader diff and grader explain in Japanese, within 80 display columns; English as it was ----------
REC=tests/grader/probe/lessons/00_probe/traces/sm_90.json # relative: a long path is one unbreakable word
(cd "$SRC" && COLUMNS=80 LANG=ja_JP.UTF-8 "$GRADER" diff "$REC:eager" "$REC:graph" --reveal) >"$T/diff-ja.txt" 2>&1
expect_rc 1 $? "grader diff in Japanese: the same exit code"
out=$(cat "$T/diff-ja.txt")
contains "$out" "プロファイル区間全体" "grader diff's table in Japanese"
contains_ja "$out" "2 つのキャプチャは異なる仕事を起動しています。" "grader diff's verdict in Japanese"
contains_ja "$out" "A: $REC、バリアント eager" "grader diff's sides in Japanese"
fits80 "$T/diff-ja.txt" "grader diff in Japanese"
out=$(COLUMNS=80 LANG=C.UTF-8 "$GRADER" diff "$PROBE_REC:eager" "$PROBE_REC:graph" --reveal 2>&1)
grep -qE '^Whole profiled window {26}A {12}B  change$' <<<"$out" || fail "grader diff's table heading in English: $(head -5 <<<"$out")"
contains "$out" "The captures launch different work." "grader diff's verdict in English"
NVJET=nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT
COLUMNS=80 LANG=ja_JP.UTF-8 "$GRADER" explain $NVJET my_own_kernel >"$T/explain-ja.txt" 2>&1; expect_rc 0 $? "grader explain in Japanese"
out=$(cat "$T/explain-ja.txt")
contains "$out" "系統:   cuBLAS nvjet" "grader explain's family label in Japanese"
contains_ja "$out" "NVIDIA は名前を文書化していません。" "the family's summary in Japanese"
contains "$out" "[証拠 (文書化なし)]" "a field's basis in Japanese"
contains_ja "$out" "素の __global__ 関数名" "a plain kernel name's summary in Japanese"
fits80 "$T/explain-ja.txt" "grader explain in Japanese"
out=$(COLUMNS=80 LANG=C.UTF-8 "$GRADER" explain $NVJET)
contains "$out" "  family: cuBLAS nvjet" "grader explain in English"
contains "$out" "  GEMM:   yes" "grader explain's GEMM line in English"
(cd "$SRC" && COLUMNS=80 LANG=ja_JP.UTF-8 "$GRADER" explain --trace "$REC:eager" --reveal) >"$T/explain-trace-ja.txt" 2>&1
expect_rc 0 $? "grader explain --trace in Japanese"
contains "$(cat "$T/explain-trace-ja.txt")" "== バリアント eager" "explain --trace's heading in Japanese"
contains_ja "$(cat "$T/explain-trace-ja.txt")" "起動: プロファイル区間で" "explain --trace's launch line in Japanese"
fits80 "$T/explain-trace-ja.txt" "grader explain --trace in Japanese"

# --- the learner's copy of the template: its comments in Japanese, the YAML the same -----------------
rm -f "$L/predictions.yaml"
out=$(LANG=ja_JP.UTF-8 "$GRADER" reset 00_probe 2>&1); expect_rc 0 $? "grader reset in Japanese"
lacks "$out" "predictions.yaml.bak" "a fresh copy needs no backup"
copy=$(cat "$L/predictions.yaml")
contains "$copy" "# レッスン 00_probe の予測: プローブ: トレースが分かっているプログラム" "the copy's heading in Japanese"
contains "$copy" "  # Q: 2 回の起動で、カーネルはいくつ実行されますか？" "the copy's question in Japanese"
diff <(grep -v '^ *#' "$L/predictions.yaml") <(grep -v '^ *#' "$L/predictions.template.yaml") >/dev/null ||
    fail "the Japanese copy's YAML differs from the template's"
out=$(LANG=ja_JP.UTF-8 "$GRADER" reset 00_probe 2>&1)
lacks "$out" "predictions.yaml.bak" "the untouched Japanese copy is not backed up"
# in English the Japanese copy is not recognised as untouched: it is kept as a backup, never lost
LANG=C.UTF-8 "$GRADER" reset 00_probe >/dev/null 2>&1; expect_rc 0 $? "grader reset in English after a Japanese copy"
cmp -s "$L/predictions.yaml" "$L/predictions.template.yaml" || fail "in English the copy is the template byte for byte"

# --- a question about time: its tolerance note in Japanese (lesson 03's key, one time left open) -------
python3 - "$SRC/expectations/03_mlp.yaml" "$T/a3.yaml" <<'PY'
import sys, yaml
k = yaml.safe_load(open(sys.argv[1]))
preds = k["architectures"]["sm_90"]["predictions"]
for p in preds:
    if p["id"] == "gate-proj-time": p["gpu_us"] = None
yaml.safe_dump({"lesson": k["lesson"], "predictions": preds}, open(sys.argv[2], "w"), sort_keys=False)
PY
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 python3 "$PTY" --timeout 60 "? " "q\n" -- "$GRADER" check "$SRC/lessons/03_mlp" --predictions "$T/a3.yaml" --replay 2>&1 | tr -d '\r')
contains_ja "$out" "時間は測定値 (出現の中央値) の 25% 以内なら正解です。" "the tolerance note in Japanese"

# --- an instructor's lesson.yaml and template errors (grader lint), and --lang refused: in Japanese,
# English as before; file and line as in English
cp "$L/lesson.yaml" "$T/lesson.yaml.saved"
sed -i '0,/^    args: \(.*\)$/s//    args: \1\n    world_size: 0/' "$L/lesson.yaml"
line=$(grep -n 'world_size: 0' "$L/lesson.yaml" | cut -d: -f1)
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" lint 00_probe 2>&1); rc_ja=$?
contains_ja "$out" "lessons/00_probe/lesson.yaml:$line: エラー: バリアント 'eager' の 'world_size' はプログラムが起動するプロセスの数で、1 から 64 までです (ここにあるのは 0) [lesson-yaml]" "a lesson.yaml error, in Japanese"
printf '%s\n' "$out" >"$T/lint-ja.txt"; fits80 "$T/lint-ja.txt" "grader lint's lesson.yaml error in Japanese"
out=$(LANG=C.UTF-8 "$GRADER" lint 00_probe 2>&1); expect_rc $rc_ja $? "a lesson.yaml error: the same exit code in both languages"
contains "$out" "lessons/00_probe/lesson.yaml:$line: error: 'world_size' of variant 'eager' is the number of processes the program starts, 1 to 64; found 0 [lesson-yaml]" "a lesson.yaml error, in English"
cp "$T/lesson.yaml.saved" "$L/lesson.yaml"
printf 'work:\n  - variant: eager\n    range: two_kernels\n    flops: 2*n\n    bytes: 1\n' >>"$L/lesson.yaml"
line=$(grep -n 'flops: 2\*n' "$L/lesson.yaml" | cut -d: -f1)
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" lint 00_probe 2>&1)
contains_ja "$out" "lessons/00_probe/lesson.yaml:$line: エラー: レンジ 'two_kernels' (バリアント eager) の 'flops' '2*n': 'n' はバリアントのパラメータではありません (パラメータが 1 つもありません。バリアントに params: {NAME: VALUE} を加えてください) (3 文字目) [lesson-yaml]" "a work expression error, in Japanese"
out=$(LANG=C.UTF-8 "$GRADER" lint 00_probe 2>&1)
contains "$out" "lessons/00_probe/lesson.yaml:$line: error: 'flops' of range 'two_kernels' (variant eager) '2*n': 'n' is not a parameter of the variant (it has none; add params: {NAME: VALUE} to the variant) (at character 3) [lesson-yaml]" "a work expression error, in English"
cp "$T/lesson.yaml.saved" "$L/lesson.yaml"
sed -i 's/facts: \[gemms\]/facts: [gemms, kernels]/' "$L/lesson.yaml"
out=$(LANG=ja_JP.UTF-8 COLUMNS=80 "$GRADER" lint 00_probe 2>&1)
contains_ja "$out" "予測 'gemm' に、lesson.yaml が尋ねている kernels がありません [template]" "a template issue, in Japanese"
out=$(LANG=C.UTF-8 "$GRADER" lint 00_probe 2>&1)
contains "$out" "prediction 'gemm' lacks kernels, which lesson.yaml asks for [template]" "a template issue, in English"
cp "$T/lesson.yaml.saved" "$L/lesson.yaml"
out=$(LANG=ja_JP.UTF-8 "$GRADER" --lang fr --help 2>&1); expect_rc 2 $? "--lang fr in Japanese"
[ "$out" = "grader: --lang には ja か en を指定してください (fr ではなく)" ] || fail "--lang fr in Japanese: $out"
out=$(LANG=C.UTF-8 "$GRADER" --lang fr --help 2>&1)
[ "$out" = "grader: --lang is ja or en, not fr" ] || fail "--lang fr in English: $out"
finish
