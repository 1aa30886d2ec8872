#!/usr/bin/env bash
# kind_names.sh SRC: no code outside the table of fact kinds names a kind (docs/fact-kinds.md).
#
# SRC is grader/src. The kinds are the enumerators of wb_fact_kind (predict/predictions.h) and the
# names of their rows (predict/fact_kinds.c). Only the table, its family files (predict/facts_*.c)
# and the headers that declare them may use an enumerator or compare a text with a kind's name;
# everywhere else a kind's behaviour is reached through its row, so that adding a kind is one
# family file and one row. Exit 0 when that holds, 1 with one line per breach otherwise.
set -u
src=$1
fail=0

enumerators=$(sed -n '/^typedef enum {/,/} wb_fact_kind;/p' "$src/predict/predictions.h" | grep -o 'WB_FACT_[A-Z_]*' | sort -u)
names=$(grep -o '^ *{WB_FACT_[A-Z_]*, *"[a-z_]*"' "$src/predict/fact_kinds.c" | grep -o '"[a-z_]*"' | tr -d '"')
[[ -n $enumerators && -n $names ]] || { echo "kind_names: found no kinds in $src/predict (predictions.h, fact_kinds.c)"; exit 1; }
enum_re=$(echo $enumerators | tr ' ' '|')
name_re=$(echo $names | tr ' ' '|')

files=()
for file in "$src"/*/*.[ch]; do
    case ${file#"$src"/} in
        predict/fact_kinds.[ch] | predict/facts_*.c | predict/fact_family.h | predict/predictions.h) continue ;;
        # below the table: a capture's own sections ("api_calls": [...]) are no facts
        base/* | capture/*) continue ;;
    esac
    files+=("$file")
done
{
    # an enumerator of a kind, as a whole word
    grep -nwE "$enum_re" "${files[@]}" | sed 's|$|  (a kind by its enumerator: use its row, fact_kinds.h)|'
    # a text compared with a kind's name ("bound", "api_calls." ...)
    grep -nE "str(n)?(case)?cmp\\([^;]*\"($name_re)\\.?\"" "${files[@]}" |
        sed 's|$|  (a kind by its name: wb_fact_kind_of_label gives its row)|'
} | sed "s|^$src/|kind_names: |" > "${TMPDIR:-/tmp}/kind_names.$$"
if [[ -s ${TMPDIR:-/tmp}/kind_names.$$ ]]; then cat "${TMPDIR:-/tmp}/kind_names.$$"; fail=1; fi
rm -f "${TMPDIR:-/tmp}/kind_names.$$"
exit $fail
