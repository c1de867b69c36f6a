/* say.h — a sentence of the report written as a sentence: a format with
 * placeholders and, after it, the values that fill them, each marked with the
 * unit it is in.  A value is formatted by core/fmt.h and text from outside is
 * escaped by core/escape.h, exactly as a gm_fmt_* or gm_esc_* call of its own
 * would append it, so a sentence reads the same whether it was written piece
 * by piece or in one call.
 *
 *     gm_say(&b, "{} fetches {} in global-load sectors ({} per request where {} would do).",
 *            GM_CODE(name), GM_BYTES(fetched), GM_FIXED(spr, 1), GM_FIXED(ideal, 1));
 *
 * THE FORMAT is Markdown written by the program, copied as it is except for:
 *     {}      the next value, in order
 *     {{ }}   a literal { or }
 * Nothing else is special: `*`, `_`, `|`, backquotes, `%` and `\` are written
 * as they should appear ("**Hottest lines of {}**", "| {} | {} |\n", "{} of 100%").
 * Write the format as a string literal, or a choice between literals
 * (`shared ? "... {} wavefronts" : "... {} sectors"`): tests/test_say.c reads
 * every gm_say call in core/, reports/ and cli/ and fails when a format's
 * placeholders and the call's values differ in number, or when two choices
 * of a format differ.
 *
 * THE VALUES: one macro per kind, each a gm_say_arg.  Text given for a number,
 * or a double for text, does not compile; an integer given for text, or a
 * bare string without its macro, is a warning (the build keeps warnings at
 * zero); too few values for the macro's parameters is an error.
 *   numbers (core/fmt.h; NaN and infinity are "—" where that function says so)
 *     GM_COUNT(x)           gm_fmt_count       "16,777,216"
 *     GM_INT(i)             printf "%lld"      "1234": an integer as it is,
 *                                              ungrouped (what "%zu", "%d" gave)
 *     GM_BYTES(x)           gm_fmt_bytes       "64.0 MiB"
 *     GM_MS(ms)             gm_fmt_ms          "50.5 µs", "2.00 ms"
 *     GM_GBS(gbs)           gm_fmt_gbs         "2,658 GB/s"
 *     GM_PCT(pct)           gm_fmt_pct         "92.6%"
 *     GM_PCT_CHANGE(pct)    gm_fmt_pct_change  "+45.7%"
 *     GM_RATIO(x)           gm_fmt_ratio       "4.5×"
 *     GM_FLOP(x)            gm_fmt_flop        "17.2 GFLOP"
 *     GM_FIXED(x, d)        gm_fmt_fixed       d decimals: "1,234.5"
 *     GM_SIGNED(x, d)       gm_fmt_signed      "+12.5"
 *     GM_NUM(x, sig)        gm_fmt_num         sig significant digits: "0.0531"
 *     GM_GENERAL(x, sig)    gm_fmt_general     "%.<sig>g": "1e+30", "NaN"
 *     GM_QUANTITY(x, unit, sign)  gm_fmt_quantity  in a catalogue unit: "2.00 ms",
 *                           "1,048,576 sector"; sign: "+" before a positive value;
 *                           the unit is program text, not escaped
 *   text
 *     GM_TEXT(s)    gm_esc_md        outside text in prose or a table cell
 *     GM_CODE(s)    gm_esc_md_code   outside text as a code span: a name, a path
 *     GM_SPANS(s)   gm_esc_md_spans  outside text that marks code with backquotes
 *     GM_HTML(s)    gm_esc_html      outside text in HTML
 *     GM_VALUE(v)   a parameter's value (const gm_value *): gm_fmt_value, then
 *                   escaped as GM_TEXT, since a string value comes from outside
 *                   (so a number too: "0.5" is written "0\.5", which Markdown
 *                   shows as 0.5; for a number alone use a number kind)
 *     GM_LIT(s)     text of the program, not escaped: a word chosen by the code
 *                   (`GM_LIT(n == 1 ? "" : "s")`, `GM_LIT(shared ? "wavefronts" : "sectors")`)
 *     GM_BUF(&pb)   a gm_buf the program built with these escapers, appended as
 *                   it is (never the buffer being written to)
 * A NULL string is what the escaper makes of it: nothing for GM_TEXT, GM_SPANS,
 * GM_HTML, GM_LIT and an empty GM_BUF; an empty code span for GM_CODE.  Put
 * the text to show instead at the call: GM_CODE(run->variant ? run->variant : "?").
 *
 * CHECKED.  Each problem writes a marker that starts with "{?" where it is,
 * and the text goes on, so a broken sentence shows where it broke:
 *     "{?}"         a placeholder without a value (or a lone "}")
 *     "{?+value}"   a value without a placeholder, at the end of the text
 *     "{?x}"        an unknown placeholder "{x}" ("{0}", "{:.2}", "{ }": there is
 *                   no position, width or precision; the kind says it all)
 *     "{?{"         a lone "{"
 *     "{?value}"    a gm_say_arg that no macro made (kind GM_SAY_AS_NONE)
 * gm_say is an expression: true when the format and the values matched.  When
 * GM_SAY_STRICT is set in the environment (to anything but "" or "0") the
 * problem is also printed to stderr with its format, and the program
 * aborts: `make test`, `make asan` and tests/snapshot.sh set it, so a broken
 * sentence fails a test instead of reaching a report.
 *
 * HOW TO WRITE ONE
 *   - One sentence (or one table row) per call.  Every value is computed
 *     before anything is written, so a value is never a call that appends.
 *   - A choice of words: a choice of formats with the same placeholders, or
 *     GM_LIT of a choice of literals.  A choice of kinds: a conditional of two
 *     gm_say_args (`whole > 0 ? GM_PCT(p) : GM_LIT("—")`), or a static helper
 *     that returns one (`static gm_say_arg S_share(double part, double whole)`).
 *   - An optional clause: one gm_say (or gm_buf_puts) per part, split at the
 *     condition; or, when the shapes are few, one whole call per shape (a
 *     heading with or without its kernel).  A list: a loop, the separator
 *     with gm_buf_puts.
 *   - A piece that a helper appends (a run's label, a source line's citation):
 *     call it between two calls, or build it in a gm_buf and pass GM_BUF.
 *   - Text with no value: gm_buf_puts (gm_say needs at least one value; the
 *     compiler says so under -pedantic), and its braces are not special.
 */
