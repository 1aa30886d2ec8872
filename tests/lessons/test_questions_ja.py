#!/usr/bin/env python3
"""test_questions_ja.py GRADER SRC: every question of the course is asked in Japanese.

For each lesson `grader list` names and each of its parts, `grader check LESSON --part P
--replay` runs on a pseudo-terminal with LANG=ja_JP.UTF-8 at 80 columns (tests/grader/cli/
pty_drive.py), and every prompt is skipped with Enter, so nothing is graded or shown. Then:

  - the questions asked, over all parts, are exactly the ids of the lesson's predictions
    template (the template is read here, not through the grader);
  - each question's text and each fact's prompt hold Japanese, and the English text of the
    question (the template's "# Q:" line) is not shown;
  - every line of the session fits 80 display columns (East Asian wide characters count two,
    as Python's unicodedata says); a line of one word (a path) may not.

The predictions and the learner's state go to a temporary folder: the checkout is not touched."""
import json, os, re, subprocess, sys, tempfile, unicodedata

GRADER, SRC = sys.argv[1], sys.argv[2]
PTY = os.path.join(SRC, "tests/grader/cli/pty_drive.py")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
HEADER = re.compile(r"^(\S+) \(バリアント ")


def width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def template_questions(lesson_dir):
    """{id: English question} from predictions.template.yaml's '# Q:' comments."""
    questions, ask = {}, None
    with open(os.path.join(lesson_dir, "predictions.template.yaml"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*# Q: (.*)", line)
            if m:
                ask = m.group(1).strip()
            m = re.match(r"\s*- id: (\S+)", line)
            if m:
                questions[m.group(1)] = ask
                ask = None
    return questions


def session(lesson_dir, part, work):
    predictions = os.path.join(work, "predictions.yaml")
    with open(os.path.join(lesson_dir, "predictions.template.yaml"), encoding="utf-8") as src, \
            open(predictions, "w", encoding="utf-8") as dst:
        dst.write(src.read())
    env = dict(os.environ, LANG="ja_JP.UTF-8", COLUMNS="80", WB_STATE_DIR=os.path.join(work, "state"),
               WB_FORCE_REPLAY="1")
    for k in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "NO_COLOR"):
        env.pop(k, None)
    command = [GRADER, "check", lesson_dir, "--predictions", predictions, "--replay"]
    if part:
        command += ["--part", part]
    # Enter at every prompt (they end in "? "), until the session ends by itself
    run = subprocess.run([sys.executable, PTY, "--timeout", "300", "+? ", "\\n", "the session ends first", "", "--"] + command,
                         cwd=SRC, env=env, capture_output=True, timeout=400)
    text = ANSI.sub("", run.stdout.decode("utf-8", "replace")).replace("\r", "")
    return run.returncode, text


def main():
    listing = subprocess.run([GRADER, "list", "--format", "json"], cwd=SRC, capture_output=True, text=True,
                             env=dict(os.environ, WB_STATE_DIR=tempfile.mkdtemp(prefix="wb-ja-list-")))
    lessons = json.loads(listing.stdout)["lessons"]
    failures, asked_total = [], 0
    for lesson in lessons:
        name, lesson_dir = lesson["lesson"], lesson["dir"]
        expected = template_questions(lesson_dir)
        parts = [""] + [p["part"] if isinstance(p, dict) else p for p in lesson.get("parts") or []]
        asked = set()
        for part in parts:
            with tempfile.TemporaryDirectory(prefix="wb-ja-") as work:
                rc, text = session(lesson_dir, part, work)
            where = name + (" --part " + part if part else "")
            if rc not in (0, 2) or "?" not in text:
                failures.append("%s: the session ended with %d before asking anything:\n%s" % (where, rc, text[-2000:]))
                continue
            lines = text.split("\n")
            for i, line in enumerate(lines):
                if width(line) > 80 and len(line.split()) > 1:
                    failures.append("%s: %d columns: %s" % (where, width(line), line))
                m = HEADER.match(line)
                if m:
                    qid = m.group(1)
                    asked.add(qid)
                    end = i  # a long range name wraps the header: the question starts after its ")"
                    while end + 1 < len(lines) and not lines[end].rstrip().endswith(")"):
                        end += 1
                    ask = lines[end + 1] if end + 1 < len(lines) else ""
                    if not JAPANESE.search(ask):
                        failures.append("%s: question %s is not asked in Japanese: %s" % (where, qid, ask))
                    english = expected.get(qid)
                    if english and english[:40] in " ".join(l.strip() for l in lines):
                        failures.append("%s: question %s shows its English text" % (where, qid))
                if line.rstrip().endswith("?") and line.startswith("  ") and ":" in line and not JAPANESE.search(line):
                    failures.append("%s: a prompt in English: %s" % (where, line))
        missing, unknown = sorted(set(expected) - asked), sorted(asked - set(expected))
        if missing:
            failures.append("%s: never asked: %s" % (name, ", ".join(missing)))
        if unknown:
            failures.append("%s: asked but not in its template: %s" % (name, ", ".join(unknown)))
        asked_total += len(asked)
        print("%s: %d questions asked in Japanese over %d part(s)" % (name, len(asked), len(parts)))
    for f in failures:
        print("FAIL: " + f)
    if not lessons:
        print("FAIL: grader list names no lesson")
        return 1
    print("%d questions of %d lessons asked in Japanese" % (asked_total, len(lessons)) if not failures else
          "%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
