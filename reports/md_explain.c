/* md_explain.c — the words written from the numbers: the run's costliest
 * findings near the top of the report, and in each experiment's section the
 * explanation (findings.h: gm_explain_section) and that experiment's
 * findings, trimmed to their first sentences in the Markdown forms.
 */
#include "md_int.h"

#include "../core/say.h"
#include "contrast.h"

#include <string.h>

/* ---- findings --------------------------------------------------------------- */

#define S_TOP_FINDINGS 10
#define S_TOP_FINDINGS_MD 6

/* A finding item cut to its first sentence, its estimated saving (what ranks
 * it), the source line it names and the count of runs the same rule fires
 * on: the Markdown forms' length (the HTML page keeps it all). */
static void S_findings_lean(gm_buf *b, const char *items)
{
    for (const char *p = items; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len < 4 || strncmp(p, "- **", 4) != 0) {
            gm_buf_put(b, p, len);
            gm_buf_putc(b, '\n');
            p += len + (eol ? 1 : 0);
            continue;
        }
        const char *end = p + len, *cut = NULL;
        for (const char *c = p + 4; c + 2 < end && !cut; c++)
            if (c[0] == '.' && c[1] == ' ' && ((c[2] >= 'A' && c[2] <= 'Z') || c[2] == '`'))
                cut = c + 1;
        if (!cut) {
            gm_buf_put(b, p, len);
        } else {
            gm_buf_put(b, p, (size_t)(cut - p));
            /* then, of findings.c's later sentences, the estimated saving ("Not
             * moving the excess ..."), the line that causes it ("The line:
             * ..."), the count of similar runs and what to change, which
             * follow one another at the end of the item: from the first of
             * them to the end */
            static const char *const keep[] = {" Not moving the excess ", " The line: ",
                                               " The instruction: ", " The same rule fires on ",
                                               " What to change: "};
            const char *from = NULL;
            for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) {
                size_t kl = strlen(keep[k]);
                for (const char *c = cut; c + kl <= end; c++)
                    if (strncmp(c, keep[k], kl) == 0) {
                        if (!from || c < from)
                            from = c;
                        break;
                    }
            }
            if (from)
                gm_buf_put(b, from, (size_t)(end - from));
        }
        gm_buf_putc(b, '\n');
        p += len + (eol ? 1 : 0);
    }
}

/* The costliest findings of the whole run, one per layout and rule.  Failed
 * runs are in the warning at the top already: their findings are not repeated. */
void md_findings(gm_buf *b, const gm_findings *f, const gm_sections *ss, bool html)
{
    size_t bad = 0;
    for (size_t i = 0; i < ss->n; i++)
        bad += ss->v[i].n_failed + ss->v[i].n_error;
    unsigned skip = GM_RULE_BIT(GM_RULE_VALIDATION);
    size_t all = gm_findings_count(f, NULL, true, skip);
    size_t minor = gm_findings_count_minor(f, skip);
    gm_buf_puts(b, "## Findings\n\n");
    if (!all && !minor) {
        gm_buf_puts(b, bad ? "No rule of docs/findings.md fires on the numbers of this run (the "
                             "runs that failed are in the warning above).\n\n"
                           : "No rule of docs/findings.md fires on the numbers of this run.\n\n");
        return;
    }
    gm_buf_puts(b, bad ? "What the rules of docs/findings.md find in the counters of each run, "
                         "warnings first, then by the time they cost (the estimated saving, "
                         "docs/findings.md), then by the bytes wasted or forgone; one item per "
                         "layout and rule. Runs that did not pass their check are in the warning "
                         "above, not here.\n\n"
                       : "What the rules of docs/findings.md find in the counters of each run, "
                         "warnings first, then by the time they cost (the estimated saving, "
                         "docs/findings.md), then by the bytes wasted or forgone; one item per "
                         "layout and rule.\n\n");
    gm_buf items = GM_BUF_INIT;
    gm_buf_puts(&items, "");
    size_t shown = gm_findings_md_except(f, NULL, html ? S_TOP_FINDINGS : S_TOP_FINDINGS_MD, true,
                                         skip, &items);
    if (html)
        gm_buf_put(b, items.data, items.len);
    else
        S_findings_lean(b, items.data);
    gm_buf_free(&items);
    if (all > shown)
        gm_say(b, html ? "{} more in the sections of their experiments.\n\n"
                       : "{} more in the HTML report, each in its experiment's section.\n\n",
               GM_INT((long long)(all - shown)));
    /* findings.h: a saving under 1 µs or 1 % of the time is not worth the top */
    if (minor)
        gm_say(b,
               minor == 1 ? "{} finding that would save under 1 µs or under 1% of the time it is "
                            "weighed against (docs/findings.md) is left out of this list; it is "
                            "in {}.\n\n"
                          : "{} findings that would save under 1 µs or under 1% of the time they "
                            "are weighed against (docs/findings.md) are left out of this list; "
                            "each is in {}.\n\n",
               GM_INT((long long)minor),
               GM_LIT(html ? "its experiment's section"
                           : "the HTML report, in its experiment's section"));
}

