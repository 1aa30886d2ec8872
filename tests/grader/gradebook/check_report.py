#!/usr/bin/env python3
"""check_report.py: every figure of `grader gradebook report --format json` computed again.

    check_report.py TRUTH.json REPORT.json GRADEBOOK.db

From what gen_cohort.py says each learner answered (TRUTH), with the rules of docs/gradebook.md
and Python's json and sqlite3 modules only (none of the grader's code): learners, cohorts, each
learner's first and latest scores, per fact the learners, the share right, the discrimination
index, the wrong answers, the quartiles of the error and the flags, the same per question, and
the gradebook's tables (rows of learners, attempts, the regrade kept beside the submitted result).
Prints each difference and exits 1 when there is one.
"""
import json
import math
import sqlite3
import sys

MIN_LEARNERS, MOST_MISSED, LOW_R, WRONG = 5, 0.5, 0.2, 3
problems = []


def differ(where, got, want):
    if want is None or got is None:
        ok = want is None and got is None
    elif isinstance(want, float) or isinstance(got, float):
        ok = math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
    else:
        ok = got == want
    if not ok:
        problems.append("%s: report %r, expected %r" % (where, got, want))


def pearson(xs, ys):
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 * n or syy <= 1e-12 * n:
        return None
    return sxy / math.sqrt(sxx * syy)


def quantile(v, q):
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    if lo + 1 >= len(v):
        return v[-1]
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo])


def flags(n, share, r):
    out = []
    if n >= MIN_LEARNERS:
        if share < MOST_MISSED:
            out.append("most-missed")
        if r is None or r < LOW_R:
            out.append("not-discriminating")
    return out


def text(value, kind):
    """A predicted value as the gradebook stores it: counts as integers, times without trailing zeros."""
    if kind == "time":
        s = "%.6f" % value
        return s.rstrip("0").rstrip(".")
    return str(value)


