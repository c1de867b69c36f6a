/* test_say.c — a sentence in one call (core/say.h): every kind of value
 * appends what its core/fmt.h or core/escape.h function appends, text from
 * outside is escaped and never read as a format, the format is copied as
 * Markdown, literal braces, and the checks: a placeholder without a value, a
 * value without a placeholder, an unknown placeholder, a lone brace, each
 * marked in the text and fatal under GM_SAY_STRICT; and every gm_say call in
 * the source has as many values as its format has placeholders. */
#include "../core/buf.h"
#include "../core/escape.h"
#include "../core/fmt.h"
#include "../core/say.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* `make test` runs with GM_SAY_STRICT=1; the tests of the markers run without. */
static void S_lenient(void) { unsetenv("GM_SAY_STRICT"); }

static void S_strict(void)
{
    setenv("GM_SAY_STRICT", "1", 1);
    cr_redirect_stderr();
}

/* ---- every kind as its formatter ------------------------------------------ */

static const double S_numbers[] = {0.0, 1.0, -3.25, 0.0531, 999.95, 1234.5678, 16777216.0,
                                   67108864.0, 1e9, 2.5e12, NAN, INFINITY};
#define N_NUMBERS (sizeof S_numbers / sizeof S_numbers[0])

/* "<" + what gm_say writes for v + ">" must be "<" + want + ">". */
static void S_expect(gm_say_arg v, const gm_buf *want)
{
    gm_buf got = GM_BUF_INIT;
    cr_assert(gm_say(&got, "<{}>", v));
    gm_buf w = GM_BUF_INIT;
    gm_buf_puts(&w, "<");
    if (want->len)
        gm_buf_put(&w, want->data, want->len);
    gm_buf_puts(&w, ">");
    cr_assert_str_eq(got.data, w.data, "kind %d", (int)v.kind);
    gm_buf_free(&got);
    gm_buf_free(&w);
}

Test(say, every_number_kind_as_its_formatter)
{
    for (size_t i = 0; i < N_NUMBERS; i++) {
        double x = S_numbers[i];
        gm_buf w = GM_BUF_INIT;
#define KIND(arg, call)   \
    do {                  \
        w.len = 0;        \
        call;             \
        S_expect(arg, &w); \
    } while (0)
        KIND(GM_COUNT(x), gm_fmt_count(&w, x));
        KIND(GM_BYTES(x), gm_fmt_bytes(&w, x));
        KIND(GM_MS(x), gm_fmt_ms(&w, x));
        KIND(GM_GBS(x), gm_fmt_gbs(&w, x));
        KIND(GM_PCT(x), gm_fmt_pct(&w, x));
        KIND(GM_PCT_CHANGE(x), gm_fmt_pct_change(&w, x));
        KIND(GM_RATIO(x), gm_fmt_ratio(&w, x));
        KIND(GM_FLOP(x), gm_fmt_flop(&w, x));
        for (int d = 0; d < 4; d++) {
            KIND(GM_FIXED(x, d), gm_fmt_fixed(&w, x, d));
            KIND(GM_SIGNED(x, d), gm_fmt_signed(&w, x, d));
            KIND(GM_NUM(x, d + 1), gm_fmt_num(&w, x, d + 1));
            KIND(GM_GENERAL(x, d + 1), gm_fmt_general(&w, x, d + 1));
        }
        static const char *units[] = {"ms", "ns", "byte", "byte/s", "%", "pp", "sector"};
        for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
            KIND(GM_QUANTITY(x, units[u], false), gm_fmt_quantity(&w, x, units[u], false));
            KIND(GM_QUANTITY(x, units[u], true), gm_fmt_quantity(&w, x, units[u], true));
        }
#undef KIND
        gm_buf_free(&w);
    }
}

