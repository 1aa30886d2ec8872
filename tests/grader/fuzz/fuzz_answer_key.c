/*
 * fuzz_answer_key.c: fuzz target for the answer-key reader (expectations/NN_name.yaml), which
 * reads its predictions lists with the predictions reader. Any input gives a key or an exit-2
 * error naming the file, never a crash, a leak, a hang or a memory blow-up.
 */
#include "answer_key.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    wb_answer_key k;
    wb_error err = {0};
    int rc = wb_answer_key_load_buffer("fuzz.yaml", (const char *)data, size, &k, &err);
    if (rc == 0) {
        for (size_t a = 0; a < k.n_archs; a++) {
            const wb_prediction_set *s = &k.archs[a].answers;
            (void)wb_answer_key_arch(&k, k.archs[a].arch);
            for (size_t i = 0; i < s->n; i++) {
                (void)wb_answer_key_explanation(&k, s->items[i].id);
                for (size_t j = 0; j < s->items[i].n_facts; j++)
                    (void)wb_fact_name_matches(&s->items[i].facts[j], "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT");
            }
        }
    } else if (rc != WB_EXIT_INPUT || strncmp(err.message, "fuzz.yaml", 9) != 0) {
        abort();
    }
    wb_answer_key_free(&k);
    return 0;
}
