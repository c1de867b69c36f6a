/* svg.h — gnuplot's SVG made smaller without changing what it draws. */
#ifndef GM_SVG_H
#define GM_SVG_H

#include "../core/buf.h"

/* The same drawing in fewer bytes (svg.c says what goes): white space between
 * tags, 1/100-pixel precision, default attributes, empty groups, unused
 * marker definitions.  Text is kept as written.  Caller frees. */
char *gm_svg_compact(const char *svg);

#endif