Test(say, numbers_read_as_the_report_writes_them)
{
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{} fetches {} in global-load sectors ({} per request where {} would do).",
           GM_CODE("transpose<naive>"), GM_BYTES(67108864.0), GM_FIXED(4.0, 1),
           GM_FIXED(1.0, 1));
    cr_assert_str_eq(b.data, "`transpose<naive>` fetches 64.0 MiB in global-load sectors "
                             "(4.0 per request where 1.0 would do).");
    b.len = 0;
    gm_say(&b, "{} | {} | {} | {} | {} | {} | {}", GM_COUNT(16777216), GM_INT(1234567),
           GM_MS(0.0505), GM_PCT(92.63), GM_RATIO(4.5), GM_GBS(2658.2), GM_COUNT(NAN));
    cr_assert_str_eq(b.data, "16,777,216 | 1234567 | 50.5 µs | 92.6% | 4.5× | 2,658 GB/s | —");
    gm_buf_free(&b);
}

Test(say, int_is_printed_as_printf_did)
{
    gm_buf b = GM_BUF_INIT;
    size_t n = 12345;
    gm_say(&b, "{} {} {}", GM_INT(n), GM_INT(-7), GM_INT(0));
    cr_assert_str_eq(b.data, "12345 -7 0");
    gm_buf_free(&b);
}

Test(say, every_text_kind_as_its_escaper)
{
    static const char *texts[] = {"plain", "", "*x* _y_ `z` | a \\ b", "<script>alert(1)</script>",
                                  "# heading", "1. list", "a\nb\tc", "``code`` with `ticks`",
                                  "{} {{ }} {x}", "&amp; [l](u) ~s~"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        const char *s = texts[i];
        gm_buf w = GM_BUF_INIT;
        gm_esc_md(&w, s);
        S_expect(GM_TEXT(s), &w);
        w.len = 0;
        gm_esc_md_code(&w, s);
        S_expect(GM_CODE(s), &w);
        w.len = 0;
        gm_esc_md_spans(&w, s);
        S_expect(GM_SPANS(s), &w);
        w.len = 0;
        gm_esc_html(&w, s);
        S_expect(GM_HTML(s), &w);
        w.len = 0;
        gm_buf_puts(&w, s);
        S_expect(GM_LIT(s), &w);
        gm_buf piece = GM_BUF_INIT;
        gm_buf_puts(&piece, s);
        S_expect(GM_BUF(&piece), &w);
        gm_buf_free(&piece);
        gm_value v = {.kind = GM_V_STR, .s = (char *)s};
        w.len = 0;
        gm_esc_md(&w, s);
        S_expect(GM_VALUE(&v), &w);
        gm_buf_free(&w);
    }
}

Test(say, value_formats_then_escapes)
{
    gm_buf b = GM_BUF_INIT;
    gm_value i = {.kind = GM_V_INT, .i = 4096};
    gm_value r = {.kind = GM_V_REAL, .r = 0.1};
    gm_value s = {.kind = GM_V_STR, .s = (char *)"*bold* <b>"};
    gm_value none = {.kind = GM_V_ABSENT};
    gm_say(&b, "{}, {}, {}, {}", GM_VALUE(&i), GM_VALUE(&r), GM_VALUE(&s), GM_VALUE(&none));
    /* as gm_esc_md escapes any text: "0." could open a list */
    cr_assert_str_eq(b.data, "4096, 0\\.1, \\*bold\\* \\<b\\>, —");
    gm_buf_free(&b);
}

/* ---- escaping ------------------------------------------------------------- */

Test(say, hostile_text_is_escaped_and_never_read_as_a_format)
{
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "Kernel {} in {}: {}.", GM_CODE("k`|`<img src=x>"),
           GM_TEXT("<script>alert(1)</script> [x](javascript:1) *a* | b"), GM_TEXT("{} {x} {{"));
    cr_assert_str_eq(b.data,
                     "Kernel ``k`\\|`<img src=x>`` in \\<script\\>alert(1)\\</script\\> "
                     "\\[x\\](javascript:1) \\*a\\* \\| b: {} {x} {{.");
    b.len = 0;
    gm_say(&b, "<p title=\"{}\">{}</p>", GM_HTML("\" onclick='x'"), GM_HTML("<b>&"));
    cr_assert_str_eq(b.data, "<p title=\"&quot; onclick=&#39;x&#39;\">&lt;b&gt;&amp;</p>");
    gm_buf_free(&b);
}

