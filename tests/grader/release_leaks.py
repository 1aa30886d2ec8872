#!/usr/bin/env python3
"""release_leaks.py CHECKOUT RELEASE: does a release of the course (grader release) hold any answer
of any answer key in clear text? Exit 1, naming each file and what it holds, when it does.

For every key CHECKOUT/expectations/NN_name.yaml (draft lessons' too):
  * an answer value as a key or a predictions file writes it: an entry `- id: ID` whose block
    holds one of the key's `fact: value` lines for that id (api_calls, kernels_named and
    memcpys_named entries included), in any text file of the release;
  * an explanation: its whole text, whitespace collapsed, inside any text file (also collapsed);
  * a Japanese explanation of NN_name.ja.yaml beside the key (docs/i18n.md): its whole text, every
    space and line break taken out (Japanese lines join without one), inside any text file (the same);
  * a sealed key for a lesson marked `draft: true` (the release leaves drafts out).
The keys are read with a small reader of the keys' own layout (no YAML library: CI has python3
only), which fails loudly on a key it cannot read rather than checking nothing.
"""
import os
import re
import sys


def read_key(path):
    """{id: [(fact, value)]}, {id: explanation} of one answer key."""
    answers, explanations = {}, {}
    lines = open(path, encoding="utf-8").read().split("\n")
    section, cur, parent, expl_id, expl = None, None, None, None, []
    for line in lines:
        if line.startswith("explanations:"):
            section = "explanations"
            continue
        if section == "explanations":
            m = re.match(r"^  ([a-z0-9-]+): \|\s*$", line)
            if m:
                if expl_id:
                    explanations[expl_id] = " ".join(expl)
                expl_id, expl = m.group(1), []
            elif line.startswith("    ") and expl_id:
                expl.append(line.strip())
            continue
        m = re.match(r"^\s*- id: ([a-z0-9-]+)\s*$", line)
        if m:
            cur, parent = m.group(1), None
            answers[cur] = []
            continue
        if cur is None:
            continue
        m = re.match(r"^(\s+)(\"[^\"]*\"|[A-Za-z_][^:]*): *(.*?)\s*$", line)
        if not m:
            continue
        indent, name, value = len(m.group(1)), m.group(2), m.group(3)
        if name in ("variant", "range", "rank"):
            continue
        if value == "":
            parent = name
        elif indent >= 10 and parent:
            answers[cur].append((name, value))
        else:
            parent = None
            answers[cur].append((name, value))
    if expl_id:
        explanations[expl_id] = " ".join(expl)
    if not answers or not explanations or not any(answers.values()):
        sys.exit("release_leaks: cannot read the answers and explanations of %s" % path)
    return answers, explanations


def read_translation(path):
    """{id: text} of the explanations of a key's translation NN_name.ja.yaml: each `text:` as a
    quoted string on its line, or a `|` or `>` block below it (a small reader for the layouts the
    course uses: id, then en_sha and text one level deeper, or a flow mapping on the id's line)."""
    texts, ident, block, indent = {}, None, None, 0
    for line in open(path, encoding="utf-8").read().split("\n") + [""]:
        if block is not None:
            if line.strip() == "" or len(line) - len(line.lstrip()) > indent:
                block.append(line.strip())
                continue
            texts[ident] = "".join(block)
            block = None
        m = re.match(r"^  ([a-z0-9-]+):", line)
        if m:
            ident = m.group(1)
        m = re.match(r'^(\s*).*\btext: *(?:"((?:[^"\\]|\\.)*)"|([|>][-+]?)\s*$)', line)
        if m and ident:
            if m.group(2) is not None:
                texts[ident] = m.group(2)
            else:
                block, indent = [], len(m.group(1))
    texts = {k: "".join(v.split()) for k, v in texts.items() if v.strip()}
    if not texts:
        sys.exit("release_leaks: cannot read the explanations of %s" % path)
    return texts


def text_files(root):
    for d, dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            data = open(p, "rb").read(8 << 20)
            if b"\0" in data:
                continue
            yield os.path.relpath(p, root), data.decode("utf-8", "replace")


def entries(text):
    """(id, block text) for every `- id: ID` entry of a YAML-like text."""
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"(?m)^\s*- id: *([a-z0-9-]+)\s*$", text)]
    for i, (pos, ident) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        yield ident, text[pos:end]


def main():
    checkout, release = sys.argv[1], sys.argv[2]
    keys = {}
    exp_dir = os.path.join(checkout, "expectations")
    for f in sorted(os.listdir(exp_dir)):
        if re.match(r"^[0-9][0-9]_[a-z0-9_]+\.yaml$", f):
            keys[f[:-5]] = read_key(os.path.join(exp_dir, f))
    if not keys:
        sys.exit("release_leaks: no answer keys in %s" % exp_dir)
    translations = {}
    for f in sorted(os.listdir(exp_dir)):
        m = re.match(r"^([0-9][0-9]_[a-z0-9_]+)\.ja\.yaml$", f)
        if m:
            translations[m.group(1)] = read_translation(os.path.join(exp_dir, f))
    problems = []
    files = list(text_files(release))
    collapsed = {rel: " ".join(t.split()) for rel, t in files}
    joined = {rel: "".join(t.split()) for rel, t in files}
    for lesson, texts in translations.items():
        for ident, expl in texts.items():
            for rel, text in joined.items():
                if expl in text:
                    problems.append("%s: %s's Japanese explanation of %s" % (rel, lesson, ident))
    for lesson, (answers, explanations) in keys.items():
        for rel, text in files:
            for ident, block in entries(text):
                for fact, value in answers.get(ident, []):
                    if re.search(r"(?m)^\s*%s: *%s\s*(#.*)?$" % (re.escape(fact), re.escape(value)), block):
                        problems.append("%s: %s's answer %s %s: %s" % (rel, lesson, ident, fact, value))
        for ident, expl in explanations.items():
            for rel, text in collapsed.items():
                if expl and expl in text:
                    problems.append("%s: %s's explanation of %s" % (rel, lesson, ident))
        lesson_yaml = os.path.join(checkout, "lessons", lesson, "lesson.yaml")
        draft = os.path.exists(lesson_yaml) and re.search(r"(?m)^draft: *true", open(lesson_yaml).read())
        sealed = os.path.join(release, "expectations", lesson + ".sealed.json")
        if draft and os.path.exists(sealed):
            problems.append("expectations/%s.sealed.json: a sealed key for a draft lesson" % lesson)
    for p in sorted(set(problems)):
        print("LEAK " + p)
    print("release_leaks: %d keys (%d Japanese explanations), %d files of the release read, %d leaks" %
          (len(keys), sum(len(t) for t in translations.values()), len(files), len(set(problems))))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
