#!/bin/bash
# test_gradebook.sh GRADER: the instructor's gradebook on a synthetic cohort of the checkout's
# course (gen_cohort.py, fixed seed; docs/gradebook.md).
#
#   1. import the cohort; every figure of the JSON report equals check_report.py's own
#      computation from what the generator made each learner answer (json and sqlite3 only)
#   2. bad submissions (cut short, of another course, oversized, tampered score, a field that is
#      no GPU architecture, a newer format, a range the lesson lacks, a list) exit 2 naming the
#      file and leave the gradebook as it was, byte for byte of its dump; the same file again
#      exits 0 and changes nothing
#   3. two imports at once (and a third of the same files) into a new gradebook: none fails, every
#      learner is there once, the file passes SQLite's integrity check; an import into a new
#      gradebook whose first write another process holds waits for it
#   4. the text report fits 80 columns; the CSV report parses (RFC 4180, CRLF) and agrees with the
#      JSON report; a gradebook that does not exist, or is no gradebook, exits 2 naming it
. "$(dirname "$0")/../cli/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
export WB_ROOT=$SRC
LEARNERS=${WB_GRADEBOOK_LEARNERS:-60}

python3 "$HERE/gen_cohort.py" "$GRADER" "$SRC" "$WORK/cohort" "$LEARNERS" 23 || { fail "gen_cohort.py failed"; finish; }
SUBS=$WORK/cohort/submissions
DB=$WORK/gb.db

# ---- 1. the cohort, and every figure of the report ------------------------------------------------
out=$("$GRADER" gradebook import "$SUBS" --db "$DB" 2>&1); rc=$?
expect_rc 0 $rc "import of the cohort"
contains "$out" "$LEARNERS imported, 0 already there, 0 refused" "import of the cohort"
contains "$out" "facts unverified (no recording or key for the learner's GPU)" "import of an sm_80 learner"
"$GRADER" gradebook report --db "$DB" --format json >"$WORK/report.json"; rc=$?
expect_rc 0 $rc "report --format json"
python3 "$HERE/check_report.py" "$WORK/cohort/truth.json" "$WORK/report.json" "$DB" || fail "the report's figures are not the cohort's"

# ---- 2. bad submissions leave the gradebook as it was ------------------------------------------
dump() { python3 -c 'import sqlite3, sys; print("\n".join(sqlite3.connect(sys.argv[1]).iterdump()))' "$DB" | sha256sum; }
before=$(dump)
refused() { # FILE WHAT WORDS: import exits 2, names FILE, says WORDS; the gradebook is unchanged
    local out rc
    out=$("$GRADER" gradebook import "$1" --db "$DB" 2>&1); rc=$?
    expect_rc 2 $rc "$2"
    contains "$out" "$1" "$2 (the file named)"
    contains "$out" "$3" "$2"
    contains "$out" "0 imported, 0 already there, 1 refused" "$2"
    [ "$(dump)" = "$before" ] || fail "$2: the gradebook changed"
}
mkdir -p "$WORK/bad"
good=$SUBS/learner-001.json
head -c 20000 "$good" >"$WORK/bad/truncated.json"
refused "$WORK/bad/truncated.json" "a truncated submission" "not a JSON document"
python3 - "$good" "$WORK/bad" <<'PY'
import json, sys
sub = json.load(open(sys.argv[1]))
def write(name, s):
    json.dump(s, open("%s/%s.json" % (sys.argv[2], name), "w"), indent=1, sort_keys=True)
