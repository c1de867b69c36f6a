/* md_section.c — one experiment's section of the Markdown report: what it
 * tests, its contrast and the claims it judges, its layouts, the table of its
 * runs (md_tables.c) and the model beside them (md_model.c), the hot source
 * lines, its notes said once, its charts and what the numbers say
 * (md_explain.c).
 */
#include "md_int.h"

#include "../core/escape.h"
#include "../core/say.h"
#include "claims.h"
#include "contrast.h"
#include "sources.h"
#include "srclines.h"

#include <stdlib.h>
#include <string.h>

/* A relative link target, percent-encoded. */
static void S_url(gm_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            gm_buf_putc(b, (char)*p);
        else
            gm_buf_printf(b, "%%%02X", *p);
    }
}

/* ---- a program's kernel signatures ------------------------------------------- */

/* The full signature of each kernel, once, after the table whose rows name
 * them by their short names: a list in Markdown; folded in a <details> on
 * the HTML page (the placeholders become the tags in render_html.c). */
static void S_signatures(gm_buf *b, const gm_section *s, bool html)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->runs[j]->kernel && run->kernel && strcmp(s->runs[j]->kernel, run->kernel) == 0;
        n += !seen && run->kernel && (!run->variant || strcmp(run->kernel, run->variant) != 0);
    }
    if (!n)
        return;
    if (html)
        gm_say(b, "![](gm-details:open:{})\n\n", GM_INT((long long)n));
    else
        gm_say(b, "Full signatures of the {} kernel{} named above by their base names:\n\n",
               GM_INT((long long)n), GM_LIT(n == 1 ? "" : "s"));
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->runs[j]->kernel && run->kernel && strcmp(s->runs[j]->kernel, run->kernel) == 0;
        if (seen || !run->kernel || (run->variant && strcmp(run->kernel, run->variant) == 0))
            continue;
        /* every row of this kernel */
        gm_buf rows = GM_BUF_INIT;
        bool first = true;
        for (size_t j = i; j < s->n_runs; j++)
            if (s->runs[j]->kernel && strcmp(s->runs[j]->kernel, run->kernel) == 0) {
                if (!first)
                    gm_buf_puts(&rows, ", ");
                md_code(&rows, s->runs[j]->variant);
                first = false;
            }
        gm_say(b, "- {}: {}\n", GM_BUF(&rows), GM_CODE(run->kernel));
        gm_buf_free(&rows);
    }
    gm_buf_puts(b, "\n");
    if (html)
        gm_buf_puts(b, "![](gm-details:close:0)\n\n");
}

/* ---- said once ---------------------------------------------------------------- */

typedef struct {
    const gm_run *run;
    const char *text;
} gm_run_text;

/* The text with every run of digits as '#': notes that differ only in their
 * figures have one shape. */
static char *S_shape(const char *t)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "");
    for (const char *p = t ? t : ""; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            while (p[1] >= '0' && p[1] <= '9')
                p++;
            gm_buf_putc(&b, '#');
        } else {
            gm_buf_putc(&b, *p);
        }
    }
    return gm_buf_detach(&b);
}

/* A program's notes: what every kernel shares once, then one line per kernel
 * (row) with the rest of its notes, "; "-joined, in the table's order: a
 * reader looks a kernel up, not a kind of note. */
/* qsort order of items: by text, then by run (its address: only equality
 * matters). */
static int S_item_cmp(const void *pa, const void *pb)
{
    const gm_run_text *a = *(const gm_run_text *const *)pa, *b = *(const gm_run_text *const *)pb;
    int c = strcmp(a->text, b->text);
    if (c)
        return c;
    return a->run < b->run ? -1 : a->run > b->run;
}