/* ---- what the numbers say -------------------------------------------------- */

/* In the Markdown forms, sweeps described in words: at most this many lines
 * (the charts draw them all). */
#define S_MD_SWEEP_LINES 3

/* The page shows a section's costliest findings and folds the others. */
#define S_SECTION_FINDINGS 1

/* The explanation's paragraphs as the Markdown forms give them: without the
 * model's summary (the section says what the model predicted above), the
 * count of runs not compared, the fastest run against the slowest and the
 * baseline layout against the fastest (the section's answer is the
 * comparison the experiment exists for), and with a sweep
 * described for its first few lines.  Without an answer (a results file
 * that predates the experiments' questions), the comparisons stay: they are
 * all the section says.  Writes `text` so trimmed to out. */
static void S_explain_lean(gm_buf *out, const char *text, bool answered)
{
    gm_buf_puts(out, "");
    for (const char *p = text; *p;) {
        const char *end = strstr(p, "\n\n");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *next = end ? end + 2 : p + len;
        gm_buf para = GM_BUF_INIT;
        gm_buf_put(&para, p, len);
        gm_buf_puts(&para, "");
        p = next;
        char *t = para.data;
        /* the fastest against the slowest: the section's answer is the
         * comparison the experiment exists for */
        bool why = answered && t[0] == '`' && strstr(t, " is the fastest (") &&
                   (size_t)(strstr(t, " is the fastest (") - t) < 200;
        /* "N passed runs do the same work (...), each reading ...": the
         * introduction of the run-by-run list the Markdown forms leave out */
        bool intro = answered && t[0] >= '0' && t[0] <= '9' && strstr(t, " do the same work") &&
                     (size_t)(strstr(t, " do the same work") - t) < 40;
        if (why || intro || strncmp(t, "The address-trace model", 23) == 0 ||
            strncmp(t, "Where no predicted figure", 25) == 0) {
            gm_buf_free(&para);
            continue;
        }
        /* "N other passed runs do a different amount of work (...) and are not
         * compared with these. " */
        if (t[0] >= '0' && t[0] <= '9') {
            static const char tail[] = "not compared with these.";
            char *x = strstr(t, tail);
            if (x && strstr(t, "other passed run") && (size_t)(strstr(t, "other passed run") - t) < 12) {
                x += sizeof tail - 1;
                while (*x == ' ')
                    x++;
                memmove(t, x, strlen(x) + 1);
            }
        }
        /* the first paragraph announces the run-by-run list the Markdown
         * forms leave out */
        static const char *const gone[] = {", fastest first.", " The HTML report describes each "
                                           "of them from its counters."};
        for (size_t g = 0; g < 2; g++) {
            char *x = strstr(t, gone[g]);
            if (!x)
                continue;
            char *from = x;
            if (g == 0) {
                /* "; 6 of them, fastest first." */
                char *semi = NULL;
                for (char *c = t; c < x; c++)
                    if (c[0] == ';' && c[1] == ' ')
                        semi = c;
                if (semi && strncmp(x - 8, " of them", 8) == 0)
                    from = semi;
                memmove(from + 1, x + strlen(gone[g]), strlen(x + strlen(gone[g])) + 1);
                *from = '.';
            } else {
                memmove(from, x + strlen(gone[g]), strlen(x + strlen(gone[g])) + 1);
            }
        }
        char *base = answered ? strstr(t, " The baseline layout ") : NULL;
        if (base)
            *base = '\0';
        if (strncmp(t, "Along ", 6) == 0) {
            /* "Along `p`: item; item; item. The charts show N more lines." */
            size_t items = 1;
            char *cut = NULL;
            for (char *c = t; *c; c++)
                if (c[0] == ';' && c[1] == ' ' && ++items == S_MD_SWEEP_LINES + 1 && !cut)
                    cut = c;
            if (cut) {
                *cut = '\0';
                gm_buf_put(out, t, strlen(t));
                gm_buf_puts(out, ". The charts draw every line.\n\n");
                gm_buf_free(&para);
                continue;
            }
        }
        size_t l = strlen(t);
        while (l && t[l - 1] == ' ')
            t[--l] = '\0';
        if (l) {
            gm_buf_put(out, t, l);
            gm_buf_puts(out, "\n\n");
        }
        gm_buf_free(&para);
    }
}

/* One explanation per section, written by findings.c from the numbers, then
 * the section's findings (runs that failed or did not run are flagged above
 * the table, not again here). */
