# i18n.sh: sourced by deps.sh. The scripts' messages in the grader's language (docs/i18n.md), from
# the grader's own catalog (grader/po/ja.po, text domain workbench) through gettext(1):
#
#   wb_say FORMAT [ARG...]   printf FORMAT, translated, with the ARGs, and a newline
#
# The language is chosen as the grader chooses it: --lang ja|en among the script's arguments
# (wb_lang_from_args "$@"), else LANGUAGE, LC_ALL, LC_MESSAGES, LANG (LANGUAGE only when a
# locale is named). Where ja_JP.UTF-8 is not installed, gettext(1) runs under another locale
# (wb_messages_locale) with LANGUAGE=ja, which picks the catalog all the same. The catalog is the build's
# (build/share/locale); on a fresh clone, before the first build, msgfmt compiles it there (when
# the gettext package is missing, the messages that say so are in English).

WB_SCRIPT_LANG=""

# ja or en, from the environment as gettext reads it.
wb_lang_from_env() {
    local locale=${LC_ALL:-${LC_MESSAGES:-${LANG:-}}} entry
    case $locale in "" | C | POSIX) echo en; return ;; esac
    local IFS=:
    for entry in ${LANGUAGE:-}; do
        case $entry in ja | ja_* | ja.*) echo ja; return ;; en | en_* | en.*) echo en; return ;; esac
    done
    case $locale in ja | ja_* | ja.*) echo ja ;; *) echo en ;; esac
}

# --lang ja|en or --lang=ja|en among the arguments, else the environment's language.
wb_lang_from_args() {
    WB_SCRIPT_LANG=$(wb_lang_from_env)
    while [ $# -gt 0 ]; do
        case $1 in
        --lang) [ $# -gt 1 ] && WB_SCRIPT_LANG=$2 ;;
        --lang=*) WB_SCRIPT_LANG=${1#--lang=} ;;
        --) break ;;
        esac
        shift
    done
}

# The folder holding ja/LC_MESSAGES/workbench.mo, compiled from grader/po/ja.po when the build has
# not made it yet; "" when there is none.
wb_catalog_dir() {
    local dir=${WB_LOCALEDIR:-$WB_ROOT/build/share/locale}
    local mo=$dir/ja/LC_MESSAGES/workbench.mo po=$WB_ROOT/grader/po/ja.po
    if [ -z "${WB_LOCALEDIR:-}" ] && { [ ! -f "$mo" ] || [ "$po" -nt "$mo" ]; } && command -v msgfmt >/dev/null; then
        mkdir -p "$(dirname "$mo")" && msgfmt -o "$mo" "$po" 2>/dev/null
    fi
    [ -f "$mo" ] && echo "$dir"
}

# The message translated: gettext(1) with LANGUAGE=ja under a locale that lets it read LANGUAGE.
# C.UTF-8 does on Debian 12; glibc 2.39 (Ubuntu 24.04) counts its built-in C.UTF-8 as "C" and
# translates nothing there, so another installed locale stands in (the grader chooses the same
# way, i18n.c). A message that comes back unchanged under each is printed as it is.
wb_gettext() {
    [ -n "$WB_SCRIPT_LANG" ] || WB_SCRIPT_LANG=$(wb_lang_from_env)
    local dir candidate text
    if [ "$WB_SCRIPT_LANG" = ja ] && command -v gettext >/dev/null && dir=$(wb_catalog_dir) && [ -n "$dir" ]; then
        for candidate in C.UTF-8 $(locale -a 2>/dev/null); do
            case $candidate in C | POSIX) continue ;; esac
            text=$(LANGUAGE=ja LC_ALL=$candidate TEXTDOMAINDIR=$dir gettext -d workbench -- "$1" 2>/dev/null)
            if [ -n "$text" ] && [ "$text" != "$1" ]; then
                printf '%s' "$text"
                return
            fi
        done
    fi
    printf '%s' "$1"
}

wb_say() {
    local format
    format=$(wb_gettext "$1")
    shift
    # shellcheck disable=SC2059 # the format is the message, translated
    printf "$format\n" "$@"
}
