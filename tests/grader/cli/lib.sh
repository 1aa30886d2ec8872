# lib.sh: sourced by the CLI tests of the course commands (test_<command>.sh GRADER). Each test
# runs the grader as a learner or an instructor would, on a fresh small course in a temporary
# folder (never on tracked files), and checks exit codes and output.
#
# make_course builds $WORK with two lessons around the probe's H200 recording:
#   lessons/00_probe   a complete lesson (lesson.yaml whose ranges and variant arguments are read
#                      from the recording, the template, probe.cu, README, CMakeLists, recording, answer key
#                      by construction of probe.cu): grader lint finds it clean
#   lessons/01_two     the same program under another name, with a recording but no answer key
set -u
GRADER=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=${WB_SOURCE_DIR:?WB_SOURCE_DIR must name the checkout (ctest sets it)}
PROBE_REC=$SRC/tests/grader/probe/lessons/00_probe/traces/sm_90.json
WORK=$(mktemp -d /tmp/wb-cli-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export NO_COLOR=1 WB_FORCE_REPLAY=1 WB_ROOT=$WORK WB_STATE_DIR=$WORK/.workbench
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_rc() { [ "$1" = "$2" ] || fail "$3: exit $2, expected $1"; } # want got what
# Messages wrap at the terminal's width (80 columns off a terminal): text is also looked for
# with the output's lines joined again (runs of spaces and newlines as one space).
squash() { printf '%s' "$1" | tr -s ' \r\n' '   '; }
contains() { grep -qF -- "$2" <<<"$1" || grep -qF -- "$(squash "$2")" <<<"$(squash "$1")" || fail "$3: output lacks '$2'"; }
lacks() { ! grep -qF -- "$2" <<<"$1" && ! grep -qF -- "$(squash "$2")" <<<"$(squash "$1")" || fail "$3: output shows '$2'"; }
finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    echo "all checks passed"
    exit 0
}

# lesson_yaml NAME: lesson.yaml for a lesson made of the probe recording
lesson_yaml() {
    python3 - "$PROBE_REC" "$1" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
out = ['lesson: %s' % sys.argv[2], 'title: "probe: a program with a known trace"', 'binary: wb_probe', 'variants:']
for run in rec["runs"]:
    out.append('  - name: %s' % run["variant"])
    out.append('    args: [%s]' % ", ".join(json.dumps(a) for a in run["args"]))
names = []
for run in rec["runs"]:
    for r in run["capture"]["ranges"]:
        if r["kind"] == "range" and r.get("domain") is None and r["name"] not in names:
            names.append(r["name"])
out.append('ranges: [%s]' % ", ".join(names))
out.append('''questions:
  - id: two-kernels
    variant: eager
    range: two_kernels
    facts: [kernels, api_calls.cudaLaunchKernel, kernels_named.wb_probe_scale]
    ask: "How many kernels do two launches make?"
    hints: ["Count the <<<>>>.", "Each <<<>>> is one cudaLaunchKernel."]
  - id: graph-kernels
    variant: graph
    range: two_kernels
    facts: [kernels, api_calls.cudaGraphLaunch]
    ask: "And when the two launches are replayed from a graph?"
  - id: memset
    variant: eager
    range: memset
    facts: [memsets, kernels]
    ask: "What does one cudaMemsetAsync put on the GPU?"
    hints: ["A memset is not a kernel."]
  - id: gemm
    variant: eager
    range: gemm
    facts: [gemms]
    ask: "How many matrix multiplies does one cublasGemmEx run?"''')
print("\n".join(out))
PY
}

make_course() {
    local l
    for l in 00_probe 01_two; do
        mkdir -p "$WORK/lessons/$l/traces"
        lesson_yaml $l >"$WORK/lessons/$l/lesson.yaml"
        python3 - "$PROBE_REC" "$l" "$WORK/lessons/$l/traces/sm_90.json" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
rec["lesson"] = sys.argv[2]
json.dump(rec, open(sys.argv[3], "w"))
PY
        "$GRADER" template "$WORK/lessons/$l" --write >/dev/null || fail "grader template --write $l"
        printf '# %s\n\nPredict.\n\n<!-- reveal -->\n\nWhy.\n' $l >"$WORK/lessons/$l/README.md"
        echo "wb_add_lesson(wb_probe SOURCES probe.cu)" >"$WORK/lessons/$l/CMakeLists.txt"
        cp "$SRC/tests/grader/probe/lessons/00_probe/probe.cu" "$WORK/lessons/$l/"
    done
    cp -r "$SRC/common" "$WORK/" # the shared helpers (the step harness names ranges lint looks for)
    mkdir -p "$WORK/expectations"
    cat >"$WORK/expectations/00_probe.yaml" <<'Y'
lesson: 00_probe
architectures:
  sm_90:
    status: verified
    verified_on: "by construction (probe.cu)"
    predictions:
      - id: two-kernels
        variant: eager
        range: two_kernels
        kernels: 2
        kernels_named: {wb_probe_scale: 2}
        api_calls: {cudaLaunchKernel: 2}
      - id: graph-kernels
        variant: graph
        range: two_kernels
        kernels: 2
        api_calls: {cudaGraphLaunch: 1}
      - id: memset
        variant: eager
        range: memset
        memsets: 1
        kernels: 0
      - id: gemm
        variant: eager
        range: gemm
        gemms: 1
explanations:
  two-kernels: "Two launches, two kernels."
  graph-kernels: "One cudaGraphLaunch replays both."
  memset: "A memset is a GPU operation of its own, not a kernel."
  gemm: "cuBLAS runs one nvjet kernel."
Y
}

# right_predictions FILE LESSON: every answer of the key above, as a learner's file
right_predictions() {
    cat >"$1" <<Y
lesson: $2
predictions:
  - id: two-kernels
    variant: eager
    range: two_kernels
    kernels: 2
    api_calls: {cudaLaunchKernel: 2}
    kernels_named: {wb_probe_scale: 2}
  - id: graph-kernels
    variant: graph
    range: two_kernels
    kernels: 2
    api_calls: {cudaGraphLaunch: 1}
  - id: memset
    variant: eager
    range: memset
    memsets: 1
    kernels: 0
  - id: gemm
    variant: eager
    range: gemm
    gemms: 1
Y
}
