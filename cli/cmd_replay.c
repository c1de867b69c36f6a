/* cmd_replay.c — `gpumem-report trace-replay`: the launches a program's
 * counted run kept (collectors/replay_file.h) made again under the Compute
 * Sanitizer's tracer, in this process, so that the program need not run
 * again for its per-line counts (issue 25).
 *
 *     gpumem-report trace-replay --dir DIR --out FILE --lib PATH [--from N]
 *
 * Reads DIR/replay.txt; from its Nth launch (0: the first) on, for each:
 * loads the cubin, allocates each allocation the launch's arguments pointed
 * into, fills it with the bytes kept, moves the argument words to the new
 * allocations (gm_rp_relocate), launches with the same grid, block, dynamic
 * shared memory, cluster and cooperative flag, waits, frees.  The tracer
 * (libgpumem-trace.so, dlopen) traces the first launch of each kernel into
 * FILE, the records of a program's traced run.  After each launch it prints
 * "done N" on stdout; a launch that fails ends the process with status
 * GM_EXIT_REPLAY_LAUNCH (3: the context is lost after a fault), and the
 * caller starts another from the next launch.
 *
 * Not the same as the program's launch: the memory its arguments do not
 * point to (pointers inside buffers, a texture object, host memory) is not
 * there; such a launch faults and is said to have failed.  A module's
 * __device__ and __constant__ variables hold their initial values.
 */
#include "cli.h"

#include "../collectors/replay_file.h"
#include "../collectors/trace_mode.h"
#include "../core/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef GM_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>

typedef CUresult (*S_pfn_load)(CUmodule *, const void *);
typedef CUresult (*S_pfn_getfn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*S_pfn_unload)(CUmodule);
typedef CUresult (*S_pfn_setattr)(CUfunction, CUfunction_attribute, int);
typedef CUresult (*S_pfn_launch)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*S_pfn_errname)(CUresult, const char **);

static struct {
    S_pfn_load load;
    S_pfn_getfn getfn;
    S_pfn_unload unload;
    S_pfn_setattr setattr;
    S_pfn_launch launch;
    S_pfn_errname errname;
} d;

static bool S_entry(const char *name, void **fn)
{
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        *fn = NULL;
        gm_cli_error("trace-replay: the driver has no %s", name);
        return false;
    }
    return true;
}

static const char *S_cu(CUresult r)
{
    const char *n = NULL;
    if (!d.errname || d.errname(r, &n) != CUDA_SUCCESS || !n)
        return "an unknown driver error";
    return n;
}

/* DIR/name into b, exactly size bytes; false with a message printed. */
static bool S_read(gm_buf *b, const char *dir, const char *name, size_t size)
{
    gm_buf path = GM_BUF_INIT;
    gm_buf_printf(&path, "%s/%s", dir, name);
    bool ok = gm_buf_read_file(b, path.data, 0);
    if (!ok)
        gm_cli_error("trace-replay: cannot read %s", path.data);
    else if (size != (size_t)-1 && b->len != size) {
        gm_cli_error("trace-replay: %s holds %zu bytes, not the %zu the manifest says",
                     path.data, b->len, size);
        ok = false;
    }
    gm_buf_free(&path);
    return ok;
}

typedef struct {
    char *name;
    CUmodule m;
} S_module;

#ifdef MAP_POPULATE
#define S_POPULATE MAP_POPULATE   /* the pages mapped at once, not one fault at a time */
#else
#define S_POPULATE 0
#endif

/* The bytes of each memory file, mapped once (and pinned where the driver
 * can: the copies to the device at full speed): launches of a program name
 * the same file for an allocation whose bytes had not changed between them. */
typedef struct {
    char *name;
    void *p;
    size_t size;
    bool pinned;
} S_file;

static S_file *S_files;
static size_t S_n_files;

static const void *S_file_bytes(const char *dir, const char *name, size_t size)
{
    for (size_t i = 0; i < S_n_files; i++)
        if (strcmp(S_files[i].name, name) == 0)
            return S_files[i].size == size ? S_files[i].p : NULL;
    gm_buf path = GM_BUF_INIT;
    gm_buf_printf(&path, "%s/%s", dir, name);
    int fd = open(path.data, O_RDONLY | O_CLOEXEC);
    struct stat st;
    void *p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == size &&
        size > 0)
        p = mmap(NULL, size, PROT_READ, MAP_SHARED | S_POPULATE, fd, 0);
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED) {
        gm_cli_error("trace-replay: cannot map %s as %zu bytes: %s", path.data, size,
                     fd < 0 ? strerror(errno) : "not a regular file of that size");
        gm_buf_free(&path);
        return NULL;
    }
    gm_buf_free(&path);
    bool pinned = cudaHostRegister(p, size, cudaHostRegisterReadOnly) == cudaSuccess;
    if (!pinned)
        (void)cudaGetLastError();   /* copied from pageable memory instead */
    S_files = gm_xrealloc(S_files, (S_n_files + 1) * sizeof *S_files);
    S_files[S_n_files++] = (S_file){gm_xstrdup(name), p, size, pinned};
    return p;
}

