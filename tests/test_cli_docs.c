/* test_cli_docs.c — the man page, the README and --help say the same about
 * the options, because they come from one table (cli/options.c, cli/opt.h).
 *
 * docs/gpumem-report.1 holds one block per table (gm_opt_docs[]) and
 * README.md the block of the main job and collect, each between marker
 * comments; a block must be what the table writes (GM_UPDATE_GOLDEN=1 make
 * test rewrites them; review the diff).  Around the blocks, the synopses of
 * the man page, the README and `gpumem-report --help` may name only options
 * their command has, and a choice list (--format md|html) exactly as the
 * command takes it.  And a default the docs give is the one --help gives. */
#include "../cli/options.h"
#include "../core/buf.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the generated blocks ------------------------------------------------------------ */

/* The block named `name` in text: its begin marker ends with "options: NAME"
 * (then anything up to the end of the line), its end marker is the next line
 * that starts with `end`.  *from, *to: the block's content.  False when the
 * text has none. */
static bool S_block(const char *text, const char *begin, const char *name, const char *end,
                    size_t *from, size_t *to)
{
    gm_buf m = GM_BUF_INIT;
    gm_buf_printf(&m, "%s%s (", begin, name);
    const char *b = strstr(text, m.data);
    gm_buf_free(&m);
    if (!b)
        return false;
    const char *start = strchr(b, '\n');
    cr_assert_not_null(start);
    start++;
    const char *e = start;
    while (*e && strncmp(e, end, strlen(end)) != 0) {
        e = strchr(e, '\n');
        cr_assert_not_null(e, "no end marker after the block %s", name);
        e++;
    }
    cr_assert(*e, "no end marker after the block %s", name);
    *from = (size_t)(start - text);
    *to = (size_t)(e - text);
    return true;
}

/* Compare each block of `file` with what `gen` writes for it; rewrite the
 * file with GM_UPDATE_GOLDEN=1.  required: every table must have a block. */
static void S_check_blocks(const char *rel, const char *begin, const char *end, bool required,
                           void (*gen)(gm_buf *, const gm_opt_doc *))
{
    char *path = gmt_src(rel);
    char *text = gmt_text(path);
    bool update = getenv("GM_UPDATE_GOLDEN") && strcmp(getenv("GM_UPDATE_GOLDEN"), "1") == 0;
    size_t found = 0;
    for (size_t i = 0; i < gm_opt_docs_len; i++) {
        size_t from, to;
        if (!S_block(text, begin, gm_opt_docs[i].block, end, &from, &to)) {
            cr_assert(!required, "%s has no block of options for %s (%s%s (...)", rel,
                      gm_opt_docs[i].block, begin, gm_opt_docs[i].block);
            continue;
        }
        found++;
        gm_buf want = GM_BUF_INIT;
        gen(&want, &gm_opt_docs[i]);
        if (update && (to - from != want.len || strncmp(text + from, want.data, want.len))) {
            gm_buf nt = GM_BUF_INIT;
            gm_buf_put(&nt, text, from);
            gm_buf_puts(&nt, want.data);
            gm_buf_puts(&nt, text + to);
            FILE *f = fopen(path, "wb");
            cr_assert_not_null(f);
            fputs(nt.data, f);
            fclose(f);
            free(text);
            text = gm_buf_detach(&nt);
            cr_assert(S_block(text, begin, gm_opt_docs[i].block, end, &from, &to));
        }
        cr_assert(to - from == want.len && strncmp(text + from, want.data, want.len) == 0,
                  "%s: the options of %s are not what cli/options.c says "
                  "(GM_UPDATE_GOLDEN=1 make test rewrites them; review the diff).\n"
                  "--- %s has:\n%.*s\n--- the table says:\n%s",
                  rel, gm_opt_docs[i].block, rel, (int)(to - from), text + from, want.data);
        gm_buf_free(&want);
    }
    cr_assert_gt(found, 0, "%s has no block of options", rel);
    free(text);
    free(path);
}