s = json.loads(json.dumps(sub)); s["course"]["id"] = "sha256:" + "0" * 64; write("wrong-course", s)
s = json.loads(json.dumps(sub)); s["learner"] = "Mallory"
# the first replayed fact graded wrong at the first try, submitted as right
f = next(f for l in s["lessons"] for q in l["questions"] for f in q["facts"] if not f["first"]["right"])
f["first"]["right"] = True; write("tampered", s)
s = json.loads(json.dumps(sub)); s["learner"] = "Eve"
s["lessons"][0]["questions"][0]["facts"][0]["first"]["arch"] = "../../../etc/passwd"; write("bad-arch", s)
s = json.loads(json.dumps(sub)); s["version"] = 2; write("newer", s)
s = json.loads(json.dumps(sub)); s["learner"] = "Trudy"
s["lessons"][0]["questions"][0]["id"] = "no-such-question"; write("unknown-question", s)
s = json.loads(json.dumps(sub)); s["learner"] = "Walter"
s["lessons"][0]["questions"][0]["range"] = "nope"; write("unknown-range", s)
write("list", [sub])
# a valid submission padded past the 4 MiB bound
open("%s/oversized.json" % sys.argv[2], "w").write(json.dumps(sub) + " " * (4 << 20))
PY
refused "$WORK/bad/wrong-course.json" "a submission of another course" "made against another course"
refused "$WORK/bad/tampered.json" "a tampered score" "changed after grader submit wrote it"
refused "$WORK/bad/bad-arch.json" "an architecture that is a path" "'arch' is no GPU architecture"
refused "$WORK/bad/newer.json" "a newer submission format" "version 2 of the submission format"
refused "$WORK/bad/unknown-question.json" "a question the lesson does not ask" "no-such-question"
# regrading reads the submitted answers as a predictions file; its errors say which lesson and try
read -r lesson question < <(python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["lessons"][0]; print(l["lesson"], l["questions"][0]["id"])' "$good")
refused "$WORK/bad/unknown-range.json" "a range the lesson does not have" \
    "unknown-range.json (lesson $lesson, first try, as a predictions file):3: prediction '$question': unknown range 'nope' (lesson $lesson has: "
refused "$WORK/bad/list.json" "a list, not a submission" "list.json: the top level: not a JSON object. It is not a submission as grader submit writes it (docs/gradebook.md): ask the learner to run grader submit again and send the file as it is"
refused "$WORK/bad/oversized.json" "an oversized submission" "larger than"
# a failure half-way through the writing (the gradebook's last lesson of another version of the
# course, found after the learner and the submission rows are written) rolls all of it back
python3 - "$good" "$WORK/bad/zed.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["learner"] = "Zed"; json.dump(s, open(sys.argv[2], "w"))
PY
last=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["lessons"][-1]["lesson"])' "$good")
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE lessons SET identity = identity || ? WHERE name = ?", ("x", sys.argv[2])); db.commit()' "$DB" "$last"
before=$(dump)
refused "$WORK/bad/zed.json" "a failure half-way through the writing" "holds lesson $last of another version of the course"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE lessons SET identity = substr(identity, 1, length(identity) - 1) WHERE name = ?", (sys.argv[2],)); db.commit()' "$DB" "$last"
before=$(dump)
out=$("$GRADER" gradebook import "$good" --db "$DB" 2>&1); rc=$?
expect_rc 0 $rc "the same submission again"
contains "$out" "already in the gradebook (the same file), nothing changed" "the same submission again"
[ "$(dump)" = "$before" ] || fail "the same submission again changed the gradebook"