static void S_said_per_kernel(gm_buf *b, const gm_section *s, const char *title,
                              const gm_run_text *items, size_t n)
{
    bool *common = gm_xcalloc(n, sizeof *common);
    gm_say(b, "{}\n\n", GM_LIT(title));
    /* common: the text is carried by every run of the section; sorted by
     * (text, run), each group's distinct runs are counted in one walk */
    const gm_run_text **ord = gm_xmalloc(n * sizeof *ord);
    for (size_t i = 0; i < n; i++)
        ord[i] = &items[i];
    qsort(ord, n, sizeof *ord, S_item_cmp);
    for (size_t g = 0; g < n;) {
        size_t e = g + 1, runs = 1;
        for (; e < n && strcmp(ord[e]->text, ord[g]->text) == 0; e++)
            runs += ord[e]->run != ord[e - 1]->run;
        for (size_t k = g; k < e; k++)
            common[ord[k] - items] = s->n_runs > 1 && runs == s->n_runs;
        g = e;
    }
    free((void *)ord);
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(common[j] && strcmp(items[j].text, items[i].text) == 0);
        if (common[i] && first) {
            gm_buf cite = GM_BUF_INIT;
            gm_sources_cite_text_md(&cite, items[i].text);
            gm_say(b, "- every kernel: {}\n", GM_BUF(&cite));
            gm_buf_free(&cite);
        }
    }
    for (size_t k = 0; k < s->n_runs; k++) {
        const gm_run *run = s->runs[k];
        size_t said = 0;
        for (size_t i = 0; i < n; i++) {
            if (items[i].run != run || common[i])
                continue;
            if (!said++) {
                gm_say(b, "- {}: ", GM_CODE(run->variant ? run->variant : ""));
            } else {
                gm_buf_puts(b, "; ");
            }
            gm_sources_cite_text_md(b, items[i].text);
        }
        if (said)
            gm_buf_puts(b, "\n");
    }
    gm_buf_puts(b, "\n");
    free(common);
}

/* A list under `title`: one item per shape of text, naming the runs it
 * applies to ("every run", a variant's runs, or the runs themselves), with
 * the text of its first run; when the others' figures differ, it says so.
 * A program's notes go kernel by kernel (S_said_per_kernel). */
static void S_said_once(gm_buf *b, const gm_section *s, const char *title,
                        const gm_run_text *items, size_t n)
{
    if (!n)
        return;
    if (gm_section_is_program(s)) {
        S_said_per_kernel(b, s, title, items, n);
        return;
    }
    char **shape = gm_xcalloc(n, sizeof *shape);
    for (size_t i = 0; i < n; i++)
        shape[i] = S_shape(items[i].text);
    bool *done = gm_xcalloc(n, sizeof *done);
    const gm_run **runs = gm_xcalloc(n + 1, sizeof *runs);
    gm_say(b, "{}\n\n", GM_LIT(title));
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t nr = 0;
        bool same_text = true;
        for (size_t j = i; j < n; j++) {
            if (done[j] || strcmp(shape[i], shape[j]) != 0)
                continue;
            done[j] = true;
            bool dup = false;
            for (size_t k = 0; k < nr && !dup; k++)
                dup = runs[k] == items[j].run;
            if (!dup)
                runs[nr++] = items[j].run;
            same_text &= strcmp(items[i].text, items[j].text) == 0;
        }
        /* whom it concerns: every run, every run of one variant, or a few */
        size_t all = 0, of_variant = 0;
        const char *v = runs[0]->variant ? runs[0]->variant : "";
        bool one_variant = true;
        for (size_t k = 0; k < nr; k++)
            one_variant &= runs[k]->variant && strcmp(runs[k]->variant, v) == 0;
        for (size_t k = 0; k < s->n_runs; k++) {
            all++;
            of_variant += s->runs[k]->variant && strcmp(s->runs[k]->variant, v) == 0;
        }
        gm_buf whom = GM_BUF_INIT, cite = GM_BUF_INIT;
        if (nr == all && all > 1) {
            gm_buf_puts(&whom, gm_section_is_program(s) ? "every kernel" : "every run");
        } else if (one_variant && nr == of_variant && nr > 1) {
            gm_say(&whom, "{} ({} {} runs)", GM_CODE(v), GM_LIT(nr == 2 ? "both" : "all"),
                   GM_INT((long long)nr));
        } else if (one_variant && nr == of_variant) {
            md_code(&whom, v);
        } else if (nr <= 3) {
            for (size_t k = 0; k < nr; k++) {
                if (k)
                    gm_buf_puts(&whom, k + 1 == nr ? " and " : ", ");
                md_case(&whom, &s->vary, runs[k], NULL);
            }
        } else if (one_variant) {
            gm_say(&whom, "{} ({} runs)", GM_CODE(v), GM_INT((long long)nr));
        } else {
            gm_say(&whom, "{} runs", GM_INT((long long)nr));
        }
        gm_sources_cite_text_md(&cite, items[i].text);
        if (same_text) {
            gm_say(b, "- {}: {}\n", GM_BUF(&whom), GM_BUF(&cite));
        } else if (nr > 1 || !one_variant) {
            gm_buf which = GM_BUF_INIT;
            md_case(&which, &s->vary, items[i].run, NULL);
            gm_say(b, "- {}: {} (this for {}; the others with their own figures)\n",
                   GM_BUF(&whom), GM_BUF(&cite), GM_BUF(&which));
            gm_buf_free(&which);
        } else {
            gm_say(b, "- {}: {} (the others with their own figures)\n", GM_BUF(&whom),
                   GM_BUF(&cite));
        }
        gm_buf_free(&whom);
        gm_buf_free(&cite);
    }
    gm_buf_puts(b, "\n");
    for (size_t i = 0; i < n; i++)
        free(shape[i]);
    free(shape);
    free(done);
    free((void *)runs);
}