static void S_man(gm_buf *b, const gm_opt_doc *d)
{
    gm_opt_man(b, d->table, d->variant);
}

static void S_md(gm_buf *b, const gm_opt_doc *d)
{
    gm_buf_puts(b, "| option | default | meaning |\n|---|---|---|\n");
    gm_opt_md(b, d->table, d->variant);
}

Test(cli_docs, the_man_page_lists_every_table)
{
    S_check_blocks("docs/gpumem-report.1", ".\\\" options: ", ".\\\" end of options", true,
                   S_man);
}

Test(cli_docs, the_readme_table_is_the_main_jobs)
{
    S_check_blocks("README.md", "<!-- options: ", "<!-- end of options", false, S_md);
}

/* ---- defaults ---------------------------------------------------------------------- */

/* A default the docs give as a number is the one --help gives. */
Test(cli_docs, numeric_defaults_are_in_the_help)
{
    for (size_t i = 0; i < gm_opt_docs_len; i++)
        for (const gm_opt *r = gm_opt_docs[i].table->rows; r->kind != GM_OPT_END; r++) {
            if (!r->deflt || !r->help || !isdigit((unsigned char)r->deflt[0]))
                continue;
            gmt_assert_has(r->help, "default");
            gmt_assert_has(r->help, r->deflt);
        }
}

/* ---- synopses ------------------------------------------------------------------------ */

/* The table of the command a synopsis line shows ("gpumem-report render ..."). */
static const gm_opt_table *S_table_of(const char *line)
{
    const char *g = strstr(line, "gpumem-report");
    if (!g)
        return NULL;
    g += strlen("gpumem-report");
    while (*g == ' ')
        g++;
    bool program = strstr(line, "-- PROGRAM") != NULL;
    static const struct {
        const char *word;
        const gm_opt_table *t;
    } subs[] = {{"render ", &gm_opts_render},   {"diff ", &gm_opts_diff},
                {"history ", &gm_opts_history}, {"merge ", &gm_opts_merge},
                {"list", &gm_opts_list}};
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
        if (strncmp(g, subs[i].word, strlen(subs[i].word)) == 0)
            return subs[i].t;
    if (strncmp(g, "collect ", 8) == 0)
        return program ? &gm_opts_program_collect : &gm_opts_collect;
    if (strncmp(g, "--version", 9) == 0)
        return NULL;
    return program ? &gm_opts_program : &gm_opts_main;
}

