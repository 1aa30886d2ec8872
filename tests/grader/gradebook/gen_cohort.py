#!/usr/bin/env python3
"""gen_cohort.py: a synthetic cohort of learners' submissions with known answer patterns.

    gen_cohort.py GRADER SRC OUT_DIR LEARNERS [SEED]

For every learners' lesson of the checkout SRC (drafts left out), the facts and their captured
values come from `grader check --replay --format json` of the lesson's answer key (run once per
lesson). Then each learner, from a fixed seed, answers every fact:

  - ability a = (k % 10) / 9 for learner k; a fact is right at the first try with probability
    0.15 + 0.8 a - 0.3 d (d: the fact's difficulty, drawn once per fact), so the facts
    discriminate; two facts per lesson break the pattern on purpose:
      the lesson's first fact     everyone right       (flagged: not discriminating)
      the lesson's second fact    right 1 time in 10, at random, whatever the ability
                                  (flagged: most missed, and not discriminating)
  - a wrong count is actual + 1, + 2, - 1 or 2 actual + 1 (weights 5:2:2:1), so the most common
    wrong answer is known; a wrong bound is one of the other two; a right time lies within half
    the tolerance, a wrong one beyond it (decimals: one);
  - the latest try corrects 70% of the wrong first answers;
  - learner k with k % 50 == 7 revealed the trace before grading, k % 50 == 13 graded live on a
    GPU the course has no recording or key for (sm_80: unverified), k % 50 == 21 graded live on
    the H200, and k % 7 == 3 never did the course's last lesson.

Writes OUT_DIR/submissions/learner-NNN.json (as grader submit writes them) and OUT_DIR/truth.json:
what each learner answered and whether it was right, for check_report.py. The course's identity
is computed here from its files, independently of the grader.
"""
import hashlib
import json
import os
import random
import re
import subprocess
import sys


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def course_lessons(src):
    names = []
    for name in sorted(os.listdir(os.path.join(src, "lessons"))):
        y = os.path.join(src, "lessons", name, "lesson.yaml")
        if not re.match(r"^\d\d_", name) or not os.path.isfile(y):
            continue
        if re.search(r"^draft:\s*true\s*$", open(y).read(), re.M):
            continue
        names.append(name)
    return names


def lesson_identity(src, name):
    d = os.path.join(src, "lessons", name)
    text = "lesson.yaml %s\n" % sha256_file(os.path.join(d, "lesson.yaml"))
    traces = os.path.join(d, "traces")
    if os.path.isdir(traces):
        for t in sorted(os.listdir(traces)):
            if t.endswith(".json") and not t.startswith("."):
                text += "traces/%s %s\n" % (t, sha256_file(os.path.join(traces, t)))
    return hashlib.sha256(text.encode()).hexdigest()


def key_answers(src, name):
    """The first architecture's predictions list of expectations/NAME.yaml, as a learner's file."""
    lines = open(os.path.join(src, "expectations", name + ".yaml")).read().split("\n")
    out, on = ["lesson: %s" % name, "predictions:"], False
    for line in lines:
        if line.startswith("    predictions:"):
            on = True
            continue
        if on and (re.match(r"^[^ ]", line) or re.match(r"^ {0,4}[a-z]", line)):
            break
        if on:
            out.append(line[4:])
    return "\n".join(out) + "\n"


