/* gmc_cupti_load.h — CUPTI loaded when collecting, not when the program starts.
 *
 * The program links no library of the CUDA toolkit (cudart is static, and it
 * finds the driver itself): render, diff, merge, history, list and --version
 * run on a machine without the toolkit.  The collector's CUPTI calls go
 * through gmc_cupti_load.c, which defines each CUPTI function the program
 * calls and forwards it to libcupti, opened with dlopen() the first time one
 * is called (or when gmc_cupti_load() is).  The injection library
 * (collectors/inject.c, loaded into a profiled program) links libcupti
 * directly and does not use this.
 *
 * No toolkit header here: cli/ includes it in a build without the toolkit's
 * headers too (it is only linked with them).
 */
#ifndef GMC_CUPTI_LOAD_H
#define GMC_CUPTI_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Open libcupti and resolve every function the collector calls, once per
 * process: the library's name (GMC_CUPTI_SONAME, e.g. "libcupti.so.13") as
 * the dynamic linker finds it (LD_LIBRARY_PATH, the program's run path, the
 * system's libraries), then in $CUDA_HOME/lib64, then in the toolkit the
 * program was built with.  True when it is loaded; otherwise why[0..n)
 * says what dlopen() or dlsym() said, and every CUPTI call returns
 * CUPTI_ERROR_NOT_INITIALIZED. */
bool gmc_cupti_load(char *why, size_t n);

/* The library's name, "libcupti.so.13". */
const char *gmc_cupti_soname(void);

#ifdef __cplusplus
}
#endif

#endif
