# lib.sh: sourced by the tests that replay every lesson's recording through `grader check` as a
# learner would. On top of the CLI tests' helpers (../cli/lib.sh: GRADER, SRC, a temporary WORK,
# fail, contains, finish), the course is the checkout's own lessons and the grader's state goes
# to WORK, so the checkout is never written.
#
#   for_each_recording FUNCTION   calls FUNCTION RECORDING LESSON_DIR LESSON ANSWERS for every
#                                 lessons/*/traces/sm_*.json found; ANSWERS is a predictions file
#                                 holding the answer key's values (its first architecture's list)
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export WB_ROOT=$SRC WB_STATE_DIR=$WORK/state

for_each_recording() {
    local fn=$1 recording dir lesson answers n=0
    for recording in "$SRC"/lessons/*/traces/sm_*.json; do
        [ -f "$recording" ] || continue
        dir=$(dirname "$(dirname "$recording")")
        lesson=$(basename "$dir")
        answers=$WORK/$lesson.answers.yaml
        { echo "lesson: $lesson"; echo "predictions:"
          awk '/^    predictions:/{on=1;next} on && /^[^ ]/{exit} on && /^ {0,4}[a-z]/{exit} on' \
              "$SRC/expectations/$lesson.yaml" | sed 's/^    //'; } > "$answers"
        n=$((n + 1))
        "$fn" "$recording" "$dir" "$lesson" "$answers"
    done
    [ "$n" -gt 0 ] || fail "no lesson recordings found under $SRC/lessons"
}
