/*
 * speak.h: a unit test's messages in a language (docs/i18n.md), from this build's catalog
 * (build/share/locale: WB_BUILD_DIR, which ctest sets), whatever folder the test runs from.
 * wb_i18n_init may be called again, so one Test can compare a message in English and then in
 * Japanese; a language chosen stays in the Test's own process.
 */
#ifndef WB_TEST_SPEAK_H
#define WB_TEST_SPEAK_H

#include "wb_base.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static inline void speak(const char *lang) {
    const char *build = getenv("WB_BUILD_DIR");
    cr_assert(build && *build, "WB_BUILD_DIR is not set (ctest sets it)");
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/share/locale", build);
    setenv("WB_LOCALEDIR", dir, 1);
    cr_assert_eq(wb_i18n_init(lang), 0);
}

#endif