#ifndef GM_SAY_H
#define GM_SAY_H

#include "buf.h"
#include "fmt.h"
#include "results.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GM_SAY_AS_NONE,   /* 0: not made by a macro (a zeroed or stray element) */
    GM_SAY_AS_COUNT,
    GM_SAY_AS_INT,
    GM_SAY_AS_BYTES,
    GM_SAY_AS_MS,
    GM_SAY_AS_GBS,
    GM_SAY_AS_PCT,
    GM_SAY_AS_PCT_CHANGE,
    GM_SAY_AS_RATIO,
    GM_SAY_AS_FLOP,
    GM_SAY_AS_FIXED,
    GM_SAY_AS_SIGNED,
    GM_SAY_AS_NUM,
    GM_SAY_AS_GENERAL,
    GM_SAY_AS_QUANTITY,
    GM_SAY_AS_TEXT,
    GM_SAY_AS_CODE,
    GM_SAY_AS_SPANS,
    GM_SAY_AS_HTML,
    GM_SAY_AS_VALUE,
    GM_SAY_AS_LIT,
    GM_SAY_AS_BUF,
} gm_say_kind;

/* One value.  The string comes first so that a bare number in the list is a
 * compile error and a bare string a warning (missing braces) instead of a
 * silent value. */
typedef struct {
    const char *s;           /* text kinds; the unit of GM_QUANTITY */
    gm_say_kind kind;
    int digits;              /* decimals (FIXED, SIGNED), significant digits (NUM, GENERAL),
                                the sign of QUANTITY */
    double x;                /* number kinds */
    long long i;             /* GM_INT */
    const gm_value *value;   /* GM_VALUE */
    const gm_buf *buf;       /* GM_BUF */
} gm_say_arg;

