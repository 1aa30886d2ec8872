#!/usr/bin/env python3
"""key_from_replay.py KEY.yaml VERIFY_OUTPUT: sets each answer that `grader verify --replay`
reported as differing ("differs  ID FACT  answer A, captured C") to the captured value, in place,
editing only that number (comments, order and explanations stay as written). Prints every change.
For a new question's first values: the key still has to hold live afterwards (verify --repeat).
Exit status: 0 (changes or none), 2 when a reported fact is not in the key."""
import re
import sys

DIFF = re.compile(r"^\s*differs\s+(\S+)\s+(\S+)\s+answer ([\w.]+), captured ([\w.]+)")


def set_fact(lines, qid, fact, value):
    start = next((i for i, l in enumerate(lines) if re.match(rf"^\s*- id: {re.escape(qid)}\s*$", l)), None)
    if start is None:
        return False
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^\s*- id: ", lines[i]) or
                re.match(r"^\S", lines[i])), len(lines))
    group, _, name = fact.partition(".")
    if not name:
        pat = re.compile(rf"^(\s*{re.escape(fact)}:\s*)[\w.]+(\s*)$")
        rng = range(start, end)
    else:  # nested: the line under "group:"
        g = next((i for i in range(start, end) if re.match(rf"^\s*{re.escape(group)}:\s*$", lines[i])), None)
        if g is None:
            return False
        pat = re.compile(rf"^(\s*{re.escape(name)}:\s*)[\w.]+(\s*)$")
        rng = range(g + 1, end)
    for i in rng:
        m = pat.match(lines[i].rstrip("\n"))
        if m:
            lines[i] = f"{m.group(1)}{value}{m.group(2)}\n"
            return True
    return False


def main():
    key, log = sys.argv[1], sys.argv[2]
    lines = open(key).readlines()
    bad = 0
    for l in open(log):
        m = DIFF.match(l)
        if not m:
            continue
        qid, fact, ans, cap = m.groups()
        if set_fact(lines, qid, fact, cap):
            print(f"{qid} {fact}: {ans} -> {cap}")
        else:
            print(f"{qid} {fact}: not found in {key}", file=sys.stderr)
            bad = 1
    open(key, "w").writelines(lines)
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