void md_explain(gm_buf *b, const gm_results *r, const gm_section *s, const gm_findings *f,
                bool html)
{
    gm_buf e = GM_BUF_INIT;
    gm_explain_section(r, s, &e);
    if (e.len && !html) {
        /* the Markdown forms leave out the run-by-run list (the table has the
         * figures; the HTML page has the list) */
        gm_buf lean = GM_BUF_INIT;
        gm_buf_puts(&lean, "");
        bool dropped = false;
        for (const char *p = e.data; *p;) {
            const char *eol = strchr(p, '\n');
            size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
            bool item = len >= 2 && p[0] == '-' && p[1] == ' ';
            if (item) {
                dropped = true;
            } else if (dropped && len == 1 && lean.len >= 2 &&
                       lean.data[lean.len - 1] == '\n' && lean.data[lean.len - 2] == '\n') {
                /* the blank line after the list */
            } else {
                gm_buf_put(&lean, p, len);
            }
            p += len;
        }
        if (dropped) {
            /* say where the list went, at the end of the first paragraph */
            const char *para = strstr(lean.data, "\n\n");
            gm_buf out = GM_BUF_INIT;
            if (para) {
                gm_buf_put(&out, lean.data, (size_t)(para - lean.data));
                gm_buf_puts(&out, " The HTML report describes each of them from its counters.");
                gm_buf_puts(&out, para);
            } else {
                gm_buf_puts(&out, lean.data);
            }
            gm_buf_free(&lean);
            lean = out;
        }
        gm_buf_free(&e);
        e = lean;
        lean = (gm_buf)GM_BUF_INIT;
        gm_contrast ct;
        S_explain_lean(&lean, e.data, gm_contrast_find(s, &ct));
        gm_buf_free(&e);
        e = lean;
    }
    if (e.len && html) {
        /* the page folds the run-by-run list */
        const char *list = strncmp(e.data, "- ", 2) == 0 ? e.data : strstr(e.data, "\n\n- ");
        if (list && list != e.data)
            list += 2;
        const char *end = list ? strstr(list, "\n\n") : NULL;
        if (list && end) {
            size_t items = 0;
            for (const char *q = list; q < end; q = strchr(q, '\n') + 1) {
                items += strncmp(q, "- ", 2) == 0;
                if (!strchr(q, '\n'))
                    break;
            }
            gm_buf head = GM_BUF_INIT;   /* the paragraphs before the list */
            gm_buf_put(&head, e.data, (size_t)(list - e.data));
            gm_say(b, "**What the numbers say.** {}", GM_BUF(&head));
            gm_buf_free(&head);
            md_fold_open_n(b, 2, items);
            gm_buf_put(b, list, (size_t)(end - list));
            gm_buf_puts(b, "\n\n");
            md_fold_close(b, true);
            gm_buf_puts(b, end + 2);
        } else {
            gm_say(b, "**What the numbers say.** {}", GM_BUF(&e));
        }
    } else if (e.len) {
        gm_say(b, "**What the numbers say.** {}", GM_BUF(&e));
    }
    gm_buf_free(&e);
    unsigned skip = GM_RULE_BIT(GM_RULE_VALIDATION) | GM_RULE_BIT(GM_RULE_NOT_RUN);
    size_t all = gm_findings_count(f, s->exp->id, true, skip);
    if (all && !html) {
        /* the Markdown forms: the run's costliest are in its Findings section */
        gm_say(b, "**Findings:** {}, in the HTML report (the run's costliest: "
                  "[Findings](#findings)).\n\n",
               GM_INT((long long)all));
    } else if (all) {
        gm_buf_puts(b, "**Findings** (one per layout and rule, costliest first):\n\n");
        gm_buf items = GM_BUF_INIT;
        gm_buf_puts(&items, "");
        size_t shown = gm_findings_md_except(f, s->exp->id, 0, true, skip, &items);
        /* the costliest few in view, the others folded */
        const char *cut = items.data;
        for (int k = 0; k <= S_SECTION_FINDINGS && cut; k++)
            cut = k == 0 ? cut : strstr(cut + 1, "\n- **");
        if (cut && shown > S_SECTION_FINDINGS) {
            cut++;
            gm_buf_put(b, items.data, (size_t)(cut - items.data));
            gm_buf_puts(b, "\n");
            md_fold_open_n(b, 3, shown - S_SECTION_FINDINGS);
            gm_buf_puts(b, cut);
            gm_buf_puts(b, "\n");
            md_fold_close(b, true);
        } else {
            gm_buf_put(b, items.data, items.len);
        }
        gm_buf_free(&items);
        if (all > shown)
            gm_say(b, "{} more, of lesser cost, in the HTML report.\n\n",
                   GM_INT((long long)(all - shown)));
    }
}
