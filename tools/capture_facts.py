"""capture_facts.py CAPTURE RANGE...: per occurrence of each named range (names compared up to
their first comma, as the grader does) in a capture file, its kernels, memcpys (kind, memory,
async) and API calls, and the range's host time. For probes run outside a lesson."""
import json
import sys


def key(name):
    return name.split(",")[0]


c = json.load(open(sys.argv[1]))
api = {a["correlation_id"]: a for a in c["api_calls"]}
for want in sys.argv[2:]:
    for r in c["ranges"]:
        if key(r["name"]) != want or r.get("end") is None:
            continue
        thread = r.get("thread")
        calls = [a for a in c["api_calls"] if a["start"] >= r["start"] and a["start"] <= r["end"]
                 and (thread is None or a.get("thread") == thread)]
        corr = {a["correlation_id"] for a in calls}
        kernels = [k["name"] for k in c["kernels"] if k["correlation_id"] in corr]
        copies = [(m["kind"], m.get("src_kind"), m.get("dst_kind"), m.get("async"), m["end"] - m["start"])
                  for m in c.get("memcpys", []) if m["correlation_id"] in corr]
        names = {}
        for a in calls:
            names[a["name"]] = names.get(a["name"], 0) + 1
        print("%s [%s]: %.1f us host; kernels %s; memcpys %s; api %s" % (
            want, r["name"], (r["end"] - r["start"]) / 1e3, kernels, copies, names))
