/* sassdis.h — the SASS text of kernels without line info (issue 25).
 *
 * A kernel built without -lineinfo (PyTorch's, cuBLAS's, Triton's) is
 * counted per SASS instruction: a per-line row with line 0 and a PC.  The
 * process that records keeps the module's cubin; when some instruction it
 * reports has no line info it writes that cubin to a file beside its records
 * and names it there, one directive per function (comment lines, so that a
 * reader that does not know them skips them):
 *
 *     # cubin  FUNCTION  PATH        (tab-separated; FUNCTION mangled)
 *
 * The CLI runs `nvdisasm -c PATH` once per file (cli/nvdisasm.c) and this
 * file turns its output into (function, offset, instruction) and puts the
 * instruction into the rows' text.  Pure CPU code. */
#ifndef GM_SASSDIS_H
#define GM_SASSDIS_H

#include "buf.h"
#include "results.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the records' cubin directives ---------------------------------------------- */

#define GM_SL_CUBIN_DIRECTIVE "# cubin\t"

typedef struct {
    char *function;        /* mangled, as the records name it */
    char *path;            /* the cubin file */
} gm_sl_cubin;

/* Append "# cubin\tFUNCTION\tPATH\n" (tabs and newlines in either as '?'). */
void gm_sl_cubin_write(gm_buf *b, const char *function, const char *path);

/* The directives of a records text, in order, a function named twice kept
 * once (the first); other lines are ignored.  *out (caller frees with
 * gm_sl_cubins_free); returns the count. */
size_t gm_sl_cubins_parse(const char *text, gm_sl_cubin **out);
void gm_sl_cubins_free(gm_sl_cubin *c, size_t n);

/* ---- nvdisasm's text ------------------------------------------------------------ */

/* Most instructions kept from all the text parsed into one gm_sass_dis, and
 * the longest line read (longer ones are skipped). */
#define GM_SASS_DIS_MAX_INSTS ((size_t)1 << 22)
#define GM_SASS_DIS_MAX_LINE 4096

typedef struct {
    size_t function;       /* index into gm_sass_dis.functions */
    unsigned long long pc; /* offset in the function */
    char *text;            /* "LDG.E R3, desc[UR4][R2.64]", "@P0 EXIT" */
} gm_sass_inst;

typedef struct {
    char **functions;      /* mangled names */
    size_t n_functions;
    gm_sass_inst *insts;   /* sorted by function name, then pc, after each parse */
    size_t n_insts, cap_insts;
    bool truncated;        /* GM_SASS_DIS_MAX_INSTS was reached */
} gm_sass_dis;

#define GM_SASS_DIS_INIT {NULL, 0, NULL, 0, 0, false}

/* Add the instructions of `nvdisasm -c` output (len bytes of text) to d.
 * A function starts at its ".text.NAME:" label; an instruction line is
 * its offset in hex inside a C comment, then "[@P0 ]OPCODE OPERANDS ;": the
 * offset and the final ';' dropped, runs of blanks made one, control
 * characters made blanks, at most 240 bytes (as gm_srclines_read_text keeps
 * source text).  Directives,
 * labels, comments and lines that do not parse are skipped.  keep(function,
 * ctx), when given, says which functions to keep.  Returns how many
 * instructions were added. */
size_t gm_sass_dis_parse(gm_sass_dis *d, const char *text, size_t len,
                         bool (*keep)(const char *function, void *ctx), void *ctx);

/* The instruction at pc of function; NULL when there is none. */
const char *gm_sass_dis_find(const gm_sass_dis *d, const char *function, unsigned long long pc);

void gm_sass_dis_free(gm_sass_dis *d);

/* Fill the text of sl's lines without line info (line 0, a PC) whose
 * function and PC d knows with the instruction; file, line and pc stay as
 * they are, and lines that have a text keep it.  Returns how many were
 * filled. */
size_t gm_srclines_fill_sass(gm_srclines *sl, const gm_sass_dis *d);

/* ---- which symbols of a cubin ---------------------------------------------------- */

/* The ELF symbol-table indices of the functions names[0..n) in the cubin
 * data[0..len) (a 64-bit little-endian ELF, as every CUDA cubin is), what
 * nvdisasm's --cuda-function-index takes, so that it disassembles those
 * functions alone: a library's cubin holds thousands.  out[i] is the index
 * of names[i], -1 when the symbol table has no such function.  Returns how
 * many were found; 0 for data that is not such an ELF file or has no symbol
 * table, never reading outside data. */
size_t gm_elf_function_indices(const unsigned char *data, size_t len, const char *const *names,
                               size_t n, long *out);

#ifdef __cplusplus
}
#endif

#endif
