/* escape.h — text from outside (kernel names, paths, commit ids, parameters) made
 * safe for each place it goes.  Each function appends to a gm_buf.
 */
#ifndef GM_ESCAPE_H
#define GM_ESCAPE_H

#include "buf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* HTML text and attribute values: & < > " ' escaped; control characters other
 * than \n and \t dropped. */
void gm_esc_html(gm_buf *b, const char *s);

/* Markdown inline text inside a GFM table cell or paragraph: the characters
 * with an inline meaning (\ ` * _ [ ] < > | ~ &) are backslash-escaped, and so
 * is a leading # + - = or the . / ) after leading digits, which would start a
 * block if the text opened a line; newlines and other control characters
 * become spaces.  The result never opens raw HTML, a link or a code span. */
void gm_esc_md(gm_buf *b, const char *s);

/* A Markdown code span holding s verbatim: picks a backquote fence longer than
 * any run of backquotes in s, pads with spaces when needed, escapes `|` as `\|`
 * (GFM tables split on it even inside code spans), newlines become spaces. */
void gm_esc_md_code(gm_buf *b, const char *s);

/* Text that marks code the way prose does, between single backquotes
 * ("the launches of `./app --n 4`"): each paired span becomes a code span
 * (gm_esc_md_code of what is between), everything else is escaped as
 * gm_esc_md escapes it, so an unpaired backquote stays a character.  The
 * result, like gm_esc_md's, never opens raw HTML or a link. */
void gm_esc_md_spans(gm_buf *b, const char *s);

/* A gnuplot single-quoted string literal, quotes included: ' doubled, control
 * characters replaced by spaces.  Single-quoted gnuplot strings expand nothing
 * (no backquote command substitution, no escapes); use with `noenhanced` so
 * that ^ _ @ & { } are not read as markup either. */
void gm_esc_gnuplot(gm_buf *b, const char *s);

/* A CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, or
 * begins or ends with a space, quotes doubled.  Text that a spreadsheet would
 * run as a formula (first character = + - @, tab or CR) gets a leading '
 * (OWASP's advice for CSV injection); numbers are written by the caller, not
 * through this function. */
void gm_esc_csv(gm_buf *b, const char *s);

#ifdef __cplusplus
}
#endif

#endif