Test(say, null_text_is_what_the_escaper_makes_of_it)
{
    gm_buf b = GM_BUF_INIT, empty = GM_BUF_INIT;
    gm_say(&b, "[{}][{}][{}][{}][{}][{}]", GM_TEXT(NULL), GM_CODE(NULL), GM_SPANS(NULL),
           GM_HTML(NULL), GM_LIT(NULL), GM_BUF(&empty));
    cr_assert_str_eq(b.data, "[][`  `][][][][]");
    gm_buf_free(&b);
}

Test(say, the_format_is_markdown_as_written)
{
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "**{}** | `x` | _{}_ | 100% \\* ~~s~~ <br> %s %d\n", GM_INT(1), GM_INT(2));
    cr_assert_str_eq(b.data, "**1** | `x` | _2_ | 100% \\* ~~s~~ <br> %s %d\n");
    gm_buf_free(&b);
}

Test(say, literal_braces)
{
    gm_buf b = GM_BUF_INIT;
    cr_assert(gm_say(&b, "{{{}}} {{x}} }}{{ {{}}", GM_INT(7)));
    cr_assert_str_eq(b.data, "{7} {x} }{ {}");
    cr_assert_eq(gm_say_placeholders("{{{}}} {{x}} }}{{ {{}}"), 1);
    gm_buf_free(&b);
}

Test(say, appends_to_what_is_there)
{
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, "Before. ");
    gm_say(&b, "{} after.", GM_COUNT(1000));
    cr_assert_str_eq(b.data, "Before. 1,000 after.");
    gm_buf_free(&b);
}

Test(say, a_value_may_be_a_choice_of_kinds)
{
    gm_buf b = GM_BUF_INIT;
    for (int known = 0; known < 2; known++)
        gm_say(&b, "[{}]", known ? GM_PCT(12.5) : GM_LIT("—"));
    cr_assert_str_eq(b.data, "[—][12.5%]");
    gm_buf_free(&b);
}

/* ---- the checks, lenient: a marker in the text ---------------------------- */

Test(say, placeholder_without_a_value, .init = S_lenient)
{
    gm_buf b = GM_BUF_INIT;
    cr_assert_not(gm_say(&b, "{} and {} and {}.", GM_INT(1)));
    cr_assert_str_eq(b.data, "1 and {?} and {?}.");
    gm_buf_free(&b);
}

Test(say, value_without_a_placeholder, .init = S_lenient)
{
    gm_buf b = GM_BUF_INIT;
    cr_assert_not(gm_say(&b, "{} only.", GM_INT(1), GM_BYTES(1024), GM_TEXT("*t*")));
    cr_assert_str_eq(b.data, "1 only.{?+1.00 KiB}{?+\\*t\\*}");
    gm_buf_free(&b);
}

Test(say, unknown_placeholders, .init = S_lenient)
{
    gm_buf b = GM_BUF_INIT;
    cr_assert_not(gm_say(&b, "{x} {0} {:.2} {}", GM_INT(5)));
    cr_assert_str_eq(b.data, "{?x} {?0} {?:.2} 5");
    gm_buf_free(&b);
}

Test(say, lone_braces, .init = S_lenient)
{
    gm_buf b = GM_BUF_INIT;
    cr_assert_not(gm_say(&b, "a } b {} c {", GM_INT(5)));
    cr_assert_str_eq(b.data, "a {?} b 5 c {?{");
    b.len = 0;
    cr_assert_not(gm_say(&b, "{ {}", GM_INT(5)));
    cr_assert_str_eq(b.data, "{?{ 5");
    gm_buf_free(&b);
}

Test(say, value_not_made_by_a_macro, .init = S_lenient)
{
    gm_buf b = GM_BUF_INIT;
    gm_say_arg v[2] = {GM_INT(1)};   /* v[1] zeroed: no kind */
    cr_assert_not(gm_say_args(&b, "{}, {}", v, 2));
    cr_assert_str_eq(b.data, "1, {?value}");
    gm_buf_free(&b);
}

Test(say, strict_zero_is_lenient)
{
    setenv("GM_SAY_STRICT", "0", 1);
    gm_buf b = GM_BUF_INIT;
    cr_assert_not(gm_say(&b, "{} {}", GM_INT(1)));
    cr_assert_str_eq(b.data, "1 {?}");
    gm_buf_free(&b);
}

