/* fuzz_results.c — libFuzzer target: the results reader (core/results_read.c) on
 * any bytes, then the writer and the reader again on what it accepted (the
 * round trip must be exact).  Built and run by `make fuzz`. */
#include "../../core/results.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    gm_results r;
    gm_error e = {0};
    if (gm_results_read_string(text, "fuzz.json", &r, &e) == GM_OK) {
        char *j = gm_results_to_json(&r);
        gm_results b;
        if (gm_results_read_string(j, "again.json", &b, &e) != GM_OK)
            abort();   /* what we wrote we must read */
        char *j2 = gm_results_to_json(&b);
        if (strcmp(j, j2) != 0)
            abort();   /* and write the same bytes */
        free(j2);
        free(j);
        gm_results_free(&b);
        gm_results_free(&r);
    }
    free(text);
    return 0;
}