/* ---- one experiment ------------------------------------------------------- */

/* The heading, what the experiment is and tests, its contrast and the claims
 * it judges. */
static void S_intro(gm_buf *b, const gm_results *r, const gm_sections *ss, size_t si,
                    bool html)
{
    const gm_section *s = &ss->v[si];
    const gm_experiment *e = s->exp;
    gm_say(b, "## {}. {}\n\n", GM_INT((long long)(si + 1)), GM_TEXT(md_exp_title(e)));

    if (!s->listed)
        gm_say(b, "The results file has runs of experiment {} but does not describe it.\n\n",
               GM_CODE(e->id ? e->id : ""));
    if (e->summary)
        gm_say(b, "{}\n\n", GM_SPANS(e->summary));   /* `...` marks code, as in the layouts */
    if (s->listed) {
        gm_say(b, "*Experiment {}", GM_CODE(e->id ? e->id : ""));
        if (e->source) {
            gm_buf cite = GM_BUF_INIT;
            gm_sources_cite_text_md(&cite, e->source);
            gm_say(b, "; it tests {}", GM_BUF(&cite));
            gm_buf_free(&cite);
        }
        if (e->sweep_param)
            gm_say(b, e->sweep_log2 ? "; swept parameter {} (log2 axis)" : "; swept parameter {}",
                   GM_CODE(e->sweep_param));
        if (e->series_param)
            gm_say(b, "; one line per value of {}", GM_CODE(e->series_param));
        if (e->baseline_variant)
            gm_say(b, "; baseline layout {}", GM_CODE(e->baseline_variant));
        gm_buf_puts(b, ".*\n\n");
    }
    gm_contrast_md(b, r, s);
    if (s->listed && html) {
        /* on paper, the claims are printed once, in their own section */
        gm_buf_puts(b, "![](gm-screen:open)\n\n");
        gm_claims_md(b, r, ss, e->id);
        gm_buf_puts(b, "![](gm-screen:close)\n\n");
    }
    else if (s->listed)
        gm_claims_brief_md(b, r, ss, e->id);
}

/* The layouts, once per variant (a program's kernels: their full signatures
 * are folded after the table). */
