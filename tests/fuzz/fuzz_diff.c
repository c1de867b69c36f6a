/* fuzz_diff.c — libFuzzer target: two results files (the input split at its
 * first line "----8<----"; without one, the input against itself) diffed and
 * rendered in memory as Markdown, HTML, JSON and CSV.  Built and run by
 * `make fuzz`. */
#include "../../core/results.h"
#include "../../reports/diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char S_cut[] = "\n----8<----\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    char *head_text = text;
    char *cut = strstr(text, S_cut);
    if (cut) {
        *cut = '\0';
        head_text = cut + sizeof S_cut - 1;
    }
    gm_results base, head;
    gm_error e = {0};
    if (gm_results_read_string(text, "base.json", &base, &e) == GM_OK) {
        if (gm_results_read_string(head_text, "head.json", &head, &e) == GM_OK) {
            gm_diff_options o = {0};
            o.base_name = "base.json";
            o.head_name = "head.json";
            for (int force = 0; force < 2; force++) {
                o.force = force;
                gm_diff d;
                if (gm_diff_compute(&base, &head, &o, &d, &e) != GM_OK)
                    continue;
                gm_diff_render ro = {0};
                ro.base_name = "base.json";
                ro.head_name = "head.json";
                ro.all = force;
                ro.only_changed = !force;
                free(gm_diff_to_markdown(&d, &ro));
                char *h = gm_diff_to_html(&d, &ro, &e);
                free(h);
                free(gm_diff_to_json(&d, &ro, 0));
                free(gm_diff_to_csv(&d));
                free(gm_diff_verdict(&d));
                gm_diff_free(&d);
            }
            gm_results_free(&head);
        }
        gm_results_free(&base);
    }
    free(text);
    return 0;
}
