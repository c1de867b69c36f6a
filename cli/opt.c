/* opt.c — parsing, --help and the docs' option lists from one table (opt.h). */
#include "opt.h"

#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool S_listed(const gm_opt *r, unsigned variant)
{
    unsigned v = r->only & (GM_OPT_MAIN | GM_OPT_COLLECT);
    return !variant || !v || (v & variant);
}

bool gm_opt_takes_value(const gm_opt *r)
{
    return r->kind != GM_OPT_FLAG && r->kind != GM_OPT_TEXT && r->kind != GM_OPT_END;
}

const gm_opt *gm_opt_find(const gm_opt_table *t, unsigned variant, const char *a,
                          const char **eq)
{
    *eq = NULL;
    for (const gm_opt *r = t->rows; r->kind != GM_OPT_END; r++) {
        if (r->kind == GM_OPT_TEXT || !r->name || !S_listed(r, variant))
            continue;
        if (strcmp(a, r->name) == 0 || (r->alias && strcmp(a, r->alias) == 0))
            return r;
        size_t n = strlen(r->name);
        if (gm_opt_takes_value(r) && strncmp(a, r->name, n) == 0 && a[n] == '=') {
            *eq = a + n + 1;
            return r;
        }
    }
    return NULL;
}

static void *S_at(void *opts, size_t at)
{
    return (char *)opts + at;
}

/* "md|html|csv" as "md, html or csv". */
static void S_choices_words(gm_buf *b, const char *choices)
{
    size_t n = 1;
    for (const char *c = choices; *c; c++)
        n += *c == '|';
    size_t k = 0;
    for (const char *c = choices; *c; k++) {
        size_t len = strcspn(c, "|");
        if (k)
            gm_buf_puts(b, k + 1 == n ? " or " : ", ");
        gm_buf_put(b, c, len);
        c += len + (c[len] == '|');
    }
}

/* value in the "|"-separated list? */
static bool S_in(const char *list, const char *value)
{
    size_t vl = strlen(value);
    for (const char *c = list; c && *c;) {
        size_t len = strcspn(c, "|");
        if (len == vl && strncmp(c, value, vl) == 0)
            return true;
        c += len + (c[len] == '|');
    }
    return false;
}

/* The choice value names, as the command is to read it; NULL: none. */
static const char *S_choice(const gm_opt *r, const char *value)
{
    if (S_in(r->choices, value))
        return value;
    for (size_t i = 0; r->aliases && r->aliases[i]; i += 2)
        if (strcmp(r->aliases[i], value) == 0)
            return r->aliases[i + 1];
    return NULL;
}

/* Split "a,b,c" onto the list (items trimmed of spaces); a list still empty
 * after it is an error. */
static bool S_list(const char *opt, const char *val, char ***out, size_t *n)
{
    char *copy = gm_xstrdup(val);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t len = strlen(tok);
        while (len && tok[len - 1] == ' ')
            tok[--len] = '\0';
        if (!len)
            continue;
        *out = gm_xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = gm_xstrdup(tok);
    }
    free(copy);
    if (*n == 0) {
        gm_cli_error("%s: empty list '%s'", opt, val);
        return false;
    }
    return true;
}

/* Store v by r's kind; false after printing why not. */
static bool S_set(const gm_opt_table *t, const gm_opt *r, const char *v, void *opts)
{
    gm_buf who = GM_BUF_INIT;   /* "render: --format", as the messages name it */
    gm_buf_printf(&who, "%s%s", t->value_pre ? t->value_pre : "", r->name);
    bool ok = true;
    switch (r->kind) {
    case GM_OPT_FLAG:
        *(bool *)S_at(opts, r->at) = true;
        break;
    case GM_OPT_STR:
        *(const char **)S_at(opts, r->at) = v;
        break;
    case GM_OPT_INT:
        ok = gm_cli_int(who.data, v, r->min, r->max, (long long *)S_at(opts, r->at));
        break;
    case GM_OPT_SECONDS:
        ok = gm_cli_seconds(who.data, v, (double *)S_at(opts, r->at));
        break;
    case GM_OPT_FRACTION: {
        char *end = NULL;
        errno = 0;
        double p = strtod(v, &end);
        ok = *v && !*end && !errno && p > 0.0 && p < 1.0;
        if (ok)
            *(double *)S_at(opts, r->at) = p;
        else
            gm_cli_error("%s: '%s' is not a number between 0 and 1", who.data, v);
        break;
    }
    case GM_OPT_CHOICE: {
        const char *c = S_choice(r, v);
        if (c) {
            *(const char **)S_at(opts, r->at) = c;
        } else {
            gm_buf w = GM_BUF_INIT;
            S_choices_words(&w, r->choices);
            gm_cli_error("%s: '%s' is not %s", who.data, v, w.data);
            gm_buf_free(&w);
            ok = false;
        }
        break;
    }
    case GM_OPT_LIST:
        ok = S_list(who.data, v, (char ***)S_at(opts, r->at), (size_t *)S_at(opts, r->at_n));
        break;
    case GM_OPT_CALL:
        ok = r->call(t->value_pre ? t->value_pre : "", r->name, v, opts, r->at);
        break;
    default:
        break;
    }
    gm_buf_free(&who);
    return ok;
}

