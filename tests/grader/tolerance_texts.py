#!/usr/bin/env python3
"""tolerance_texts.py GRADER SOURCE_DIR: every text a learner reads about how close a time must be
says what the grader applies, from the one source, each question's `tolerance` in lesson.yaml.

Per lesson: no `ask` states a percentage of its own, in lesson.yaml or a translation in i18n/ (the
grader adds the rule); the shipped
predictions.template.yaml is exactly what `grader template` makes, so it carries that rule under
every question that asks a time; and each "within N%" in its README and answer key names a
tolerance one of its time questions has (or the default 25%), and so does each "N% 以内" of its
translations (README.ja.md, the key's .ja.yaml). Exits 1 with the reasons."""
import glob
import os
import re
import subprocess
import sys

import yaml

TIME_FACTS = {"gpu_us", "wall_us", "overlap_us"}
DEFAULT = 0.25
WITHIN = re.compile(r"within\s+(\d+(?:\.\d+)?)\s*%|(\d+(?:\.\d+)?)\s*%\s*以内")  # English, Japanese

grader, src = sys.argv[1], sys.argv[2]
failures = []


def tolerance(value):
    if value is None:
        return DEFAULT
    if isinstance(value, str) and value.endswith("%"):
        return float(value[:-1]) / 100
    return float(value)


for yaml_path in sorted(glob.glob(os.path.join(src, "lessons", "*", "lesson.yaml"))):
    lesson_dir = os.path.dirname(yaml_path)
    lesson = os.path.basename(lesson_dir)
    doc = yaml.safe_load(open(yaml_path))
    translations = [yaml.safe_load(open(t)) or {} for t in sorted(glob.glob(os.path.join(lesson_dir, "i18n", "*.yaml")))]
    allowed = {round(DEFAULT * 100, 6)}
    for q in doc.get("questions", []):
        if TIME_FACTS & set(q.get("facts", [])):
            allowed.add(round(tolerance(q.get("tolerance")) * 100, 6))
        asks = [q.get("ask", "")] + [t.get("questions", {}).get(q["id"], {}).get("ask", "") for t in translations]
        for ask in asks:
            for m in WITHIN.finditer(ask):
                failures.append("%s: question %s states 'within %s%%' in its ask; the grader states the question's "
                                "tolerance itself (remove it from the ask)" % (lesson, q["id"], m.group(1) or m.group(2)))
    made = subprocess.run([grader, "template", lesson_dir], capture_output=True, text=True)
    shipped = os.path.join(lesson_dir, "predictions.template.yaml")
    if made.returncode != 0:
        failures.append("%s: grader template failed: %s" % (lesson, made.stderr.strip()))
    elif open(shipped).read() != made.stdout:
        failures.append("%s: predictions.template.yaml is not what grader template makes from lesson.yaml "
                        "(remake it: grader template %s > %s)" % (lesson, lesson_dir, shipped))
    texts = glob.glob(os.path.join(lesson_dir, "README*.md")) + glob.glob(os.path.join(src, "expectations", lesson + "*.yaml"))
    for text_path in sorted(texts):
        if not os.path.exists(text_path):
            continue
        for n, line in enumerate(open(text_path), 1):
            for m in WITHIN.finditer(line):
                if round(float(m.group(1) or m.group(2)), 6) not in allowed:
                    failures.append("%s:%d: 'within %s%%', but the lesson's time questions are graded within %s"
                                    % (os.path.relpath(text_path, src), n, m.group(1) or m.group(2),
                                       " or ".join("%g%%" % a for a in sorted(allowed))))

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
