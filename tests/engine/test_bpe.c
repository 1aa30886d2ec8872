/* test_bpe.c: the byte-level BPE tokenizer: training compresses, encode/decode round-trips any
 * bytes (UTF-8 or not), save/load keeps the encoding. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpe.h"
#include "data.h"
#include "wb_check.h"

Test(bpe, trains_round_trips_and_saves) {
    size_t n = 0;
    char *text = wb_builtin_corpus(100000, 3, &n);
    cr_assert_not_null(text);
    wb_bpe bpe;
    cr_assert_eq(wb_bpe_train(&bpe, text, n, 400, 0), WB_OK);
    cr_assert_leq(bpe.vocab_size, 400);
    cr_assert_gt(bpe.vocab_size, 300, "only %d tokens learned", bpe.vocab_size);
    int32_t *toks = NULL;
    size_t nt = 0;
    cr_assert_eq(wb_bpe_encode(&bpe, text, n, &toks, &nt), WB_OK);
    cr_expect_gt((double)n / (double)nt, 3.0, "compression %.2f bytes/token", (double)n / (double)nt);
    char *back = wb_bpe_decode(&bpe, toks, nt);
    cr_assert_eq(strlen(back), n);
    cr_assert_eq(memcmp(back, text, n), 0, "decode(encode(text)) != text");

    /* bytes it never saw: UTF-8, control bytes, invalid UTF-8 */
    const char odd[] = "Caf\xc3\xa9 \xe3\x81\x82\xe3\x81\x84 \x01\x02\xff\xfe  tabs\t\tand\r\nnewlines 12345!!";
    int32_t *t2 = NULL;
    size_t n2 = 0;
    cr_assert_eq(wb_bpe_encode(&bpe, odd, sizeof odd - 1, &t2, &n2), WB_OK);
    char *b2 = wb_bpe_decode(&bpe, t2, n2);
    cr_assert_eq(memcmp(b2, odd, sizeof odd - 1), 0);

    char path[] = "/tmp/wb_bpe_test_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(wb_bpe_save(&bpe, path), WB_OK);
    wb_bpe loaded;
    cr_assert_eq(wb_bpe_load(&loaded, path), WB_OK);
    cr_assert_eq(loaded.vocab_size, bpe.vocab_size);
    int32_t *t3 = NULL;
    size_t n3 = 0;
    cr_assert_eq(wb_bpe_encode(&loaded, text, n, &t3, &n3), WB_OK);
    cr_assert_eq(n3, nt);
    cr_assert_eq(memcmp(t3, toks, nt * 4), 0);
    unlink(path);
    free(toks), free(back), free(t2), free(b2), free(t3), free(text);
    wb_bpe_free(&bpe);
    wb_bpe_free(&loaded);
}