static bool S_is_operand(const char *a)
{
    return a[0] != '-' || a[1] == '\0';
}

int gm_opt_parse(const gm_opt_table *t, unsigned variant, int argc, char **argv, void *opts,
                 int *stop)
{
    if (stop)
        *stop = argc;
    bool operands_only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!operands_only && strcmp(a, "--") == 0) {
            if (t->dashdash == GM_OPT_DD_STOP) {
                if (stop)
                    *stop = i;
                return 0;
            }
            if (t->dashdash == GM_OPT_DD_OPERANDS) {
                operands_only = true;
                continue;
            }
        }
        if (t->operand && (operands_only || S_is_operand(a))) {
            if (!t->operand(opts, a))
                return 2;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            gm_opt_help(stdout, t, variant);
            return 1;
        }
        const char *eq = NULL;
        const gm_opt *r = gm_opt_find(t, variant, a, &eq);
        if (!r) {
            gm_cli_error("%s'%s'%s", t->unknown_pre ? t->unknown_pre : "unknown option ", a,
                         t->unknown_post ? t->unknown_post : "");
            if (t->usage_on_error)
                gm_opt_help(stderr, t, variant);
            return 2;
        }
        const char *v = eq;
        if (gm_opt_takes_value(r) && !v) {
            bool has = i + 1 < argc &&
                       !(t->dashdash == GM_OPT_DD_STOP && strcmp(argv[i + 1], "--") == 0);
            if (!has) {
                gm_cli_error("%s%s needs a value%s", t->missing_pre ? t->missing_pre : "", a,
                             t->missing_post ? t->missing_post : "");
                return 2;
            }
            v = argv[++i];
        }
        if (!S_set(t, r, v, opts))
            return 2;
    }
    return 0;
}

/* ---- --help ------------------------------------------------------------------- */

/* Each line of text at column col; the first after `lead` (already printed,
 * `used` columns wide) when it fits, else on a line of its own. */
static void S_text_at(FILE *f, const char *text, int col, int used)
{
    bool first = true;
    for (const char *l = text; *l;) {
        size_t len = strcspn(l, "\n");
        if (first && used > 0) {
            if (used + 1 <= col)
                fprintf(f, "%*s", col - used, "");
            else
                fprintf(f, "\n%*s", col, "");
        } else {
            fprintf(f, "%*s", col, "");
        }
        fprintf(f, "%.*s\n", (int)len, l);
        first = false;
        l += len + (l[len] == '\n');
    }
}

void gm_opt_help(FILE *f, const gm_opt_table *t, unsigned variant)
{
    if (t->head)
        fputs(t->head, f);
    for (const gm_opt *r = t->rows; r->kind != GM_OPT_END; r++) {
        if (!r->help || (r->only & GM_OPT_HIDDEN) || !S_listed(r, variant))
            continue;
        const char *label = r->label ? r->label : r->name;
        if (!label) {   /* a note: its lines under the options, two spaces in */
            S_text_at(f, r->help, 2, 0);
            continue;
        }
        fprintf(f, "  %s", label);
        S_text_at(f, r->help, t->column, 2 + (int)strlen(label));
    }
    if (t->tail)
        fputs(t->tail, f);
}

/* ---- the docs ------------------------------------------------------------------ */

#ifndef GM_DATADIR
#define GM_DATADIR "/usr/local/share/gpumem-report"
#endif

