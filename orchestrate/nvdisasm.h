/* nvdisasm.h — the SASS text of kernels without line info (issue 25): the
 * cubin files a per-line child wrote beside its records (core/sassdis.h
 * says how they are named) disassembled with the toolkit's nvdisasm, once
 * each, and removed.
 *
 * nvdisasm is $GPUMEM_REPORT_NVDISASM when that is set ("none": no text, no
 * nvdisasm run: on the H100 the PyTorch example's default run took 14.8 s
 * with the text, 10.5 s before it, bench/results/device-final-2026-11-27-
 * bde755f.txt), else
 * $CUDA_HOME/bin/nvdisasm, else the one of the toolkit this program was
 * built with, else `nvdisasm` on PATH, else /usr/local/cuda/bin/nvdisasm.
 * It runs through core/proc.h with a time limit, its stderr kept.
 *
 * Part of orchestrate/ (program.h says what the layer is). */
#ifndef GM_ORCH_NVDISASM_H
#define GM_ORCH_NVDISASM_H

#include "../core/results.h"
#include "../core/sassdis.h"

#include <stddef.h>

/* Each nvdisasm run is stopped after this long. */
#define GM_NVDISASM_TIMEOUT_S 120.0

typedef struct {
    gm_sass_dis dis;       /* the instructions of the functions the directives name */
    size_t n_files;        /* cubin files named */
    char *problem;         /* why some or all text is missing (no nvdisasm, it failed);
                              NULL when every file was disassembled */
} gm_sass_text;

#define GM_SASS_TEXT_INIT {GM_SASS_DIS_INIT, 0, NULL}

/* The nvdisasm to run; NULL when none is found, with *why (caller frees)
 * saying where it looked. */
char *gm_nvdisasm_find(char **why);

/* Disassemble the cubin files that directives c[0..n) name, each once and
 * up to 8 at a time (orchestrate/children.h), for the functions named for it
 * alone (nvdisasm -fun with their symbol indices; the whole cubin when that
 * fails or lists none), keeping those functions; then remove the files (and
 * the listings).  Only paths that begin with prefix and end in ".cubin" are
 * read or removed: a records file names no other file for this process to
 * touch.  Adds to st (several calls gather the files of several children). */
void gm_sass_text_load(gm_sass_text *st, const gm_sl_cubin *c, size_t n, const char *prefix);

/* Remove the cubin files that c[0..n) name (the same paths only), without
 * reading them: the records of a child that failed. */
void gm_sass_cubins_remove(const gm_sl_cubin *c, size_t n, const char *prefix);

/* Remove what is left of cubin files (and listings) in dir, a private
 * directory of this process's: those of a child that died before it wrote
 * its records. */
void gm_sass_cubins_sweep(const char *dir);

/* A run's lines without line info: their text from st, and the note of a
 * collected run without line info told where the text came from, or why
 * there is none.  Lines with line info are left alone. */
void gm_sass_text_apply(const gm_sass_text *st, gm_srclines *sl);

void gm_sass_text_free(gm_sass_text *st);

#endif
