/* fuzz_render.c — libFuzzer target: a results file read, then the report
 * rendered in memory as Markdown and as HTML (charts planned, not drawn: each
 * gets a stand-in SVG).  Built and run by `make fuzz`. */
#include "../../core/results.h"
#include "../../reports/charts.h"
#include "../../reports/render.h"
#include "../../reports/runs.h"

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
        gm_sections ss;
        gm_sections_build(&r, &ss);
        gm_charts charts;
        gm_charts_plan(&r, &ss, &charts);
        gm_sections_free(&ss);
        for (size_t i = 0; i < charts.n; i++) {
            charts.v[i].svg = strdup("<svg xmlns=\"http://www.w3.org/2000/svg\"><title>t</title>"
                                     "<g id=\"a\"></g></svg>");
            if (i % 3 == 2)   /* some charts gnuplot could not draw */
                charts.v[i].failed = strdup("gnuplot could not draw it <&>");
        }
        char *md = gm_render_markdown(&r, &charts, "r.charts", NULL);
        free(md);
        char *html = NULL;
        if (gm_render_html(&r, &charts, "<title>{{title}}</title>{{body}}", NULL, &html, &e) ==
            GM_OK)
            free(html);
        char *script = gm_charts_script(&charts);
        free(script);
        gm_charts_free(&charts);
        gm_results_free(&r);
    }
    free(text);
    return 0;
}