static void S_files_free(void)
{
    for (size_t i = 0; i < S_n_files; i++) {
        if (S_files[i].pinned)
            (void)cudaHostUnregister(S_files[i].p);
        munmap(S_files[i].p, S_files[i].size);
        free(S_files[i].name);
    }
    free(S_files);
    S_files = NULL;
    S_n_files = 0;
}

static bool S_debug;

static double S_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Launch l (position pos) again; false with a message printed. */
static bool S_one(const char *dir, const gm_rp_launch *l, S_module **mods, size_t *n_mods)
{
    double t0 = S_now(), t_mod = 0, t_mem = 0;
    CUmodule m = NULL;
    for (size_t i = 0; i < *n_mods && !m; i++)
        if (strcmp((*mods)[i].name, l->cubin) == 0)
            m = (*mods)[i].m;
    if (!m) {
        gm_buf cub = GM_BUF_INIT;
        if (!S_read(&cub, dir, l->cubin, (size_t)-1))
            return false;
        CUresult r = d.load(&m, cub.data);
        gm_buf_free(&cub);
        if (r != CUDA_SUCCESS) {
            gm_cli_error("trace-replay: launch %lld: cuModuleLoadData(%s): %s", l->index,
                         l->cubin, S_cu(r));
            return false;
        }
        *mods = gm_xrealloc(*mods, (*n_mods + 1) * sizeof **mods);
        (*mods)[(*n_mods)++] = (S_module){gm_xstrdup(l->cubin), m};
    }
    CUfunction f;
    CUresult r = d.getfn(&f, m, l->symbol);
    t_mod = S_now() - t0;
    if (r != CUDA_SUCCESS) {
        gm_cli_error("trace-replay: launch %lld: no function %s in %s: %s", l->index, l->symbol,
                     l->cubin, S_cu(r));
        return false;
    }
    gm_buf args = GM_BUF_INIT;
    if (!S_read(&args, dir, l->args, l->args_size))
        return false;
    bool ok = true;
    unsigned long long *to = gm_xcalloc(l->n_mems ? l->n_mems : 1, sizeof *to);
    size_t made = 0;   /* allocations made (to[0..made), freed at the end) */
    while (made < l->n_mems && ok) {
        const gm_rp_mem *mm = &l->mems[made];
        void *p = NULL;
        const void *bytes = S_file_bytes(dir, mm->file, mm->size);
        cudaError_t e = cudaSuccess;
        ok = bytes != NULL && (e = cudaMalloc(&p, mm->size)) == cudaSuccess;
        if (ok) {
            to[made++] = (unsigned long long)(uintptr_t)p;
            e = cudaMemcpy(p, bytes, mm->size, cudaMemcpyHostToDevice);
            ok = e == cudaSuccess;
        }
        if (bytes && e != cudaSuccess)
            gm_cli_error("trace-replay: launch %lld: an allocation of %llu bytes: %s",
                         l->index, mm->size, cudaGetErrorString(e));
    }
    t_mem = S_now() - t0 - t_mod;
    if (ok)
        (void)gm_rp_relocate((unsigned char *)args.data, l->args_size, l->mems, l->n_mems, to);
    if (ok && l->shm > 48 * 1024 &&
        (r = d.setattr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->shm)) !=
            CUDA_SUCCESS) {
        gm_cli_error("trace-replay: launch %lld: %u bytes of dynamic shared memory: %s",
                     l->index, l->shm, S_cu(r));
        ok = false;
    }
    unsigned long long cl = (unsigned long long)l->cluster[0] * l->cluster[1] * l->cluster[2];
    if (ok && cl > 8)
        (void)d.setattr(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    if (ok) {
        CUlaunchAttribute at[2];
        memset(at, 0, sizeof at);
        unsigned na = 0;
        if (cl) {
            at[na].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            at[na].value.clusterDim.x = l->cluster[0];
            at[na].value.clusterDim.y = l->cluster[1];
            at[na].value.clusterDim.z = l->cluster[2];
            na++;
        }
        if (l->cooperative) {
            at[na].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            at[na].value.cooperative = 1;
            na++;
        }
        CUlaunchConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.gridDimX = l->grid[0], cfg.gridDimY = l->grid[1], cfg.gridDimZ = l->grid[2];
        cfg.blockDimX = l->block[0], cfg.blockDimY = l->block[1], cfg.blockDimZ = l->block[2];
        cfg.sharedMemBytes = l->shm;
        cfg.hStream = NULL;
        cfg.attrs = na ? at : NULL;
        cfg.numAttrs = na;
        size_t size = l->args_size;
        void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, args.data, CU_LAUNCH_PARAM_BUFFER_SIZE,
                         &size, CU_LAUNCH_PARAM_END};
        r = d.launch(&cfg, f, NULL, size ? extra : NULL);
        cudaError_t e = r == CUDA_SUCCESS ? cudaDeviceSynchronize() : cudaSuccess;
        if (r != CUDA_SUCCESS || e != cudaSuccess) {
            gm_cli_error("trace-replay: launch %lld (%s): %s", l->index, l->symbol,
                         r != CUDA_SUCCESS ? S_cu(r) : cudaGetErrorString(e));
            ok = false;
        }
    }
    for (size_t i = 0; i < made; i++)
        (void)cudaFree((void *)(uintptr_t)to[i]);
    free(to);
    gm_buf_free(&args);
    if (S_debug)
        fprintf(stderr, "gpumem-report: debug: trace-replay: launch %lld: module %.3f s, memory "
                        "%.3f s (%zu allocations), launch and trace %.3f s\n", l->index, t_mod,
                t_mem, l->n_mems, S_now() - t0 - t_mod - t_mem);
    return ok;
}

