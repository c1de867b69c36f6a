/* fmt.c — numbers in words, locale-free (fmt.h). */
#include "fmt.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy a printf result, replacing the locale's decimal point with '.'. */
static void S_put_c_locale(gm_buf *b, const char *s)
{
    const char *dp = localeconv()->decimal_point;
    size_t dl = dp ? strlen(dp) : 0;
    while (*s) {
        if (dl && strncmp(s, dp, dl) == 0) {
            gm_buf_putc(b, '.');
            s += dl;
        } else {
            gm_buf_putc(b, *s++);
        }
    }
}

void gm_fmt_general(gm_buf *b, double v, int sig)
{
    if (!isfinite(v)) {
        gm_buf_puts(b, isnan(v) ? "NaN" : v > 0 ? "infinity" : "-infinity");
        return;
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*g", sig, v);
    S_put_c_locale(b, tmp);
}

static void S_fixed(gm_buf *b, double v, int dec, bool plus)
{
    static const double p10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    if (!isfinite(v)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    dec = dec < 0 ? 0 : dec > 9 ? 9 : dec;
    /* llround needs the scaled value to fit a long long: give up decimals
     * first (no figure of a report is that large with that many) */
    while (dec > 0 && fabs(v) * p10[dec] >= 9e18)
        dec--;
    if (fabs(v) >= 9e18) {
        gm_fmt_general(b, v, 17);
        return;
    }
    long long q = llround(fabs(v) * p10[dec]);
    if (v < 0 && q != 0)
        gm_buf_putc(b, '-');
    else if (plus && q != 0)
        gm_buf_putc(b, '+');
    long long unit = (long long)p10[dec];
    char digits[32];
    int nd = snprintf(digits, sizeof digits, "%lld", q / unit);
    for (int i = 0; i < nd; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            gm_buf_putc(b, ',');
        gm_buf_putc(b, digits[i]);
    }
    if (dec > 0)
        gm_buf_printf(b, ".%0*lld", dec, q % unit);
}

void gm_fmt_fixed(gm_buf *b, double v, int decimals) { S_fixed(b, v, decimals, false); }

void gm_fmt_signed(gm_buf *b, double v, int decimals) { S_fixed(b, v, decimals, true); }

void gm_fmt_num(gm_buf *b, double v, int sig)
{
    if (!isfinite(v)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    if (v == 0) {
        gm_buf_puts(b, "0");
        return;
    }
    /* digits after the point so that `sig` digits are significant:
     * 2532.6 -> 0 ("2,533"), 0.05314 -> 4 ("0.0531") for sig = 3 */
    int d = sig - 1 - (int)floor(log10(fabs(v)));
    S_fixed(b, v, d < 0 ? 0 : d, false);
}

void gm_fmt_count(gm_buf *b, double v) { S_fixed(b, v, 0, false); }

void gm_fmt_bytes(gm_buf *b, double v)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (!isfinite(v)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    if (fabs(v) < 1024) {
        S_fixed(b, v, 0, false);
        gm_buf_puts(b, " B");
        return;
    }
    int u = -1;
    while (fabs(v) >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    /* three significant digits: 64.0 MiB, 512 MiB, 1.00 GiB */
    S_fixed(b, v, fabs(v) >= 100 ? 0 : fabs(v) >= 10 ? 1 : 2, false);
    gm_buf_putc(b, ' ');
    gm_buf_puts(b, units[u]);
}

const char *gm_fmt_ms_unit(double ms, double *scale, int *decimals)
{
    /* the thresholds are where the rounded figure would reach 1,000 of the
     * smaller unit: 0.99995 ms prints as 1.00 ms, not 1,000.0 µs */
    if (fabs(ms) < 0.00095) {
        *scale = 1e6, *decimals = 1;
        return "ns";
    }
    if (fabs(ms) < 0.99995) {
        *scale = 1e3, *decimals = 1;
        return "µs";
    }
    *scale = 1.0, *decimals = 2;
    return "ms";
}

void gm_fmt_ms(gm_buf *b, double ms)
{
    if (!isfinite(ms)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    double scale;
    int dec;
    const char *unit = gm_fmt_ms_unit(ms, &scale, &dec);
    S_fixed(b, ms * scale, dec, false);
    gm_buf_putc(b, ' ');
    gm_buf_puts(b, unit);
}

void gm_fmt_gbs(gm_buf *b, double gbs)
{
    if (!isfinite(gbs)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    S_fixed(b, gbs, fabs(gbs) >= 99.95 ? 0 : fabs(gbs) >= 0.995 ? 1 : 3, false);
    gm_buf_puts(b, " GB/s");
}

void gm_fmt_pct(gm_buf *b, double pct)
{
    if (!isfinite(pct)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    S_fixed(b, pct, 1, false);   /* "0.0%" for a value under 0.05 %: said as measured */
    gm_buf_putc(b, '%');
}

void gm_fmt_ratio(gm_buf *b, double x)
{
    if (!isfinite(x)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    S_fixed(b, x, fabs(x) >= 99.95 ? 0 : 1, false);
    gm_buf_puts(b, "×");
}

void gm_fmt_flop(gm_buf *b, double flop)
{
    static const char *const unit[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
    if (!isfinite(flop)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    int u = 0;
    while (fabs(flop) >= 999.95 && u < 5) {
        flop /= 1000.0;
        u++;
    }
    S_fixed(b, flop, u ? 1 : 0, false);
    gm_buf_putc(b, ' ');
    gm_buf_puts(b, unit[u]);
}

void gm_fmt_value(gm_buf *b, const gm_value *v)
{
    switch (v->kind) {
    case GM_V_ABSENT:
        gm_buf_puts(b, GM_FMT_ABSENT);
        break;
    case GM_V_INT:
        gm_buf_printf(b, "%lld", v->i);
        break;
    case GM_V_REAL: {
        /* printf and strtod read the same locale, so the round trip holds in
         * any; only the decimal point is then put back to '.' */
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%.15g", v->r);
        if (strtod(tmp, NULL) != v->r)
            snprintf(tmp, sizeof tmp, "%.17g", v->r);
        S_put_c_locale(b, tmp);
        break;
    }
    case GM_V_STR:
        gm_buf_puts(b, v->s ? v->s : "");
        break;
    }
}

void gm_fmt_quantity(gm_buf *b, double v, const char *unit, bool sign)
{
    if (!isfinite(v)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    const char *u = unit ? unit : "";
    double scale;
    int dec;
    if (strcmp(u, "ms") == 0 || strcmp(u, "ns") == 0) {
        /* one unit family for times: the profiler's ns and the timer's ms both
         * print as ns, µs or ms by size */
        double ms = strcmp(u, "ns") == 0 ? v / 1e6 : v;
        const char *tu = gm_fmt_ms_unit(ms, &scale, &dec);
        S_fixed(b, ms * scale, dec, sign);
        gm_buf_putc(b, ' ');
        gm_buf_puts(b, tu);
        return;
    }
    if (sign && v > 0)
        gm_buf_putc(b, '+');
    if (strcmp(u, "byte") == 0) {
        gm_fmt_bytes(b, v);
    } else if (strcmp(u, "byte/s") == 0 || strcmp(u, "byte/second") == 0) {
        gm_fmt_gbs(b, v / 1e9);
    } else if (strcmp(u, "%") == 0 || strcmp(u, "pp") == 0) {
        S_fixed(b, v, 1, false);
        gm_buf_puts(b, strcmp(u, "%") == 0 ? "%" : " pp");
    } else {
        if (v == floor(v) && fabs(v) < 9e15)
            gm_fmt_count(b, v);
        else
            gm_fmt_num(b, v, fabs(v) >= 1000 ? 4 : 3);
        if (*u) {
            gm_buf_putc(b, ' ');
            gm_buf_puts(b, u);
        }
    }
}

void gm_fmt_pct_change(gm_buf *b, double pct)
{
    if (!isfinite(pct)) {
        gm_buf_puts(b, GM_FMT_ABSENT);
        return;
    }
    double a = fabs(pct);
    S_fixed(b, pct, a >= 99.95 ? 0 : a >= 0.995 ? 1 : 2, true);
    gm_buf_putc(b, '%');
}