static void S_layouts(gm_buf *b, const gm_section *s, bool html)
{
    bool any_layout = false;
    bool program = gm_section_is_program(s);
    for (size_t i = 0; i < s->n_runs && !program; i++) {
        const gm_run *run = s->runs[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->runs[j]->variant && run->variant &&
                   strcmp(s->runs[j]->variant, run->variant) == 0;
        if (seen)
            continue;
        if (!any_layout)
            gm_buf_puts(b, "Layouts:\n\n");
        any_layout = true;
        gm_say(b, "- {}", GM_CODE(run->variant ? run->variant : ""));
        if (run->layout)
            gm_say(b, ": {}", GM_SPANS(run->layout));
        if (run->kernel && html)
            gm_say(b, " (kernel {})", GM_CODE(run->kernel));
        gm_buf_puts(b, "\n");
    }
    if (any_layout)
        gm_buf_puts(b, "\n");
}

/* A warning per run that failed its check or stopped with an error. */
static void S_run_warnings(gm_buf *b, const gm_section *s)
{
    if (s->n_failed || s->n_error) {
        for (size_t i = 0; i < s->n_runs; i++) {
            const gm_run *run = s->runs[i];
            if (!md_failed(run))
                continue;
            gm_buf which = GM_BUF_INIT, check = GM_BUF_INIT;
            md_case(&which, &s->vary, run, NULL);
            md_check_text(&check, run, true);
            gm_say(b, "> **Warning:** {} {}. Its numbers are shown but no speed claim is drawn "
                      "from it.\n\n",
                   GM_BUF(&which), GM_BUF(&check));
            gm_buf_free(&which);
            gm_buf_free(&check);
        }
    }
}

/* The parameters every run shares, said once. */
static void S_common_params(gm_buf *b, const gm_section *s)
{
    const gm_run *first = s->runs[0];
    gm_buf common = GM_BUF_INIT;
    gm_buf_puts(&common, "");
    for (size_t i = 0; i < first->n_params; i++) {
        const gm_param *p = &first->params[i];
        bool same = true;
        for (size_t k = 1; k < s->n_runs && same; k++) {
            const gm_param *q = gm_run_param(s->runs[k], p->name);
            gm_buf x = GM_BUF_INIT, y = GM_BUF_INIT;
            gm_fmt_value(&x, &p->value);
            if (q)
                gm_fmt_value(&y, &q->value);
            same = q && q->value.kind == p->value.kind && strcmp(x.data, y.data) == 0;
            gm_buf_free(&x);
            gm_buf_free(&y);
        }
        if (!same)
            continue;
        gm_buf_printf(&common, "%s%s=", common.len ? ", " : "", p->name ? p->name : "");
        gm_fmt_value(&common, &p->value);
    }
    if (common.len)
        gm_say(b, "Every run: {}.\n\n", GM_TEXT(common.data));
    gm_buf_free(&common);
}

/* The runs: their table, a program's kernel signatures, the model beside the
 * counters, the hot source lines. */
static void S_runs(gm_buf *b, const gm_results *r, const gm_section *s, bool html)
{
    bool program = gm_section_is_program(s);
    if (s->n_runs) {
        S_common_params(b, s);
        md_table(b, r, s, html);
        if (program)
            S_signatures(b, s, html);
        md_limits(b, r, s, html);
        md_predicted(b, s, html);
        gm_srclines_md_brief(b, s->runs, s->n_runs, html);
        if (html) {
            /* every hot line of each layout, folded under the brief table */
            gm_buf full = GM_BUF_INIT;
            gm_buf_puts(&full, "");
            size_t k = gm_srclines_md_layouts(&full, s->runs, s->n_runs);
            if (k) {
                md_fold_open_n(b, 4, k);
                gm_buf_put(b, full.data, full.len);
                md_fold_close(b, true);
            }
            gm_buf_free(&full);
        }
    } else {
        gm_buf_puts(b, "The results file has no run of this experiment.\n\n");
    }
}

/* Notes and reasons for not running, each said once with the runs it
 * applies to: texts that differ only in their figures are one item. */
static void S_notes(gm_buf *b, const gm_section *s)
{
    gm_run_text *items = gm_xcalloc(1, sizeof *items);
    size_t n_items = 0, cap = 1;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        if (run->check.status == GM_CHECK_NOT_RUN)
            continue;   /* a run that did not run: its reason is enough */
        for (size_t k = 0; k < run->n_notes; k++) {
            if (n_items == cap)
                items = gm_xrealloc(items, (cap *= 2) * sizeof *items);
            items[n_items++] = (gm_run_text){run, run->notes[k]};
        }
    }
    S_said_once(b, s, "Notes:", items, n_items);
    n_items = 0;
    for (size_t i = 0; i < s->n_runs; i++) {
        const gm_run *run = s->runs[i];
        if (run->check.status != GM_CHECK_NOT_RUN)
            continue;
        if (n_items == cap)
            items = gm_xrealloc(items, (cap *= 2) * sizeof *items);
        items[n_items++] =
            (gm_run_text){run, run->check.reason ? run->check.reason : "no reason given"};
    }
    S_said_once(b, s, "Not run:", items, n_items);
    free(items);
}