/* The help's lines as one, the data directory this build was made for named
 * as the docs name it (the same docs for every PREFIX). */
static void S_joined(gm_buf *b, const char *text, void (*put)(gm_buf *, const char *, size_t))
{
    gm_buf one = GM_BUF_INIT;
    for (const char *l = text; *l;) {
        size_t len = strcspn(l, "\n");
        if (l != text)
            gm_buf_putc(&one, ' ');
        const char *dd = strstr(l, GM_DATADIR);
        if (dd && (size_t)(dd - l) < len) {
            gm_buf_put(&one, l, (size_t)(dd - l));
            gm_buf_puts(&one, "PREFIX/share/gpumem-report");
            gm_buf_put(&one, dd + strlen(GM_DATADIR), len - (size_t)(dd - l) - strlen(GM_DATADIR));
        } else {
            gm_buf_put(&one, l, len);
        }
        l += len + (l[len] == '\n');
    }
    put(b, one.data ? one.data : "", one.len);
    gm_buf_free(&one);
}

/* roff: - as \-, \ as \e, `code` in bold. */
static void S_roff(gm_buf *b, const char *s, size_t n)
{
    bool code = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '-')
            gm_buf_puts(b, "\\-");
        else if (s[i] == '\\')
            gm_buf_puts(b, "\\e");
        else if (s[i] == '`') {
            gm_buf_puts(b, code ? "\\fR" : "\\fB");
            code = !code;
        } else
            gm_buf_putc(b, s[i]);
    }
}

/* Markdown table cell: | and < escaped. */
static void S_cell(gm_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '|' || s[i] == '<')
            gm_buf_putc(b, '\\');
        gm_buf_putc(b, s[i]);
    }
}

static bool S_in_docs(const gm_opt *r, unsigned variant)
{
    return r->kind != GM_OPT_END && r->help && !(r->only & (GM_OPT_HIDDEN | GM_OPT_HIDDEN_DOCS)) &&
           S_listed(r, variant);
}

/* "(collect) " before a row of one variant, when the docs list them all. */
static const char *S_variant_tag(const gm_opt *r, unsigned variant)
{
    if (variant)
        return "";
    unsigned v = r->only & (GM_OPT_MAIN | GM_OPT_COLLECT);
    return v == GM_OPT_MAIN ? "(the main job) " : v == GM_OPT_COLLECT ? "(collect) " : "";
}

void gm_opt_man(gm_buf *b, const gm_opt_table *t, unsigned variant)
{
    for (const gm_opt *r = t->rows; r->kind != GM_OPT_END; r++) {
        if (!S_in_docs(r, variant))
            continue;
        const char *label = r->label ? r->label : r->name;
        if (label) {
            gm_buf_puts(b, ".TP\n.B ");
            S_roff(b, label, strlen(label));
            gm_buf_putc(b, '\n');
        } else {
            gm_buf_puts(b, ".IP\n");
        }
        gm_buf_puts(b, S_variant_tag(r, variant));
        S_joined(b, r->help, S_roff);
        gm_buf_putc(b, '\n');
    }
}

void gm_opt_md(gm_buf *b, const gm_opt_table *t, unsigned variant)
{
    for (const gm_opt *r = t->rows; r->kind != GM_OPT_END; r++) {
        const char *label = r->label ? r->label : r->name;
        if (!S_in_docs(r, variant) || !label)
            continue;
        gm_buf_puts(b, "| `");
        S_cell(b, label, strlen(label));
        gm_buf_puts(b, "` | ");
        S_cell(b, r->deflt ? r->deflt : "", r->deflt ? strlen(r->deflt) : 0);
        gm_buf_puts(b, " | ");
        gm_buf_puts(b, S_variant_tag(r, variant));
        S_joined(b, r->help, S_cell);
        gm_buf_puts(b, " |\n");
    }
}

void gm_opt_free(const gm_opt_table *t, void *opts)
{
    for (const gm_opt *r = t->rows; r->kind != GM_OPT_END; r++) {
        if (r->kind != GM_OPT_LIST)
            continue;
        char ***list = (char ***)S_at(opts, r->at);
        size_t *n = (size_t *)S_at(opts, r->at_n);
        for (size_t i = 0; i < *n; i++)
            free((*list)[i]);
        free(*list);
        *list = NULL;
        *n = 0;
    }
}
