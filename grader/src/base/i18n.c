/* i18n.c: see i18n.h. */
#define _GNU_SOURCE
#include "i18n.h"
#include "paths.h"

#include <dirent.h>
#include <libintl.h>
#include <locale.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char chosen[8] = "en";
static char locale_dir[4200];

/* The language part of a locale or LANGUAGE entry: "ja_JP.UTF-8" -> "ja". */
static void language_of(const char *name, char *buf, size_t cap) {
    size_t n = strcspn(name, "_.@:");
    snprintf(buf, cap, "%.*s", (int)n, name);
}

static int is_c_locale(const char *name) { return !name || !*name || !strcmp(name, "C") || !strcmp(name, "POSIX"); }

/* The locale gettext's LC_MESSAGES would use: LC_ALL, else LC_MESSAGES, else LANG. */
static const char *messages_locale(void) {
    const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return v;
    }
    return NULL;
}

/* The first language of the environment that has a catalog here ("ja"), else "en". LANGUAGE is a
 * list of preferences, read (as gettext reads it) only when a locale other than C is named. */
static void language_from_environment(char *buf, size_t cap) {
    const char *locale = messages_locale();
    snprintf(buf, cap, "en");
    if (is_c_locale(locale)) return;
    const char *list = getenv("LANGUAGE");
    char lang[16];
    if (list && *list) {
        for (const char *p = list; *p; p += strcspn(p, ":"), p += *p == ':') {
            language_of(p, lang, sizeof lang);
            if (!strcmp(lang, "ja") || !strcmp(lang, "en")) return (void)snprintf(buf, cap, "%s", lang);
        }
    }
    language_of(locale, lang, sizeof lang);
    if (!strcmp(lang, "ja")) snprintf(buf, cap, "ja");
}

static void find_locale_dir(void) {
    char probe[4400], exe[4096];
    const char *env = getenv("WB_LOCALEDIR");
    locale_dir[0] = '\0';
    if (env && *env) {
        snprintf(locale_dir, sizeof locale_dir, "%s", env);
        return;
    }
    if (wb_exe_dir(exe, sizeof exe) != 0) return;
    snprintf(probe, sizeof probe, "%s/../share/locale/ja/LC_MESSAGES/" WB_TEXT_DOMAIN ".mo", exe);
    if (wb_file_exists(probe)) snprintf(locale_dir, sizeof locale_dir, "%s/../share/locale", exe);
}

/* 1 when gettext answers from the catalog: its header, msgid "", is then the catalog's. */
static int catalog_in_use(void) {
    const char *header = dgettext(WB_TEXT_DOMAIN, "");
    return header && *header;
}

/* gettext reads LANGUAGE (ja) only under an LC_MESSAGES locale that is not "C". The environment's
 * (ja_JP.UTF-8) first; where it is not installed, another stands in: C.UTF-8 does on Debian 12's
 * glibc, but glibc 2.39 (Ubuntu 24.04) counts its built-in C.UTF-8 as "C" and translates nothing
 * there, so then any installed locale will do (Ubuntu keeps them as folders of /usr/lib/locale).
 * Each try costs a setlocale and one catalog lookup. With none, the grader speaks English. */
static void choose_messages_locale(void) {
    if (setlocale(LC_MESSAGES, "") && !is_c_locale(setlocale(LC_MESSAGES, NULL)) && catalog_in_use()) return;
    static const char *const stand_ins[] = {"C.UTF-8", "en_US.UTF-8"}; /* glibc reads .utf8 as .UTF-8 */
    for (size_t i = 0; i < sizeof stand_ins / sizeof stand_ins[0]; i++)
        if (setlocale(LC_MESSAGES, stand_ins[i]) && catalog_in_use()) return;
    DIR *d = opendir("/usr/lib/locale");
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && setlocale(LC_MESSAGES, e->d_name) && !is_c_locale(setlocale(LC_MESSAGES, NULL)) &&
            catalog_in_use())
            break;
    if (d) closedir(d);
    if (!catalog_in_use()) setlocale(LC_MESSAGES, "C.UTF-8");
}

int wb_i18n_init(const char *lang_override) {
    char lang[16];
    if (lang_override) {
        if (strcmp(lang_override, "ja") && strcmp(lang_override, "en")) return -1;
        snprintf(lang, sizeof lang, "%s", lang_override);
    } else {
        language_from_environment(lang, sizeof lang);
    }
    snprintf(chosen, sizeof chosen, "%s", lang);
    /* English touches no locale: the grader behaves exactly as it did before it spoke Japanese
     * (regular expressions over bytes, the C locale's everything). Japanese sets LC_CTYPE to the
     * environment's UTF-8 locale, else C.UTF-8, and LC_MESSAGES below; LC_NUMERIC and the rest
     * stay "C", so that "%.2f" writes a point in every language. Display widths do not depend on
     * the locale (text_fit.h). */
    if (!wb_i18n_is_ja()) return 0;
    if (!setlocale(LC_CTYPE, "") || is_c_locale(setlocale(LC_CTYPE, NULL))) setlocale(LC_CTYPE, "C.UTF-8");
    setenv("LANGUAGE", "ja", 1);
    find_locale_dir();
    if (locale_dir[0]) bindtextdomain(WB_TEXT_DOMAIN, locale_dir);
    bind_textdomain_codeset(WB_TEXT_DOMAIN, "UTF-8");
    choose_messages_locale();
    return 0;
}

const char *wb_i18n_lang(void) { return chosen; }
int wb_i18n_is_ja(void) { return !strcmp(chosen, "ja"); }
const char *wb_i18n_locale_dir(void) { return locale_dir; }

const char *wb_gettext(const char *msgid) { return wb_i18n_is_ja() ? dgettext(WB_TEXT_DOMAIN, msgid) : msgid; }

const char *wb_ngettext(const char *one, const char *many, unsigned long n) {
    return wb_i18n_is_ja() ? dngettext(WB_TEXT_DOMAIN, one, many, n) : n == 1 ? one : many;
}

const char *wb_pgettext(const char *context, const char *msgid) {
    if (!wb_i18n_is_ja()) return msgid;
    char key[512];
    int n = snprintf(key, sizeof key, "%s\004%s", context, msgid);
    if (n < 0 || (size_t)n >= sizeof key) return msgid;
    const char *found = dgettext(WB_TEXT_DOMAIN, key);
    return found == key ? msgid : found; /* not in the catalog: gettext hands back its argument */
}

void wb_sha256_hex(const char *text, char hex[65]) {
    unsigned char md[32];
    unsigned int n = 0;
    hex[0] = '\0';
    if (!EVP_Digest(text, strlen(text), md, &n, EVP_sha256(), NULL) || n != 32) return;
    for (unsigned i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
}