#define GM_SAY_X_(k, v) ((gm_say_arg){.kind = (k), .x = (v)})
#define GM_SAY_XD_(k, v, d) ((gm_say_arg){.kind = (k), .x = (v), .digits = (d)})
#define GM_SAY_S_(k, str) ((gm_say_arg){.kind = (k), .s = (str)})

#define GM_COUNT(x) GM_SAY_X_(GM_SAY_AS_COUNT, (x))
#define GM_INT(n) ((gm_say_arg){.kind = GM_SAY_AS_INT, .i = (n)})
#define GM_BYTES(x) GM_SAY_X_(GM_SAY_AS_BYTES, (x))
#define GM_MS(ms) GM_SAY_X_(GM_SAY_AS_MS, (ms))
#define GM_GBS(gbs) GM_SAY_X_(GM_SAY_AS_GBS, (gbs))
#define GM_PCT(pct) GM_SAY_X_(GM_SAY_AS_PCT, (pct))
#define GM_PCT_CHANGE(pct) GM_SAY_X_(GM_SAY_AS_PCT_CHANGE, (pct))
#define GM_RATIO(x) GM_SAY_X_(GM_SAY_AS_RATIO, (x))
#define GM_FLOP(x) GM_SAY_X_(GM_SAY_AS_FLOP, (x))
#define GM_FIXED(x, d) GM_SAY_XD_(GM_SAY_AS_FIXED, (x), (d))
#define GM_SIGNED(x, d) GM_SAY_XD_(GM_SAY_AS_SIGNED, (x), (d))
#define GM_NUM(x, sig) GM_SAY_XD_(GM_SAY_AS_NUM, (x), (sig))
#define GM_GENERAL(x, sig) GM_SAY_XD_(GM_SAY_AS_GENERAL, (x), (sig))
#define GM_QUANTITY(v, unit, sign) \
    ((gm_say_arg){.kind = GM_SAY_AS_QUANTITY, .x = (v), .s = (unit), .digits = (sign) ? 1 : 0})
#define GM_TEXT(s) GM_SAY_S_(GM_SAY_AS_TEXT, (s))
#define GM_CODE(s) GM_SAY_S_(GM_SAY_AS_CODE, (s))
#define GM_SPANS(s) GM_SAY_S_(GM_SAY_AS_SPANS, (s))
#define GM_HTML(s) GM_SAY_S_(GM_SAY_AS_HTML, (s))
#define GM_VALUE(v) ((gm_say_arg){.kind = GM_SAY_AS_VALUE, .value = (v)})
#define GM_LIT(s) GM_SAY_S_(GM_SAY_AS_LIT, (s))
#define GM_BUF(pb) ((gm_say_arg){.kind = GM_SAY_AS_BUF, .buf = (pb)})

/* Append fmt to b with its placeholders filled by the values after it (at
 * least one).  The values travel as one array, so their number is known. */
#define gm_say(b, fmt, ...)                                                        \
    gm_say_args((b), (fmt), (const gm_say_arg[]){__VA_ARGS__},                     \
                sizeof((const gm_say_arg[]){__VA_ARGS__}) / sizeof(gm_say_arg))

/* The function behind gm_say: n values in v.  True when fmt and the values
 * matched; false after writing the markers above (and, under GM_SAY_STRICT,
 * it does not return). */
bool gm_say_args(gm_buf *b, const char *fmt, const gm_say_arg *v, size_t n);

/* One value, as a placeholder receives it; false (after writing "{?value}")
 * for a gm_say_arg that no macro made. */
bool gm_say_value(gm_buf *b, gm_say_arg v);

/* The placeholders in fmt, or -1 when it holds anything else between braces
 * or a lone brace: what tests/test_say.c checks each call's values against. */
int gm_say_placeholders(const char *fmt);

#ifdef __cplusplus
}
#endif

#endif
