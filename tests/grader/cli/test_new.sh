#!/bin/bash
# test_new.sh GRADER: `grader new` makes a lesson folder the rest of the grader reads (template,
# lint, course order), whose program compiles; it never overwrites anything. Also `grader
# template`, which new uses.
. "$(dirname "$0")/lib.sh"
make_course
cd "$WORK"

out=$("$GRADER" new attention --title "softmax(Q K^T) V: how many kernels?" 2>&1); rc=$?
expect_rc 0 $rc "grader new"
L=lessons/02_attention
for f in main.cu CMakeLists.txt lesson.yaml predictions.template.yaml README.md; do
    [ -f $L/$f ] || fail "$L/$f missing"
    contains "$out" "$L/$f" "lists $f"
done
[ -f expectations/02_attention.yaml ] || fail "answer key missing"
grep -q "status: unverified" expectations/02_attention.yaml || fail "the key is marked unverified"
grep -qx "wb_add_lesson(lesson_02_attention SOURCES main.cu)" $L/CMakeLists.txt || fail "CMakeLists.txt"
grep -qx "<!-- reveal -->" $L/README.md || fail "README has the reveal line"
grep -q "wb_lesson_main(&spec" $L/main.cu && grep -q 'nvtxRangePushA("axpy")' $L/main.cu || fail "main.cu: the lessons' shared frame and its own range"

# the course sees it, in order; its template is the one grader template makes
out=$("$GRADER" list 2>&1)
contains "$out" "02_attention" "listed"
contains "$out" "softmax(Q K^T) V: how many kernels?" "with its title"
diff <("$GRADER" template 02_attention) $L/predictions.template.yaml >/dev/null || fail "predictions.template.yaml is grader template's output"

# lint: unfinished (no answers, no recording, explanation TODO), nothing else
out=$("$GRADER" lint 02_attention 2>&1); rc=$?
expect_rc 1 $rc "lint of a new lesson"
contains "$out" "[key-no-verified]" "no verified answers yet"
contains "$out" "[recording-missing]" "no recording yet"
contains "$out" "[explanation-todo]" "explanation to write"
contains "$out" "[readme-todo]" "the README's TODO"
[ "$(grep -c 'error:' <<<"$out")" = 4 ] || fail "lint of a new lesson: only what it cannot have yet:
$out"

# never overwrite
sum=$(cat $L/* expectations/02_attention.yaml | md5sum)
out=$("$GRADER" new attention 2>&1); rc=$?
expect_rc 2 $rc "the same name again"
contains "$out" "lessons/02_attention exists" "says so"
[ "$(cat $L/* expectations/02_attention.yaml | md5sum)" = "$sum" ] || fail "an existing lesson was changed"
"$GRADER" new other --number 2 >/dev/null 2>&1; expect_rc 2 $? "a number that is taken"
"$GRADER" new 05_x --number 6 >/dev/null 2>&1; expect_rc 2 $? "two numbers"
"$GRADER" new Bad-Name >/dev/null 2>&1; expect_rc 2 $? "a bad name"
"$GRADER" new x --number 0 >/dev/null 2>&1; expect_rc 2 $? "--number 0"
"$GRADER" new >/dev/null 2>&1; expect_rc 2 $? "no name"
[ ! -e lessons/02_other ] && [ ! -e lessons/05_x ] && [ ! -e lessons/03_x ] || fail "a refused lesson left files"
"$GRADER" new 07_layernorm >/dev/null 2>&1; expect_rc 0 $? "number in the name"
[ -d lessons/07_layernorm ] || fail "07_layernorm"
out=$("$GRADER" lint 07_layernorm 2>&1)
contains "$out" "[lesson-todo]" "a default title is a TODO lint reports"

# template --write never replaces a file
out=$("$GRADER" template 02_attention --write 2>&1); rc=$?
expect_rc 2 $rc "template --write over a file"
contains "$out" "exists already" "says so"
rm $L/predictions.template.yaml
"$GRADER" template 02_attention --write >/dev/null 2>&1; expect_rc 0 $? "template --write"
[ -f $L/predictions.template.yaml ] || fail "template --write wrote nothing"
"$GRADER" template >/dev/null 2>&1; expect_rc 2 $? "template without a lesson"
"$GRADER" template 99_none >/dev/null 2>&1; expect_rc 2 $? "template of no lesson"

# the skeleton compiles with the project's flags (no GPU needed to compile)
NVCC=${WB_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -x "$NVCC" ]; then
    "$NVCC" -std=c++17 -arch=sm_90 -c -I"$SRC/common" $L/main.cu -o "$WORK/main.o" -Xcompiler -Wall,-Wextra,-Werror ||
        fail "the skeleton does not compile"
else
    echo "note: no nvcc, the skeleton's compile check is skipped"
fi
out=$("$GRADER" new --help 2>&1); expect_rc 0 $? "--help"
contains "$out" "usage: grader new NAME" "--help"
finish
