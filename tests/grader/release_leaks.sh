#!/bin/bash
# release_leaks.sh GRADER CHECKOUT: release the real course (grader release) into a temporary folder
# and search every file of it for the answers of every answer key, in clear text
# (release_leaks.py says how); fails naming each file that holds one.
set -u
GRADER=$1
SRC=$2
R=$(mktemp -d /tmp/wb-release-XXXXXX)
trap 'rm -rf "$R"' EXIT
rmdir "$R"
WB_ROOT=$SRC WB_STATE_DIR=$R.state NO_COLOR=1 "$GRADER" release "$R" || { echo "FAIL: grader release exited $?"; exit 1; }
rm -rf "$R.state"
python3 "$(dirname "$0")/release_leaks.py" "$SRC" "$R"
