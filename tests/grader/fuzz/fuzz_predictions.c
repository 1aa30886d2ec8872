/*
 * fuzz_predictions.c: fuzz target for the predictions reader (libFuzzer entry point). Any input
 * must give either a prediction set or an exit-2 error with a message, never a crash or a leak.
 */
#include "predictions.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    wb_prediction_set p;
    wb_error err = {0};
    int rc = wb_predictions_load_buffer("fuzz.yaml", (const char *)data, size, &p, &err);
    if (rc == 0) {
        (void)wb_predictions_open(&p);
        for (size_t i = 0; i < p.n; i++)
            for (size_t j = 0; j < p.items[i].n_facts; j++) (void)wb_fact_name_matches(&p.items[i].facts[j], "nvjet_sm90_tst_TNT");
        wb_predictions_free(&p);
    } else if (rc != WB_EXIT_INPUT || err.message[0] == '\0' || strncmp(err.message, "fuzz.yaml", 9) != 0) {
        abort(); /* every rejection is exit 2 with a message naming the file */
    }
    return 0;
}