Test(say, placeholders_counted)
{
    cr_assert_eq(gm_say_placeholders(""), 0);
    cr_assert_eq(gm_say_placeholders("no value"), 0);
    cr_assert_eq(gm_say_placeholders("{} and {}"), 2);
    cr_assert_eq(gm_say_placeholders("{{}}"), 0);
    cr_assert_eq(gm_say_placeholders("{{{}}}"), 1);
    cr_assert_eq(gm_say_placeholders("{x}"), -1);
    cr_assert_eq(gm_say_placeholders("a } b"), -1);
    cr_assert_eq(gm_say_placeholders("a {"), -1);
    cr_assert_eq(gm_say_placeholders(NULL), 0);
}

/* ---- the checks, strict: the program stops -------------------------------- */

Test(say, strict_placeholder_without_a_value, .init = S_strict, .signal = SIGABRT)
{
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{} and {}", GM_INT(1));
    gm_buf_free(&b);
}

Test(say, strict_value_without_a_placeholder, .init = S_strict, .signal = SIGABRT)
{
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{}", GM_INT(1), GM_INT(2));
    gm_buf_free(&b);
}

Test(say, strict_unknown_placeholder, .init = S_strict, .signal = SIGABRT)
{
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{n}", GM_INT(1));
    gm_buf_free(&b);
}

Test(say, strict_lone_brace, .init = S_strict, .signal = SIGABRT)
{
    gm_buf b = GM_BUF_INIT;
    gm_say(&b, "{} }", GM_INT(1));
    gm_buf_free(&b);
}

Test(say, strict_passes_a_good_sentence, .init = S_strict)
{
    gm_buf b = GM_BUF_INIT;
    cr_assert(gm_say(&b, "{{{}}} of {}", GM_INT(1), GM_PCT(50)));
    cr_assert_str_eq(b.data, "{1} of 50.0%");
    gm_buf_free(&b);
}

/* ---- every call in the source --------------------------------------------- */

/* Past a string or character literal that opens at p. */
static const char *S_past_literal(const char *p)
{
    char q = *p++;
    while (*p && *p != q) {
        if (*p == '\\' && p[1])
            p++;
        p++;
    }
    return *p ? p + 1 : p;
}

/* Past a comment at p, or p itself when none opens there. */
static const char *S_past_comment(const char *p)
{
    if (p[0] == '/' && p[1] == '*') {
        const char *e = strstr(p + 2, "*/");
        return e ? e + 2 : p + strlen(p);
    }
    if (p[0] == '/' && p[1] == '/') {
        const char *e = strchr(p, '\n');
        return e ? e : p + strlen(p);
    }
    return p;
}

static int S_line_of(const char *src, const char *at)
{
    int line = 1;
    for (const char *p = src; p < at; p++)
        line += *p == '\n';
    return line;
}

/* One call from just after its '(': the placeholders of each choice of the
 * format (a run of adjacent string literals in the second argument) and the
 * number of values; a problem is appended to errs.  Returns the end. */