static const gm_opt *S_row(const gm_opt_table *t, const char *name)
{
    for (const gm_opt *r = t->rows; r->kind != GM_OPT_END; r++)
        if (r->name && strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

/* Every --option of the line is its command's, and --format's choices are
 * the command's. */
static void S_check_line(const char *where, const char *line)
{
    const gm_opt_table *t = S_table_of(line);
    if (!t)
        return;
    for (const char *p = strstr(line, "--"); p; p = strstr(p + 2, "--")) {
        if (p > line && p[-1] != ' ' && p[-1] != '[')
            continue;
        size_t n = 2;
        while (islower((unsigned char)p[n]) || p[n] == '-')
            n++;
        if (n == 2)
            continue;   /* "-- PROGRAM" */
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        const gm_opt *r = S_row(t, name);
        cr_assert_not_null(r, "%s: %s is no option of `%s` (the line: %s)", where, name,
                           t->name, line);
        if (r->kind == GM_OPT_CHOICE && p[n] == ' ' && islower((unsigned char)p[n + 1])) {
            size_t k = strcspn(p + n + 1, " ]");
            char given[64];
            snprintf(given, sizeof given, "%.*s", (int)k, p + n + 1);
            cr_assert_str_eq(given, r->choices, "%s: %s takes %s, not %s (the line: %s)", where,
                             name, r->choices, given, line);
        }
    }
}

/* The lines of text from the one that starts with `from` to the next that
 * starts with `to`, each given to S_check_line; a line that does not start
 * with "gpumem-report" (after spaces and "usage:") continues the one before. */
static void S_check_synopsis(const char *where, const char *text, const char *from,
                             const char *to)
{
    const char *s = strstr(text, from);
    cr_assert_not_null(s, "%s: no \"%s\"", where, from);
    s += strlen(from);
    const char *e = strstr(s, to);
    cr_assert_not_null(e, "%s: no \"%s\" after \"%s\"", where, to, from);
    gm_buf line = GM_BUF_INIT;
    size_t checked = 0;
    for (const char *l = s; l < e;) {
        size_t len = strcspn(l, "\n");
        const char *w = l;
        while (*w == ' ')
            w++;
        if (strncmp(w, "usage: ", 7) == 0)
            w += 7;
        if (strncmp(w, "gpumem-report", 13) == 0 && line.len) {
            S_check_line(where, line.data);
            checked++;
            line.len = 0;
        }
        gm_buf_put(&line, w, len - (size_t)(w - l));
        gm_buf_putc(&line, ' ');
        l += len + 1;
    }
    if (line.len) {
        S_check_line(where, line.data);
        checked++;
    }
    cr_assert_gt(checked, 5, "%s: only %zu synopsis lines found", where, checked);
    gm_buf_free(&line);
}

/* roff to plain text: fonts dropped, \- as -, .B and .br lines as words. */
static char *S_unroff(const char *s)
{
    gm_buf b = GM_BUF_INIT;
    for (const char *p = s; *p;) {
        if (strncmp(p, ".br\n", 4) == 0) {
            p += 4;
            continue;
        }
        if (strncmp(p, ".B ", 3) == 0) {
            p += 3;
            continue;
        }
        if (p[0] == '\\' && p[1] == 'f' && p[2]) {
            p += 3;
            continue;
        }
        if (p[0] == '\\' && p[1] == '-') {
            gm_buf_putc(&b, '-');
            p += 2;
            continue;
        }
        gm_buf_putc(&b, *p++);
    }
    gm_buf_puts(&b, "");
    return gm_buf_detach(&b);
}

Test(cli_docs, synopses_name_only_their_commands_options)
{
    char *readme_path = gmt_src("README.md"), *man_path = gmt_src("docs/gpumem-report.1");
    char *readme = gmt_text(readme_path), *man = gmt_text(man_path);
    S_check_synopsis("README.md", readme, "## Command line\n\n```\n", "```");
    char *plain = S_unroff(man);
    S_check_synopsis("docs/gpumem-report.1", plain, ".SH SYNOPSIS\n", ".SH DESCRIPTION");
    char *argv[] = {(char *)gmt_bin(), "--help", NULL};
    char *out = NULL;
    cr_assert_eq(gmt_run(argv, NULL, &out, NULL), 0);
    S_check_synopsis("gpumem-report --help", out, "usage:", "\n\n");
    free(out);
    free(plain);
    free(man);
    free(readme);
    free(man_path);
    free(readme_path);
}

/* Every option of every table is in the man page, the ones --help lists
 * with others in one line (history's gate options) too. */
Test(cli_docs, the_man_page_names_every_option)
{
    char *man_path = gmt_src("docs/gpumem-report.1");
    char *man = gmt_text(man_path);
    char *plain = S_unroff(man);
    for (size_t i = 0; i < gm_opt_docs_len; i++)
        for (const gm_opt *r = gm_opt_docs[i].table->rows; r->kind != GM_OPT_END; r++)
            if (r->name && !(r->only & GM_OPT_HIDDEN))
                cr_assert_not_null(strstr(plain, r->name), "the man page never names %s (%s)",
                                   r->name, gm_opt_docs[i].block);
    free(plain);
    free(man);
    free(man_path);
}