# ---- 3. imports at once --------------------------------------------------------------------------
DB2=$WORK/concurrent.db
mkdir -p "$WORK/half1" "$WORK/half2"
i=0
for f in "$SUBS"/*.json; do
    if [ $((i % 2)) = 0 ]; then cp "$f" "$WORK/half1/"; else cp "$f" "$WORK/half2/"; fi
    i=$((i + 1))
done
"$GRADER" gradebook import "$WORK/half1" --db "$DB2" >"$WORK/c1.out" 2>&1 & p1=$!
"$GRADER" gradebook import "$WORK/half2" --db "$DB2" >"$WORK/c2.out" 2>&1 & p2=$!
"$GRADER" gradebook import "$WORK/half1" --db "$DB2" >"$WORK/c3.out" 2>&1 & p3=$!
wait $p1; r1=$?; wait $p2; r2=$?; wait $p3; r3=$?
[ "$r1$r2$r3" = 000 ] || fail "imports at once: exits $r1 $r2 $r3: $(cat "$WORK"/c[123].out | grep -v '^/' | head -5)"
python3 - "$DB2" "$LEARNERS" <<'PY' || fail "imports at once: the gradebook is not the cohort"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
assert db.execute("SELECT count(*) FROM learners").fetchone()[0] == int(sys.argv[2])
assert db.execute("SELECT count(*) FROM submissions").fetchone()[0] == int(sys.argv[2])
assert db.execute("SELECT count(*) FROM learner_lessons").fetchone()[0] == \
       db.execute("SELECT count(DISTINCT learner_id || '/' || lesson) FROM learner_lessons").fetchone()[0]
PY
"$GRADER" gradebook report --db "$DB2" --format json >"$WORK/report2.json"
python3 "$HERE/check_report.py" "$WORK/cohort/truth.json" "$WORK/report2.json" "$DB2" >/dev/null ||
    fail "imports at once: the report differs from the cohort's"

# A new gradebook whose first write another process still holds (the moment the race above can
# hit): SQLite refuses the switch to WAL at once there, without its busy handler. The holder lets
# go a second after the import starts; the import waits for it and succeeds.
DB3=$WORK/held.db
: >"$DB3"
mkfifo "$WORK/held.fifo"
python3 -c '
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
with open(sys.argv[2], "w") as f:
    f.write("held\n")
time.sleep(1)
db.execute("COMMIT")
' "$DB3" "$WORK/held.fifo" & holder=$!
read -r _ <"$WORK/held.fifo"
out=$("$GRADER" gradebook import "$WORK/half1" --db "$DB3" 2>&1); rc=$?
wait $holder
expect_rc 0 $rc "an import into a new gradebook whose first write another process holds: $out"

# ---- 4. the other formats, and gradebooks that are not ---------------------------------------------
COLUMNS=80 "$GRADER" gradebook report --db "$DB" >"$WORK/report.txt"; rc=$?
expect_rc 0 $rc "report --format text"
awk 'length($0) > 80 { print FILENAME ":" NR ": " length($0) " columns"; bad = 1 } END { exit bad }' "$WORK/report.txt" ||
    fail "the text report passes 80 columns"
contains "$(cat "$WORK/report.txt")" "corrected point-biserial" "the text report names its discrimination index"
"$GRADER" gradebook report --db "$DB" --format csv >"$WORK/facts.csv" && "$GRADER" gradebook report --db "$DB" --format csv \
    --table learners >"$WORK/learners.csv" || fail "report --format csv"
python3 - "$WORK/facts.csv" "$WORK/learners.csv" "$WORK/report.json" <<'PY' || fail "the CSV report does not agree with the JSON one"
import csv, json, sys
raw = open(sys.argv[1], "rb").read()
assert raw.count(b"\r\n") == raw.count(b"\n"), "rows end with CRLF"
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
report = json.load(open(sys.argv[3]))
facts = [(l["lesson"], q["id"], f) for l in report["lessons"] for q in l["questions"] for f in q["facts"]]
assert len(rows) == len(facts), (len(rows), len(facts))
for row, (lesson, qid, f) in zip(rows, facts):
    assert (row["lesson"], row["question"], row["fact"]) == (lesson, qid, f["fact"])
    assert int(row["learners"]) == f["learners"] and int(row["right"]) == f["right"]
    if f["right_share"] is not None:
        assert abs(float(row["right_share"]) - f["right_share"]) < 1e-6
learners = list(csv.DictReader(open(sys.argv[2], newline="")))
assert len(learners) == sum(len(l["learners"]) for l in report["lessons"])
PY
out=$("$GRADER" gradebook report --db "$WORK/none.db" 2>&1); rc=$?
expect_rc 2 $rc "report of a gradebook that does not exist"
contains "$out" "$WORK/none.db" "report of a gradebook that does not exist"
[ ! -e "$WORK/none.db" ] || fail "report made a gradebook"
echo "not a database" >"$WORK/not.db"
out=$("$GRADER" gradebook import "$good" --db "$WORK/not.db" 2>&1); rc=$?
expect_rc 2 $rc "import into a file that is no gradebook"
contains "$out" "$WORK/not.db" "import into a file that is no gradebook"
[ "$out" = "grader gradebook: $WORK/not.db: not a gradebook (grader gradebook import makes one), or it cannot be written: file is not a database" ] ||
    fail "import into a file that is no gradebook: $out"

# ---- 5. in Japanese: the same figures and files, the words in Japanese within 80 display columns -----
COLUMNS=80 LANG=ja_JP.UTF-8 "$GRADER" gradebook report --db "$DB" >"$WORK/report-ja.txt"; expect_rc 0 $? "report in Japanese"
python3 - "$WORK/report-ja.txt" <<'PY' || fail "the Japanese text report passes 80 display columns (above)"
import sys, unicodedata
width = lambda l: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l)
bad = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if width(l) > 80]
for l in bad: print("%d columns: %s" % (width(l), l))
sys.exit(1 if bad else 0)
PY
grep -q "^成績簿: 学習者 $LEARNERS 人、" "$WORK/report-ja.txt" || fail "the Japanese report's heading: $(head -2 "$WORK/report-ja.txt")"
grep -qE "^  学習者 +初回 +最新 +備考$" "$WORK/report-ja.txt" || fail "the Japanese learners' table heading"
grep -qE "^設問 / 事実 +n  正解     r  フラグ +誤答 / 誤差$" "$WORK/report-ja.txt" || fail "the Japanese questions' table heading"
LANG=ja_JP.UTF-8 "$GRADER" gradebook report --db "$DB" --format json >"$WORK/report-ja.json"
python3 - "$WORK/report.json" "$WORK/report-ja.json" <<'PY' || fail "report --format json: more than the rule's prose changes with the language"
import json, sys
en, ja = (json.load(open(p)) for p in sys.argv[1:])
assert en["rules"]["discrimination"] != ja["rules"]["discrimination"]
en["rules"].pop("discrimination"), ja["rules"].pop("discrimination")
assert en == ja
PY
LANG=ja_JP.UTF-8 "$GRADER" gradebook report --db "$DB" --format csv >"$WORK/facts-ja.csv"
cmp -s "$WORK/facts.csv" "$WORK/facts-ja.csv" || fail "report --format csv changes with the language"
LANG=ja_JP.UTF-8 "$GRADER" gradebook report --db "$DB" --format html >"$WORK/report-ja.html"
grep -q '<html lang="ja">' "$WORK/report-ja.html" || fail "the Japanese page is not lang=\"ja\""
grep -q '<h1>成績簿</h1>' "$WORK/report-ja.html" || fail "the Japanese page's heading"
grep -q '<th>設問 / 事実</th><th>学習者</th><th>初回の正解率</th>' "$WORK/report-ja.html" || fail "the Japanese page's table heading"
"$GRADER" gradebook report --db "$DB" --format html | grep -q '<html lang="en">' || fail "the English page is not lang=\"en\""
out=$(LANG=ja_JP.UTF-8 "$GRADER" gradebook import "$good" --db "$DB" 2>&1); expect_rc 0 $? "the same file again, in Japanese"
contains "$out" "すでに成績簿にあります (同じファイル)。何も変更していません" "the same file again, in Japanese"
contains "$out" "取り込み 0 件、既存 1 件、拒否 0 件。成績簿" "import's totals in Japanese"
out=$(LANG=ja_JP.UTF-8 "$GRADER" gradebook report 2>&1); expect_rc 2 $? "report without --db, in Japanese"
contains "$out" "どの成績簿ですか？ --db FILE を指定してください" "report without --db, in Japanese"
out=$(COLUMNS=1000 LANG=ja_JP.UTF-8 "$GRADER" gradebook import "$good" --db "$WORK/not.db" 2>&1); expect_rc 2 $? "a file that is no gradebook, in Japanese"
[ "$out" = "grader gradebook: $WORK/not.db: 成績簿ではないか、書き込めません (成績簿は grader gradebook import が作ります): file is not a database" ] ||
    fail "a file that is no gradebook, in Japanese: $out"
out=$(COLUMNS=1000 LANG=ja_JP.UTF-8 "$GRADER" gradebook import "$WORK/bad/unknown-range.json" --db "$DB" 2>&1); expect_rc 2 $? "a range the lesson does not have, in Japanese"
contains "$out" "unknown-range.json (レッスン $lesson の初回の回答を予測ファイルにしたもの):3: 予測 '$question': レッスン $lesson にレンジ 'nope' はありません (あるのは: " "a range the lesson does not have, in Japanese"
out=$(COLUMNS=1000 LANG=ja_JP.UTF-8 "$GRADER" gradebook import "$WORK/bad/list.json" --db "$DB" 2>&1); expect_rc 2 $? "a list, not a submission, in Japanese"
contains "$out" "grader gradebook: $WORK/bad/list.json: ファイルの最上位が JSON オブジェクトではありません。grader submit が書き出した提出物ではありません (docs/gradebook.md): 学習者に grader submit をもう一度実行してもらい、そのファイルをそのまま送ってもらってください" "a list, not a submission, in Japanese"
# Japanese has no spaces for a log to split at: its error lines wrap to the terminal
COLUMNS=80 LANG=ja_JP.UTF-8 "$GRADER" gradebook import "$WORK/bad/list.json" --db "$DB" >"$WORK/list-ja.txt" 2>&1
python3 - "$WORK/list-ja.txt" <<'PY' || fail "a Japanese error of grader gradebook passes 80 display columns"
import sys, unicodedata
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
width = lambda l: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l)
bad = [l for l in lines if width(l) > 80 and len(l.split()) > 1]
assert len(lines) > 1 and not bad, bad
PY
finish