/* The form for a GitHub issue has no charts: how many it leaves out. */
static void S_charts_left_out(gm_buf *b, size_t si, const gm_charts *charts)
{
    size_t nc = 0;
    for (size_t i = 0; charts && i < charts->n; i++)
        nc += charts->v[i].section == si;
    if (nc)
        gm_say(b, "*{} chart{} left out of this form (the HTML report draws {}).*\n\n",
               GM_INT((long long)nc), GM_LIT(nc == 1 ? "" : "s"), GM_LIT(nc == 1 ? "it" : "them"));
}

/* Section si's charts: links to their SVG files in chart_dir, or (chart_dir
 * NULL) the placeholder the HTML page replaces with them. */
static void S_charts(gm_buf *b, const gm_section *s, size_t si, const gm_charts *charts,
                     const char *chart_dir)
{
    const gm_experiment *e = s->exp;
    bool any_chart = false;
    for (size_t i = 0; charts && i < charts->n; i++) {
        const gm_chart *c = &charts->v[i];
        if (c->section != si)
            continue;
        if (!chart_dir) {
            gm_say(b, "![](gm-charts:{})\n\n", GM_INT((long long)si));
            any_chart = true;
            break;
        }
        if (c->failed) {
            /* a chart gnuplot could not draw: said where it would be */
            gm_say(b, "> **Chart not drawn:** {}, {}. {}\n\n", GM_LIT(c->name),
                   GM_TEXT(c->title), GM_TEXT(c->failed));
            any_chart = true;
            continue;
        }
        /* the alt text without the experiment's title, which the heading gives */
        const char *alt = c->title;
        size_t tl = strlen(md_exp_title(e));
        if (strncmp(alt, md_exp_title(e), tl) == 0 && alt[tl] == ':' && alt[tl + 1] == ' ')
            alt += tl + 2;
        gm_buf dir = GM_BUF_INIT, name = GM_BUF_INIT;
        S_url(&dir, chart_dir);
        S_url(&name, c->name);
        gm_say(b, "![{}]({}/{}.svg)\n\n", GM_TEXT(alt), GM_BUF(&dir), GM_BUF(&name));
        gm_buf_free(&dir);
        gm_buf_free(&name);
        any_chart = true;
    }
    (void)any_chart;
}

void md_section(gm_buf *b, const gm_results *r, const gm_sections *ss, size_t si,
                const gm_charts *charts, const char *chart_dir, const gm_findings *f,
                bool github)
{
    bool html = !chart_dir && !github;
    const gm_section *s = &ss->v[si];
    S_intro(b, r, ss, si, html);
    S_layouts(b, s, html);
    S_run_warnings(b, s);
    S_runs(b, r, s, html);
    S_notes(b, s);
    if (github) {
        S_charts_left_out(b, si, charts);
        md_explain(b, r, s, f, false);
        return;
    }
    S_charts(b, s, si, charts, chart_dir);
    md_explain(b, r, s, f, html);
}
