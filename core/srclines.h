/* srclines.h — per-instruction records of CUPTI's SASS metrics turned into
 * per-source-line counts (issue 14).  Pure CPU code: the collector (collectors/
 * gmc_sass.c) produces the records, the CLI stores the lines in a gm_run, the
 * reports rank and render them.
 *
 * The record text format (what `gpumem-report sass-child` writes and what the
 * recorded fixtures in tests/fixtures hold), one instruction per line,
 * tab-separated:
 *
 *     # gpumem-report sass records 1
 *     FUNCTION  PC  FILE  LINE  inst global_ld global_st shared_ld shared_st
 *               sectors sectors_ideal wavefronts wavefronts_ideal
 *
 * PC in hex (0x...), FILE "-" and LINE 0 when the kernel has no line info.
 * Lines starting with '#' are comments; among them "# cubin FUNCTION PATH"
 * names the cubin written for instructions without line info
 * (core/sassdis.h), read apart from the records. */
#ifndef GM_SRCLINES_H
#define GM_SRCLINES_H

#include "buf.h"
#include "gm_error.h"
#include "results.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char *function;
    unsigned long long pc;
    char *file;          /* NULL when unknown */
    long long line;      /* 0 when unknown */
    long long count[GM_SL_N];
} gm_sl_record;

#define GM_SL_RECORDS_HEADER "# gpumem-report sass records 1"

/* Parse record text; name is used in messages ("FILE:LINE: ..."). */
gm_status gm_sl_records_parse(const char *text, const char *name, gm_sl_record **out,
                              size_t *n, gm_error *err);
/* Append one record line to b (tabs or newlines in names become '?'). */
void gm_sl_record_write(gm_buf *b, const gm_sl_record *r);
void gm_sl_records_free(gm_sl_record *r, size_t n);

/* Aggregate records into sl->lines (replacing what was there): instructions
 * with a file and line are summed per (file, line); the others stay one line
 * per (function, pc).  Instructions that counted nothing are left out.  Sorted
 * by file, line, function, pc.  sl->line_info is true when any record had a
 * line.  Memory instruction classes ("LDG STG LDS STS") are set from the op
 * counters.  Does not touch status/note/seconds. */
void gm_srclines_from_records(gm_srclines *sl, const gm_sl_record *r, size_t n);

/* Fill each line's text from its file when the file is readable (first
 * 240 bytes of the line, control characters as spaces, trailing blanks cut). */
void gm_srclines_read_text(gm_srclines *sl);

/* Sum of counter k over the lines. */
long long gm_srclines_total(const gm_srclines *sl, gm_sl_counter k);

/* Excess of a line: sectors - ideal, or wavefronts - ideal (never negative). */
long long gm_srcline_excess_sectors(const gm_srcline *l);
long long gm_srcline_excess_wavefronts(const gm_srcline *l);

/* Indices of the lines with the largest excess (sectors when !shared, else
 * wavefronts), largest first, ties by file order; lines with no excess left
 * out.  Returns how many (<= max) were written to idx. */
size_t gm_srclines_rank(const gm_srclines *sl, bool shared, size_t *idx, size_t max);

/* Which runs the per-line pass measures: one per variant (experiment and
 * variant name) among the runs that passed their check and have counters.
 * The one that wastes most by the counters already collected (global sectors
 * per request, loads plus stores, plus shared wavefronts per instruction,
 * loads plus stores); wastes within 2 % of the variant's largest count as
 * equal.  Of those, the one that moves the fewest bytes among the launches
 * that give every SM at least two blocks (r->device.sm_count) is taken, the
 * later in the file where they move as many: counting a launch costs up to
 * thousands of times its run under the tracer, and a smaller launch of the
 * same layout shows the same waste line by line.  Where none fills the GPU so
 * (one block, or the SM count unknown), the last in the file (the largest
 * case of a sweep).  The tolerance keeps the choice the same from run to run where the
 * wastes differ only by the counters' noise (shared wavefronts per
 * instruction move by up to 0.07, under 2 % of a sum that holds two sector
 * ratios of 1 or more), so that history and diff find the same case on both
 * sides; a real difference, such as 2.5 against 2.0 load sectors per
 * request, stays one.
 * pick[i] is set for the chosen runs (r->n_runs entries); returns how many. */
size_t gm_srclines_pick(const gm_results *r, bool *pick);

/* Which of `width` processes traces each picked run: child[i] for every i
 * with pick[i] (the others are left as they are).  The picks of one
 * experiment go to one process, in their order, so that the inputs their
 * setups share (the matrices of one n) are built once there; experiments are
 * dealt the costliest first, each to the process with the least cost so far,
 * the first of equals (longest processing time first).  A pick costs 1 plus
 * the warp-level memory instructions its counters measured (global load and
 * store requests, shared load and store instructions): tracing patches every
 * memory instruction, so its time grows with them.  Returns how many
 * processes get a pick: processes 0 to that less one (fewer than width where
 * there are fewer experiments; 0 where nothing is picked). */