def captured_facts(grader, src, name, work):
    path = os.path.join(work, name + ".answers.yaml")
    open(path, "w").write(key_answers(src, name))
    env = dict(os.environ, WB_ROOT=src, WB_STATE_DIR=os.path.join(work, "gen-state"), WB_FORCE_REPLAY="1", NO_COLOR="1")
    r = subprocess.run([grader, "check", name, "--predictions", path, "--replay", "--format", "json"],
                       cwd=src, env=env, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit("grader check %s: exit %d: %s" % (name, r.returncode, r.stderr))
    return json.loads(r.stdout)["facts"]


def kind_of(label):
    if label == "bound":
        return "bound"
    if label in ("gpu_us", "wall_us", "overlap_us"):
        return "time"
    return "count"


BOUNDS = ["overhead", "memory", "compute"]


def answer(rng, fact, right):
    """A predicted value that is right or wrong, as the learner would have typed it."""
    kind, actual = kind_of(fact["fact"]), fact["actual"]
    if kind == "bound":
        if right and actual is not None:
            return actual
        return rng.choice([b for b in BOUNDS if b != actual])
    if kind == "time":
        tol = fact["tolerance"]
        if actual is None or actual == 0:  # no occurrence, or nothing overlapped: only 0 is right
            return 0 if right and actual == 0 else round(10 + 90 * rng.random(), 1)
        if right:
            p = round(actual * (1 + rng.uniform(-tol / 2, tol / 2)), 1)
            assert abs(p - actual) <= tol * actual
            return p
        while True:
            s = rng.choice([-1, 1])
            m = tol + 0.05 + 0.8 * rng.random()
            p = round(actual * (1 + s * m), 1)
            if p > 0 and abs(p - actual) > tol * actual:
                return p
    if actual is None:  # differs by occurrence: no answer is right
        return rng.choice([1, 2, 3])
    if right:
        return actual
    options = [actual + 1, actual + 2, actual - 1 if actual > 0 else actual + 3, 2 * actual + 1]
    return rng.choices(options, weights=[5, 2, 2, 1])[0]


def main():
    grader, src, out, n = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 23
    os.makedirs(os.path.join(out, "submissions"), exist_ok=True)
    version = subprocess.run([grader, "--version"], capture_output=True, text=True).stdout.split()[-1]
    lessons = course_lessons(src)
    ids = {name: "sha256:" + lesson_identity(src, name) for name in lessons}
    course_id = "sha256:" + hashlib.sha256(
        "".join("%s %s\n" % (name, ids[name][7:]) for name in lessons).encode()).hexdigest()
    facts = {name: captured_facts(grader, src, name, out) for name in lessons}
    rng = random.Random(seed)
    difficulty = {(name, f["id"], f["fact"]): rng.random() for name in lessons for f in facts[name]}
    truth = {"course": course_id, "lessons": lessons, "facts": {}, "learners": []}
    for name in lessons:
        truth["facts"][name] = [{"question": f["id"], "fact": f["fact"], "kind": kind_of(f["fact"]),
                                 "actual": f["actual"]} for f in facts[name]]
    for k in range(n):
        a = (k % 10) / 9
        learner = "Learner %03d" % k
        live = k % 50 in (13, 21)
        arch, gpu = ("sm_80", "NVIDIA A100-SXM4-80GB") if k % 50 == 13 else ("sm_90", "NVIDIA H200")
        sub_lessons, t_lessons = [], {}
        for li, name in enumerate(lessons):
            if k % 7 == 3 and li == len(lessons) - 1:
                continue
            questions, t_facts = {}, []
            for j, f in enumerate(facts[name]):
                if j == 0:
                    p = 1.0
                elif j == 1:
                    p = 0.1
                else:
                    p = min(1.0, max(0.0, 0.15 + 0.8 * a - 0.3 * difficulty[(name, f["id"], f["fact"])]))
                right = rng.random() < p
                if f["actual"] is None:
                    right = False
                first = answer(rng, f, right)
                latest_right = right or rng.random() < 0.7
                if f["actual"] is None:
                    latest_right = False
                latest = first if latest_right == right else answer(rng, f, latest_right)

                def grading(value, ok, day):
                    return {"predicted": value, "actual": f["actual"], "right": ok,
                            "graded_at": "2026-11-%02dT10:%02d:00Z" % (day, li), "source": "live" if live else "replay",
                            "arch": arch, "gpu": gpu}

                q = questions.setdefault(f["id"], {"id": f["id"], "variant": f["variant"], "range": f["range"], "rank": -1,
                                                   "facts": []})
                q["facts"].append({"fact": f["fact"], "first": grading(first, right, 10), "latest": grading(latest, latest_right, 12)})
                t_facts.append({"question": f["id"], "fact": f["fact"], "first": first, "first_right": right,
                                "latest": latest, "latest_right": latest_right})
            qs = sorted(questions.values(), key=lambda q: q["id"])
            for q in qs:
                q["facts"].sort(key=lambda x: x["fact"])
            revealed = k % 50 == 7
            sub_lessons.append({"lesson": name, "state": "graded", "attempts": 2, "revealed_before_grading": revealed,
                                "questions": qs})
            t_lessons[name] = {"revealed": revealed, "unverified": k % 50 == 13, "facts": t_facts}
        submission = {"format": "gpu-workbench-submission", "version": 1, "grader_version": version, "learner": learner,
                      "course": {"id": course_id, "lessons": {l["lesson"]: ids[l["lesson"]] for l in sub_lessons}},
                      "lessons": sub_lessons}
        with open(os.path.join(out, "submissions", "learner-%03d.json" % k), "w") as f:
            json.dump(submission, f, indent=1, sort_keys=True)
        truth["learners"].append({"name": learner, "lessons": t_lessons})
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f)


if __name__ == "__main__":
    main()
