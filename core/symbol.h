/* symbol.h — a kernel's name as a person reads it, from the symbol a tool
 * reports.
 *
 * CUPTI names the function of each SASS instruction by its mangled symbol
 * ("_ZN2at6native18elementwise_kernelILi128ELi2EZ..."), and a demangled
 * C++ signature can run to kilobytes.  The reports, the diff and the CLI's
 * messages name a function by its base name instead: no namespace, class,
 * parameter list or return type, and "<…>" for its template arguments.
 *
 * Pure C, no C++ runtime: the base name of an Itanium-ABI symbol is read
 * from the symbol itself (its nested name, up to the function's template
 * arguments), which is all a kernel's symbol needs; the full demangling
 * (collectors/inject_util.c, __cxa_demangle) stays where the program's
 * kernels are named.
 */
#ifndef GM_SYMBOL_H
#define GM_SYMBOL_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A readable name is at most this many bytes (a longer one is cut, with "…"). */
#define GM_SYMBOL_MAX 60

/* Does s look like an Itanium-mangled symbol ("_Z" and a name character)? */
bool gm_symbol_is_mangled(const char *s);

/* Append the base name of a mangled symbol to b: "_Z15spmv_kernel_elliiPKi"
 * -> "spmv_kernel_ell", "_ZN2at6native18elementwise_kernelILi128E...EEvT1_"
 * -> "elementwise_kernel<…>", "_ZN12_GLOBAL__N_16kernelEPf" -> "kernel".
 * false (nothing appended) when s is not mangled or its name cannot be read
 * (a local name, an operator, a substitution where the name stands). */
bool gm_symbol_base(const char *s, gm_buf *b);

/* Append an outline of a mangled symbol to b, for telling apart kernels the
 * demangler could not read (nvcc's extended lambdas, "Unvdl"): its
 * namespaces, its name and, as if they were its template arguments, every
 * name the rest of the symbol holds, in order:
 * "_ZN6stream6detail15for_each_kernelIfLi1EZNS_6StreamIfE4copyEv..." ->
 * "stream::detail::for_each_kernel<Stream copy ...>".  false (nothing
 * appended) when gm_symbol_base would be. */
bool gm_symbol_outline(const char *s, gm_buf *b);

/* Append the name of function `s` as the reports show it: the base name of a
 * mangled symbol; any other name, and a symbol whose name gm_symbol_base
 * cannot read (no kernel's is such), as it is, cut to GM_SYMBOL_MAX bytes
 * (UTF-8 sequences kept whole) with "…". */
void gm_symbol_readable(const char *s, gm_buf *b);

/* Append text to b with every mangled symbol in it (a word starting with
 * "_Z") replaced by its readable name: messages that quote a symbol. */
void gm_symbol_text(const char *text, gm_buf *b);

/* Append at most max bytes of s to b, cut at a UTF-8 boundary with "…" (3
 * bytes, counted in max) when s is longer. */
void gm_symbol_clip(const char *s, size_t max, gm_buf *b);

#ifdef __cplusplus
}
#endif

#endif