size_t gm_srclines_deal(const gm_results *r, const bool *pick, size_t width, size_t *child);

/* The source root of sl's lines (a directory; NULL: unknown): each line's
 * file under it becomes its path relative to it
 * ("/src/gpumem-report/kernels/transpose/kernels.cu" under
 * "/src/gpumem-report": "kernels/transpose/kernels.cu"), and root is kept in
 * sl->root when some file was; files elsewhere (the toolkit's headers) stay
 * as they are.  The collector calls it after gm_srclines_read_text, which
 * reads the files by their full paths. */
void gm_srclines_relate(gm_srclines *sl, const char *root);

/* Where a line is, as every output labels it: its file relative to the
 * source root and its line ("kernels/transpose/kernels.cu:69"); a file
 * recorded whole (no root known: a program, a file from before the root was
 * recorded; or one outside the root) by its base name ("exp_transpose.cu:69");
 * without line info, the function as symbol.h reads it and the PC
 * ("elementwise_kernel<…>+0x13c0"), never its mangled symbol. */
void gm_srcline_where(const gm_srcline *l, char *out, size_t cap);

/* ---- the tracer's records (issue 25) -------------------------------------------
 *
 * The trace mode (collectors/trace_mode.c) traces every chosen launch of one
 * run of a program, or every case of a suite child, through the Compute
 * Sanitizer (collectors/gmc_trace.h), and writes one file for all of them:
 *
 *     # gpumem-report trace records 1
 *     @launch  LABEL  INDEX  NPARAMS  KERNEL
 *     FUNCTION  PC  FILE  LINE  counts...          its records, as above
 *     @alloc  SIZE  REFS  loads stores bytes sectors sectors_ideal
 *     @info  KEY  VALUE
 *     @error  MESSAGE
 *     @unavailable  MESSAGE
 *
 * tab-separated.  @launch opens a traced launch: LABEL is the suite case's
 * ("-" for a program), INDEX the launch's place among the process's launches,
 * NPARAMS its kernel's parameter count, KERNEL its demangled name.  The
 * records and @alloc lines after it are that launch's.  @alloc: one
 * allocation its global accesses touched, SIZE bytes (-1: addresses in no
 * allocation known), REFS the argument words whose value lies in it,
 * "PARAM:OFFSET" (argument index, byte offset of the 8-byte word inside the
 * argument) joined by ',', or "-".  @info: what the tracer counted
 * (launches, traced, dropped, modules_patched, seconds).  @error: the first
 * failure (the launches before it are kept).  @unavailable: the tracer could
 * not start at all (no Compute Sanitizer library): the caller falls back to
 * the SASS path. */

#define GM_SL_TRACE_HEADER "# gpumem-report trace records 1"

typedef struct {
    unsigned param;        /* the argument's index */
    unsigned offset;       /* byte offset of the 8-byte word inside it */
} gm_sl_argref;

typedef struct {
    long long size;        /* -1: no known allocation */
    gm_sl_argref *refs;
    size_t n_refs;
    long long loads, stores, bytes, sectors, sectors_ideal;
} gm_sl_trace_alloc;

typedef struct {
    char *label;           /* NULL for "-" */
    long long index;
    long long n_params;
    char *kernel;          /* demangled */
    gm_sl_record *records;
    size_t n_records;
    gm_sl_trace_alloc *allocs;
    size_t n_allocs;
} gm_sl_trace_launch;

typedef struct {
    gm_sl_trace_launch *launches;
    size_t n_launches;
    char *error;           /* the first failure; NULL */
    char *unavailable;     /* why the tracer could not start; NULL */
    long long seen;        /* @info launches: launches the process made */
    long long traced;      /* @info traced */
    long long dropped;     /* @info dropped: warp accesses not counted */
    double seconds;        /* @info seconds: time inside the tracer (patching, reading back) */
} gm_sl_trace;

/* Writing: the header line; one launch's @launch line; one @alloc line. */
void gm_sl_trace_write_header(gm_buf *b);
void gm_sl_trace_write_launch(gm_buf *b, const char *label, long long index, long long n_params,
                              const char *kernel);
void gm_sl_trace_write_alloc(gm_buf *b, const gm_sl_trace_alloc *a);
/* "@KEY\tTEXT" (error, unavailable) with tabs and newlines as spaces. */
void gm_sl_trace_write_note(gm_buf *b, const char *key, const char *text);

/* Parse a trace file; name is used in messages.  A file without the header
 * line, or with a malformed line, is GM_ERR_PARSE naming the line. */
gm_status gm_sl_trace_parse(const char *text, const char *name, gm_sl_trace *out, gm_error *err);
void gm_sl_trace_free(gm_sl_trace *t);

/* The method of a prediction made from the tracer's records of a real
 * launch (a program's), not from the suite's address traces on the CPU. */
#define GM_SL_PREDICTION_METHOD "gpu-trace"

