#!/usr/bin/env python3
"""i18n_sha.py LESSON_DIR: the en_sha values a translation of the lesson records (docs/i18n.md).

Prints, for lessons/NN_name/i18n/ja.yaml, the commit of lesson.yaml (translates:) and the SHA-256
of the title and of each question's English text (its ask, then each hint, joined by newlines);
then, for expectations/NN_name.ja.yaml, the commit of the answer key and the SHA-256 of each
explanation. The grader computes the same values from the same files (grader lint reports a
translation whose en_sha differs). Needs PyYAML (Debian python3-yaml)."""
import hashlib, os, signal, subprocess, sys

import yaml


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def commit_of(path):
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%H", "--", os.path.basename(path)], cwd=os.path.dirname(path) or ".",
                             capture_output=True, text=True, check=True).stdout.strip()
        return out or "not committed yet"
    except (OSError, subprocess.CalledProcessError):
        return "not in git"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    lesson_dir = sys.argv[1].rstrip("/")
    lesson_yaml = os.path.join(lesson_dir, "lesson.yaml")
    lesson = yaml.safe_load(open(lesson_yaml, encoding="utf-8"))
    print("# %s/i18n/ja.yaml" % lesson_dir)
    print("translates: %s" % commit_of(lesson_yaml))
    print("title: {en_sha: %s}" % sha(lesson["title"]))
    print("questions:")
    for q in lesson.get("questions") or []:
        print("  %s:\n    en_sha: %s" % (q["id"], sha("\n".join([q["ask"]] + list(q.get("hints") or [])))))
    key = os.path.join(lesson_dir, "..", "..", "expectations", os.path.basename(lesson_dir) + ".yaml")
    if not os.path.exists(key):
        return
    explanations = (yaml.safe_load(open(key, encoding="utf-8")) or {}).get("explanations") or {}
    print("\n# expectations/%s.ja.yaml" % os.path.basename(lesson_dir))
    print("translates: %s" % commit_of(key))
    print("explanations:")
    for qid, text in explanations.items():
        print("  %s: {en_sha: %s}" % (qid, sha(text)))


signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head or grep -m1
main()
