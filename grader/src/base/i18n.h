/*
 * i18n.h: the language the grader speaks (docs/i18n.md). Messages go through GNU gettext (glibc's
 * libintl) in the text domain "workbench"; English is the source language, the default and the
 * fallback for anything a catalog does not translate.
 *
 *   _("text")                 a message, translated
 *   N_("text")                marked for the catalog, translated later with _() (tables)
 *   wb_ngettext(one, many, n) a message with a number: the catalog's plural forms
 *   C_("context", "text")     a message whose English word has two meanings: the context (a
 *                             msgctxt) tells them apart, "predicted" as a heading and as a state
 *   NC_("context", "text")    marked with its context, translated later with C_() (tables)
 *
 * The language: --lang (wb_i18n_init's argument), else LANGUAGE, LC_ALL, LC_MESSAGES, LANG as
 * gettext reads them (LANGUAGE only when a locale is named at all). In English no locale is set;
 * in Japanese only LC_CTYPE and LC_MESSAGES follow the environment: numbers keep the C locale's
 * form, so files and JSON never change with the language. A machine without the chosen locale (a
 * CI machine without ja_JP.UTF-8) still gets the language: C.UTF-8 stands in for LC_CTYPE and
 * LC_MESSAGES.
 */
#ifndef WB_I18N_H
#define WB_I18N_H

#include <stddef.h>

#define WB_TEXT_DOMAIN "workbench"

/* Chooses the language and opens its catalog: lang_override is "ja", "en" or NULL (the
 * environment decides). Returns 0, or -1 for a language the grader does not know (the caller
 * reports a usage error). Safe to call again (tests). */
int wb_i18n_init(const char *lang_override);

/* "ja" or "en": the language chosen, for content outside the catalog (lessons' i18n/ja.yaml, the
 * answer keys' explanations, the timeline page's lang attribute). */
const char *wb_i18n_lang(void);
/* 1 when the language is Japanese. */
int wb_i18n_is_ja(void);

/* The folder holding <lang>/LC_MESSAGES/workbench.mo: $WB_LOCALEDIR, else share/locale beside
 * the grader's bin/ folder (the build tree and an installed tree have the same layout); "" when
 * none holds a catalog. */
const char *wb_i18n_locale_dir(void);

const char *wb_gettext(const char *msgid) __attribute__((format_arg(1)));
const char *wb_ngettext(const char *one, const char *many, unsigned long n) __attribute__((format_arg(1), format_arg(2)));
/* gettext's pgettext: msgid looked up under a context ("context\004msgid" in the catalog). */
const char *wb_pgettext(const char *context, const char *msgid) __attribute__((format_arg(2)));

#define _(text) wb_gettext(text)
#define N_(text) text
#define C_(context, text) wb_pgettext(context, text)
#define NC_(context, text) text

/* The SHA-256 of text as 64 hex digits into hex[65]: what a translation records of the English
 * text it translates (en_sha). */
void wb_sha256_hex(const char *text, char hex[65]);

#endif