/* The counts of one traced launch as a model prediction (method
 * GM_SL_PREDICTION_METHOD, every warp traced): per direction the global sectors,
 * requests (= warp-level instructions), sectors per request and instructions,
 * and the shared wavefronts, bank conflicts (wavefronts less their
 * conflict-free count, as NVIDIA's counter) and instructions, summed over
 * the launch's records, set against the counters the report measured for
 * that launch.  A direction with no instruction gets no sectors per request.
 * *out is overwritten; free it with gm_trace_prediction_clear (model.h). */
void gm_sl_trace_predict(const gm_sl_trace_launch *L, gm_prediction *out);

/* ---- which argument points into which allocation ------------------------------ */

typedef struct {
    size_t offset, size;   /* an argument's place in the launch's parameter buffer */
} gm_sl_param;

typedef struct {
    unsigned long long base, size;
} gm_sl_range;

typedef struct {
    unsigned param, offset; /* as gm_sl_argref */
    size_t alloc;          /* index into the ranges */
} gm_sl_match;

/* The argument words of a launch that point into allocations: for each
 * argument (layout[i] inside buf), each 8-byte word at offsets 0, 8, ...
 * inside it whose value lies in one of allocs (sorted by base, disjoint).
 * A pointer argument is one word; a struct holds several (PyTorch passes
 * its tensors' pointers in an array).  *out (caller frees) in argument
 * order; returns the count. */
size_t gm_sl_args_match(const unsigned char *buf, size_t buf_size, const gm_sl_param *layout,
                        size_t n_params, const gm_sl_range *allocs, size_t n_allocs,
                        gm_sl_match **out);

/* The parameter types of a demangled function name ("k(float const*, int)"
 * -> "float const*", "int"), split at the top-level commas of its last
 * parenthesized list.  *out (caller frees with gm_sl_strv_free); returns the
 * count, 0 when there is no list ("k()", a C name). */
size_t gm_sl_param_types(const char *demangled, char ***out);

/* The function's own name in a demangled name: no return type, namespace,
 * class, template arguments or parameters ("void ns::k<4>(int)" -> "k"). */
char *gm_sl_base_name(const char *demangled);

/* The parameter names of kernel `base` (gm_sl_base_name) in CUDA source
 * text: the parameter list after "base(" in a declaration marked
 * __global__; a parameter without a name gives NULL.  Only when the list
 * has n_params entries (else 0, *out NULL): a guess from the text must
 * agree with the driver's count. */
size_t gm_sl_param_names(const char *source, const char *base, size_t n_params, char ***out);

void gm_sl_strv_free(char **v, size_t n);

/* The name of an allocation a launch touched: for each argument word that
 * points into it, the parameter's name ("in") when names[] has it, else
 * "arg P" and its type from the kernel's demangled name (a type over 40
 * bytes without its template arguments: "at::native::ReduceOp<…>");
 * " +OFFSET" for a word inside a struct; ", " between.  NULL when no argument points into
 * it.  Caller frees. */
char *gm_sl_alloc_name(const gm_sl_trace_alloc *a, const char *kernel, char *const *names,
                       size_t n_names);

/* A traced launch into sl (lines and allocations replaced; status, note
 * and seconds untouched): the records aggregated as gm_srclines_from_records
 * does, the lines' text read (gm_srclines_read_text), the parameter names
 * read from the kernel's source file when its lines name one, and the
 * allocations named and sorted by excess sectors (sectors - ideal), then
 * bytes, largest first. */
void gm_srclines_from_trace(gm_srclines *sl, const gm_sl_trace_launch *L);

/* Excess sectors of an allocation (sectors - ideal, never negative). */
long long gm_sl_alloc_excess(const gm_sl_alloc *a);

/* Does a function symbol (mangled, or a C name) name kernel (a name as the
 * suite writes it, "transpose_kernel_tiled" or "k<16>")?  The mangled form
 * holds the name with its length before it, so "k" does not match "k2". */
bool gm_sl_symbol_is(const char *symbol, const char *kernel);

/* Which line of b is each line of a, where two runs of one kernel are
 * compared (diff, history): match[i] is the index in b of a[i]'s line, or
 * GM_SL_NONE.  One to one, in three rounds:
 *   1. the same line of the same file, its code the same (or unknown);
 *   2. a line that moved: the same code (leading and trailing blanks aside)
 *      on another line, the nearest in the same file first;
 *   3. the same line of the same file, its code edited.
 * "The same file": files are paired first, one to one, by their paths
 * relative to the source root where both sides know it (equal, or not the
 * same file), else by the longest common suffix of the two paths in whole
 * components (at least the base name; a relative path must be all of it),
 * so that one commit collected in two checkouts pairs every file.  Lines
 * without line info match by function and PC. */
#define GM_SL_NONE ((size_t)-1)
void gm_srclines_match(const gm_srcline *a, size_t na, const gm_srcline *b, size_t nb,
                       size_t *match);

#ifdef __cplusplus
}
#endif

#endif
