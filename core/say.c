/* say.c — a sentence in one call: the format, its values, the checks (say.h). */
#include "say.h"

#include "escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gm_say_value(gm_buf *b, gm_say_arg v)
{
    switch (v.kind) {
    case GM_SAY_AS_COUNT: gm_fmt_count(b, v.x); return true;
    case GM_SAY_AS_INT: gm_buf_printf(b, "%lld", v.i); return true;
    case GM_SAY_AS_BYTES: gm_fmt_bytes(b, v.x); return true;
    case GM_SAY_AS_MS: gm_fmt_ms(b, v.x); return true;
    case GM_SAY_AS_GBS: gm_fmt_gbs(b, v.x); return true;
    case GM_SAY_AS_PCT: gm_fmt_pct(b, v.x); return true;
    case GM_SAY_AS_PCT_CHANGE: gm_fmt_pct_change(b, v.x); return true;
    case GM_SAY_AS_RATIO: gm_fmt_ratio(b, v.x); return true;
    case GM_SAY_AS_FLOP: gm_fmt_flop(b, v.x); return true;
    case GM_SAY_AS_FIXED: gm_fmt_fixed(b, v.x, v.digits); return true;
    case GM_SAY_AS_SIGNED: gm_fmt_signed(b, v.x, v.digits); return true;
    case GM_SAY_AS_NUM: gm_fmt_num(b, v.x, v.digits); return true;
    case GM_SAY_AS_GENERAL: gm_fmt_general(b, v.x, v.digits); return true;
    case GM_SAY_AS_QUANTITY: gm_fmt_quantity(b, v.x, v.s, v.digits != 0); return true;
    case GM_SAY_AS_TEXT: gm_esc_md(b, v.s); return true;
    case GM_SAY_AS_CODE: gm_esc_md_code(b, v.s); return true;
    case GM_SAY_AS_SPANS: gm_esc_md_spans(b, v.s); return true;
    case GM_SAY_AS_HTML: gm_esc_html(b, v.s); return true;
    case GM_SAY_AS_VALUE: {
        gm_buf t = GM_BUF_INIT;
        gm_fmt_value(&t, v.value);
        gm_esc_md(b, t.data ? t.data : "");
        gm_buf_free(&t);
        return true;
    }
    case GM_SAY_AS_LIT:
        if (v.s)
            gm_buf_puts(b, v.s);
        return true;
    case GM_SAY_AS_BUF:
        if (v.buf && v.buf->len)
            gm_buf_put(b, v.buf->data, v.buf->len);
        return true;
    case GM_SAY_AS_NONE:
        break;
    }
    gm_buf_puts(b, "{?value}");
    return false;
}

/* At fmt[0] == '{' (not "{{"): the length of a placeholder "{...}" up to its
 * '}', or 0 for a lone brace (no '}' before the next '{' or the end). */
static size_t S_braced(const char *fmt)
{
    size_t k = 1;
    while (fmt[k] && fmt[k] != '{' && fmt[k] != '}')
        k++;
    return fmt[k] == '}' ? k + 1 : 0;
}

int gm_say_placeholders(const char *fmt)
{
    int n = 0;
    for (const char *p = fmt; p && *p; p++) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            p++;
        } else if (p[0] == '{' && p[1] == '}') {
            n++;
            p++;
        } else if (p[0] == '{' || p[0] == '}') {
            return -1;
        }
    }
    return n;
}

/* A problem: remembered (the first only) for the message of strict mode. */
typedef struct {
    char what[96];
    bool any;
} S_problem;

static void S_note(S_problem *pr, const char *what, const char *at, size_t n)
{
    if (pr->any)
        return;
    pr->any = true;
    snprintf(pr->what, sizeof pr->what, "%s%.*s", what, (int)(n > 40 ? 40 : n), at ? at : "");
}

static bool S_strict(void)
{
    const char *e = getenv("GM_SAY_STRICT");
    return e && *e && strcmp(e, "0") != 0;
}

bool gm_say_args(gm_buf *b, const char *fmt, const gm_say_arg *v, size_t n)
{
    S_problem pr = {.any = false};
    size_t used = 0;
    const char *p = fmt ? fmt : "";
    if (!fmt)
        S_note(&pr, "no format", NULL, 0);
    while (*p) {
        size_t run = strcspn(p, "{}");
        gm_buf_put(b, p, run);
        p += run;
        if (!*p)
            break;
        if (p[0] == p[1]) {                      /* "{{" or "}}" */
            gm_buf_putc(b, p[0]);
            p += 2;
        } else if (p[0] == '{' && p[1] == '}') { /* "{}" */
            if (used < n) {
                if (!gm_say_value(b, v[used]))
                    S_note(&pr, "a value not made by a GM_ macro", NULL, 0);
                used++;
            } else {
                gm_buf_puts(b, "{?}");
                S_note(&pr, "a placeholder without a value", NULL, 0);
            }
            p += 2;
        } else if (p[0] == '{' && S_braced(p)) { /* "{x}" */
            size_t k = S_braced(p);
            gm_buf_puts(b, "{?");
            gm_buf_put(b, p + 1, k - 1);
            S_note(&pr, "an unknown placeholder ", p, k);
            p += k;
        } else {                                 /* a lone brace */
            gm_buf_puts(b, "{?");
            gm_buf_putc(b, p[0]);
            S_note(&pr, "a lone brace: ", p, strlen(p));
            p++;
        }
    }
    for (; used < n; used++) {
        gm_buf_puts(b, "{?+");
        gm_say_value(b, v[used]);
        gm_buf_putc(b, '}');
        S_note(&pr, "a value without a placeholder", NULL, 0);
    }
    if (pr.any && S_strict()) {
        fprintf(stderr, "gpumem-report: gm_say: %s, in \"%s\" with %zu value%s (GM_SAY_STRICT)\n",
                pr.what, fmt ? fmt : "(null)", n, n == 1 ? "" : "s");
        abort();
    }
    return !pr.any;
}