def main():
    truth = json.load(open(sys.argv[1]))
    report = json.load(open(sys.argv[2]))
    db = sqlite3.connect(sys.argv[3])
    learners = truth["learners"]
    differ("learners", report["learners"], len(learners))
    differ("submissions", report["submissions"], len(learners))
    differ("course", report["course"], truth["course"])
    lessons = {l["lesson"]: l for l in report["lessons"]}
    differ("lessons", sorted(lessons), sorted(truth["lessons"]))
    for name in truth["lessons"]:
        rl = lessons.get(name)
        if rl is None:
            continue
        kinds = {(f["question"], f["fact"]): f["kind"] for f in truth["facts"][name]}
        actual = {(f["question"], f["fact"]): f["actual"] for f in truth["facts"][name]}
        took = [(l["name"], l["lessons"][name]) for l in learners if name in l["lessons"]]
        # the learners' table
        want_rows = sorted(took, key=lambda t: t[0].encode())
        differ(name + " learner rows", [x["name"] for x in rl["learners"]], [t[0] for t in want_rows])
        for x, (who, tl) in zip(rl["learners"], want_rows):
            where = "%s %s" % (name, who)
            differ(where + " first", x["first"], {"right": sum(f["first_right"] for f in tl["facts"]), "total": len(tl["facts"])})
            differ(where + " latest", x["latest"], {"right": sum(f["latest_right"] for f in tl["facts"]), "total": len(tl["facts"])})
            differ(where + " status", x["status"], "unverified" if tl["unverified"] else "regraded")
            differ(where + " revealed", x["revealed_before_grading"], tl["revealed"])
        cohort = [(who, tl) for who, tl in took if not tl["revealed"] and not tl["unverified"]]
        differ(name + " cohort", rl["cohort"], len(cohort))
        # the cohort's first tries: learner -> {(question, fact): (right, predicted)}
        rows = [{(f["question"], f["fact"]): (1 if f["first_right"] else 0, f["first"]) for f in tl["facts"]} for _, tl in cohort]
        rq = {q["id"]: q for q in rl["questions"]}
        for qid in sorted({q for q, _ in kinds}):
            q = rq.get(qid)
            if q is None:
                problems.append("%s: question %s missing from the report" % (name, qid))
                continue
            mine = [k for k in kinds if k[0] == qid]
            rf = {f["fact"]: f for f in q["facts"]}
            for key in mine:
                where = "%s %s %s" % (name, qid, key[1])
                f = rf.get(key[1])
                if f is None:
                    problems.append(where + ": missing from the report")
                    continue
                have = [r for r in rows if key in r]
                n = len(have)
                right = sum(r[key][0] for r in have)
                share = right / n if n else None
                xs, ys = [], []
                for r in have:
                    others = [v[0] for k, v in r.items() if k != key]
                    if others:
                        xs.append(r[key][0])
                        ys.append(sum(others) / len(others))
                disc = pearson(xs, ys)
                differ(where + " learners", f["learners"], n)
                differ(where + " right", f["right"], right)
                differ(where + " right_share", f["right_share"], share)
                differ(where + " discrimination", f["discrimination"], disc)
                differ(where + " flags", f["flags"], flags(n, share, disc))
                if kinds[key] == "time":
                    a = actual[key]
                    e = sorted((r[key][1] - a) / a for r in have) if a else []
                    want = {"n": len(e), "q1": quantile(e, 0.25) if e else None,
                            "median": quantile(e, 0.5) if e else None, "q3": quantile(e, 0.75) if e else None}
                    for part in ("n", "q1", "median", "q3"):
                        differ(where + " error " + part, f["error_share"][part], want[part])
                else:
                    tally = {}
                    for r in have:
                        if not r[key][0]:
                            t = text(r[key][1], kinds[key])
                            tally[t] = tally.get(t, 0) + 1
                    want = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0].encode()))[:WRONG]
                    differ(where + " wrong answers", [(w["answer"], w["count"]) for w in f["wrong_answers"]], want)
            # the question
            xs, ys, shares, all_right = [], [], [], 0
            for r in rows:
                inside = [v[0] for k, v in r.items() if k[0] == qid]
                outside = [v[0] for k, v in r.items() if k[0] != qid]
                if not inside:
                    continue
                s = sum(inside) / len(inside)
                shares.append(s)
                all_right += sum(inside) == len(inside)
                if outside:
                    xs.append(s)
                    ys.append(sum(outside) / len(outside))
            n = len(shares)
            where = "%s question %s" % (name, qid)
            share = all_right / n if n else None
            disc = pearson(xs, ys)
            differ(where + " learners", q["learners"], n)
            differ(where + " all_right_share", q["all_right_share"], share)
            differ(where + " mean_share", q["mean_share"], sum(shares) / n if n else None)
            differ(where + " discrimination", q["discrimination"], disc)
            differ(where + " flags", q["flags"], flags(n, share, disc))
    # the gradebook's own tables
    n_attempts = sum(2 * len(tl["facts"]) for l in learners for tl in l["lessons"].values())
    differ("rows of learners", db.execute("SELECT count(*) FROM learners").fetchone()[0], len(learners))
    differ("rows of attempts", db.execute("SELECT count(*) FROM attempts").fetchone()[0], n_attempts)
    differ("regrades that differ from the submitted result",
           db.execute("SELECT count(*) FROM attempts WHERE right != submitted_right").fetchone()[0], 0)
    differ("attempts graded against nothing",
           db.execute("SELECT count(*) FROM attempts WHERE graded_against LIKE 'nothing%'").fetchone()[0],
           sum(2 * len(tl["facts"]) for l in learners for tl in l["lessons"].values() if tl["unverified"]))
    differ("schema version", db.execute("PRAGMA user_version").fetchone()[0], 2)
    differ("integrity", db.execute("PRAGMA integrity_check").fetchone()[0], "ok")
    # the pattern the generator built is what the report flags
    for name in truth["lessons"]:
        q = lessons[name]["questions"]
        first = next(f for f in truth["facts"][name])
        second = truth["facts"][name][1]
        for want, fact, flag in ((first, "not-discriminating", None), (second, "most-missed", None)):
            got = next((f for x in q if x["id"] == want["question"] for f in x["facts"] if f["fact"] == want["fact"]), None)
            if got and fact not in got["flags"] and want["actual"] is not None:
                problems.append("%s %s %s: the generator made it %s, the report does not flag it" %
                                (name, want["question"], want["fact"], fact))
    for p in problems[:50]:
        print("FAIL:", p)
    if problems:
        print("%d figure(s) differ" % len(problems))
        sys.exit(1)
    print("every figure of the report agrees (%d lessons, %d learners)" % (len(truth["lessons"]), len(learners)))


if __name__ == "__main__":
    main()