int gm_cmd_trace_replay(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL, *lib = NULL;
    long long from = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc)
            lib = argv[++i];
        else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) {
            if (!gm_cli_int("--from", argv[++i], 0, 1 << 30, &from))
                return GM_EXIT_USAGE;
        } else {
            gm_cli_error("trace-replay: unknown option '%s'", argv[i]);
            return GM_EXIT_USAGE;
        }
    }
    if (!dir || !out || !lib) {
        gm_cli_error("usage: gpumem-report trace-replay --dir DIR --out FILE --lib PATH "
                     "[--from N]");
        return GM_EXIT_USAGE;
    }
    gm_buf text = GM_BUF_INIT;
    if (!S_read(&text, dir, GM_RP_MANIFEST, (size_t)-1))
        return GM_EXIT_FAIL;
    gm_buf_puts(&text, "");
    gm_replay rp;
    gm_error err = {GM_OK, ""};
    gm_status st = gm_rp_parse(text.data, GM_RP_MANIFEST, &rp, &err);
    gm_buf_free(&text);
    if (st != GM_OK) {
        gm_cli_error("trace-replay: %s", err.message);
        return GM_EXIT_FAIL;
    }
    const char *dbg = getenv("GPUMEM_REPORT_DEBUG");
    S_debug = dbg && *dbg && strcmp(dbg, "0") != 0;
    double t0 = S_now();
    /* before any CUDA call: the tracer subscribes first */
    gpumem_trace_api api;
    char msg[1024];
    if (!gmi_trace_load(lib, &api, msg, sizeof msg)) {
        gmi_trace_unavailable(out, msg);
        gm_rp_free(&rp);
        return GM_EXIT_OK;   /* the parent reads why */
    }
    gpumem_trace_opts o = {out, NULL, -1, -1, false};
    if (api.start(&o, msg, sizeof msg) != 0) {
        gmi_trace_unavailable(out, msg);
        gm_rp_free(&rp);
        return GM_EXIT_OK;
    }
    int rc = GM_EXIT_OK;
    if (cudaSetDevice(rp.device >= 0 ? rp.device : 0) != cudaSuccess || cudaFree(NULL) != cudaSuccess) {
        gm_cli_error("trace-replay: cannot use device %d: %s", rp.device >= 0 ? rp.device : 0,
                     cudaGetErrorString(cudaGetLastError()));
        rc = GM_EXIT_FAIL;
    }
    if (rc == GM_EXIT_OK &&
        !(S_entry("cuGetErrorName", (void **)&d.errname) &&
          S_entry("cuModuleLoadData", (void **)&d.load) &&
          S_entry("cuModuleGetFunction", (void **)&d.getfn) &&
          S_entry("cuModuleUnload", (void **)&d.unload) &&
          S_entry("cuFuncSetAttribute", (void **)&d.setattr) &&
          S_entry("cuLaunchKernelEx", (void **)&d.launch)))
        rc = GM_EXIT_FAIL;
    if (S_debug)
        fprintf(stderr, "gpumem-report: debug: trace-replay: tracer and context %.3f s\n",
                S_now() - t0);
    S_module *mods = NULL;
    size_t n_mods = 0;
    for (size_t i = (size_t)from; rc == GM_EXIT_OK && i < rp.n_launches; i++) {
        if (!S_one(dir, &rp.launches[i], &mods, &n_mods)) {
            rc = GM_EXIT_REPLAY_LAUNCH;
            break;
        }
        printf("done %zu\n", i);
        fflush(stdout);
    }
    for (size_t i = 0; i < n_mods; i++) {
        if (rc == GM_EXIT_OK)
            (void)d.unload(mods[i].m);
        free(mods[i].name);
    }
    free(mods);
    gm_rp_free(&rp);
    S_files_free();
    double t1 = S_now();
    if (api.finish() != 0) {
        gm_cli_error("trace-replay: writing %s failed", out);
        if (rc == GM_EXIT_OK)
            rc = GM_EXIT_FAIL;
    }
    if (S_debug)
        fprintf(stderr, "gpumem-report: debug: trace-replay: finish %.3f s, all %.3f s\n",
                S_now() - t1, S_now() - t0);
    return rc;
}
#else
int gm_cmd_trace_replay(int argc, char **argv)
{
    (void)argc, (void)argv;
    gm_cli_error("trace-replay: built without the CUDA toolkit");
    return GM_EXIT_USAGE;
}
#endif
