/* fmt.h — numbers in words: one formatter per kind of quantity, shared by the
 * report's tables, its explanations and findings, and the chart labels, so a
 * value reads the same wherever it appears.
 *
 * Locale-free: digits are printed from integers (llround of v * 10^d), so
 * neither the decimal point nor the grouping of the C locale in force can
 * change the text.  Thousands are grouped with "," from 1,000 on.  An absent
 * value (NaN, infinity) is "—" unless said otherwise.  Every function appends
 * to a gm_buf; none escapes (digits, units and "—" need no escaping).
 */
#ifndef GM_FMT_H
#define GM_FMT_H

#include "buf.h"
#include "results.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GM_FMT_ABSENT "—"

/* v with `decimals` digits after the point (0 to 9), grouped: "1,234.5". */
void gm_fmt_fixed(gm_buf *b, double v, int decimals);
/* The same with an explicit sign: "+12.5", "-3.0" ("0.0" without one). */
void gm_fmt_signed(gm_buf *b, double v, int decimals);
/* v with `sig` significant digits, never in exponent form ("0.0531", "2,533",
 * "4.00" for sig=3). */
void gm_fmt_num(gm_buf *b, double v, int sig);
/* A count: "16,777,216". */
void gm_fmt_count(gm_buf *b, double v);
/* Bytes with binary prefixes when 1 KiB or more: "512 B", "64.0 MiB", "1.00 GiB"
 * (a buffer of 2^24 floats is 64.0 MiB exactly). */
void gm_fmt_bytes(gm_buf *b, double v);
/* A time given in milliseconds: under 1 µs in ns, under 1 ms in µs (one
 * decimal: "50.5 µs"), else ms with two decimals ("2.00 ms"). */
void gm_fmt_ms(gm_buf *b, double ms);
/* The unit gm_fmt_ms gives `ms` in ("ns", "µs" or "ms"), with the factor from
 * milliseconds and the decimals it uses: to give a range in the same unit. */
const char *gm_fmt_ms_unit(double ms, double *scale, int *decimals);
/* Bandwidth in GB/s (10^9 B/s): "2,658 GB/s", "20.5 GB/s", "0.125 GB/s". */
void gm_fmt_gbs(gm_buf *b, double gbs);
/* A percentage with one decimal: "92.6%". */
void gm_fmt_pct(gm_buf *b, double pct);
/* A ratio: "4.5×"; no decimal from 100 on ("120×"). */
void gm_fmt_ratio(gm_buf *b, double x);
/* Floating-point operations with decimal prefixes: "17.2 GFLOP". */
void gm_fmt_flop(gm_buf *b, double flop);
/* A value quoted as it was measured ("%.<sig>g" with '.'): the kernel's
 * output in a failed check; "NaN", "infinity", "-infinity" as they are. */
void gm_fmt_general(gm_buf *b, double v, int sig);
/* A parameter value as given: an integer, the shortest of %.15g / %.17g that
 * reads back as the same double, or the string; "—" when absent. */
void gm_fmt_value(gm_buf *b, const gm_value *v);

/* A value in its metric's unit, for the diff and the history: times ("ms"
 * from the timer, "ns" from the profiler) as gm_fmt_ms gives them, "byte" as
 * gm_fmt_bytes, "byte/s" in GB/s, "%" with one decimal, "pp" (percentage
 * points) likewise; anything else as a count when whole ("1,048,576
 * sector"), else to 3 or 4 significant digits, then the unit.  `sign`: "+"
 * before a positive value.  The unit is not escaped (catalog units need none;
 * escape an outside one before). */
void gm_fmt_quantity(gm_buf *b, double v, const char *unit, bool sign);
/* A relative change in percent, signed: "+27,700%", "+45.7%", "-0.12%". */
void gm_fmt_pct_change(gm_buf *b, double pct);

#ifdef __cplusplus
}
#endif

#endif