static const char *S_check_call(const char *name, const char *src, const char *call,
                                const char *p, gm_buf *errs)
{
    int depth = 0, counts[8], n_counts = 0;
    size_t arg = 0;
    bool in_run = false;
    gm_buf run = GM_BUF_INIT;
    for (;;) {
        const char *c = S_past_comment(p);
        if (c != p) {
            p = c;
            continue;
        }
        if (*p == '"' && arg == 1) {
            const char *e = S_past_literal(p);
            if (!in_run)
                run.len = 0;
            gm_buf_put(&run, p + 1, (size_t)(e - p - 2));
            gm_buf_putc(&run, '\0');
            run.len--;
            in_run = true;
            p = e;
            continue;
        }
        if (*p && isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (in_run) {
            if (n_counts < 8)
                counts[n_counts++] = gm_say_placeholders(run.data ? run.data : "");
            in_run = false;
        }
        if (!*p)
            break;
        if (*p == '"' || *p == '\'') {
            p = S_past_literal(p);
            continue;
        }
        if (strchr("([{", *p))
            depth++;
        else if (strchr(")]}", *p) && depth-- == 0)
            break;
        else if (*p == ',' && depth == 0)
            arg++;
        p++;
    }
    gm_buf_free(&run);
    int values = (int)arg - 1, line = S_line_of(src, call);
    if (!n_counts)
        gm_buf_printf(errs, "%s:%d: the format is not a string literal\n", name, line);
    for (int i = 0; i < n_counts; i++) {
        if (counts[i] < 0)
            gm_buf_printf(errs, "%s:%d: a brace other than {}, {{ or }} in the format\n", name,
                          line);
        else if (counts[i] != values)
            gm_buf_printf(errs, "%s:%d: %d placeholder%s for %d value%s\n", name, line, counts[i],
                          counts[i] == 1 ? "" : "s", values, values == 1 ? "" : "s");
    }
    return *p ? p + 1 : p;
}

/* Every gm_say call in a C source text; returns how many. */
static size_t S_check_calls(const char *name, const char *src, gm_buf *errs)
{
    size_t calls = 0;
    const char *p = src;
    while (*p) {
        const char *c = S_past_comment(p);
        if (c != p) {
            p = c;
        } else if (*p == '"' || *p == '\'') {
            p = S_past_literal(p);
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            const char *id = p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            if (p - id != 6 || strncmp(id, "gm_say", 6) != 0)
                continue;
            const char *q = p;
            while (isspace((unsigned char)*q))
                q++;
            if (*q == '(') {
                p = S_check_call(name, src, id, q + 1, errs);
                calls++;
            }
        } else {
            p++;
        }
    }
    return calls;
}

Test(say, source_check_finds_what_does_not_match)
{
    const char *src =
        "static void f(gm_buf *b)\n"
        "{\n"
        "    /* gm_say(b, \"{} {}\", GM_INT(1)) in a comment is not a call */\n"
        "    gm_say(b, \"{} of \" /* split */ \"{}\\\"}}\\n\", GM_INT(1), f(2, 3));\n"
        "    gm_say(b, \"{} and {}\", GM_INT(1));\n"
        "    gm_say(b, x ? \"{}\" : \"{} {}\", GM_INT(1));\n"
        "    gm_say(b, \"{n}\", GM_INT(1));\n"
        "    gm_say(b, fmt, GM_INT(1));\n"
        "    gm_say_args(b, \"{}\", v, 0); char c = '\"'; gm_sayer(b, \"{}\");\n"
        "    gm_say(b, \"{{{}}}\", (gm_say_arg){.kind = GM_SAY_AS_INT, .i = 1});\n"
        "}\n";
    gm_buf errs = GM_BUF_INIT;
    cr_assert_eq(S_check_calls("f.c", src, &errs), 6);
    cr_assert_str_eq(errs.data, "f.c:5: 2 placeholders for 1 value\n"
                                "f.c:6: 2 placeholders for 1 value\n"
                                "f.c:7: a brace other than {}, {{ or }} in the format\n"
                                "f.c:8: the format is not a string literal\n");
    gm_buf_free(&errs);
}

Test(say, every_call_in_the_source_matches)
{
    static const char *dirs[] = {"core", "reports", "cli"};
    gm_buf errs = GM_BUF_INIT;
    size_t files = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char *dir = gmt_src(dirs[d]);
        DIR *dp = opendir(dir);
        cr_assert(dp, "cannot open %s", dir);
        for (struct dirent *e; (e = readdir(dp)) != NULL;) {
            size_t n = strlen(e->d_name);
            if (n < 3 || e->d_name[n - 2] != '.' || !strchr("ch", e->d_name[n - 1]) ||
                strncmp(e->d_name, "say.", 4) == 0)
                continue;
            char *path = gmt_join(dir, e->d_name);
            char *src = gmt_text(path);
            S_check_calls(path, src, &errs);
            files++;
            free(src);
            free(path);
        }
        closedir(dp);
        free(dir);
    }
    cr_assert_gt(files, 20, "only %zu source files read", files);
    cr_assert_eq(errs.len, 0, "%s", errs.data);
    gm_buf_free(&errs);
}
