/* inject_replay.c — the counted run keeps the first launch of each profiled
 * kernel for the per-line pass (collectors/replay_file.h, issue 25): its
 * module's cubin, its shape and argument bytes, and the device memory its
 * arguments point into, copied just before the program's own launch runs.
 * `gpumem-report trace-replay` makes each launch again in a process of its
 * own under the Compute Sanitizer's tracer, so the program is not run again.
 *
 * The copy is made in the program's own run, not in the counter passes: a
 * context synchronization and one copy per allocation, once per kernel.  A
 * launch whose memory cannot be kept (too large, no cubin seen, a copy that
 * fails) is written as @skip with why; the CLI then traces that kernel in a
 * run of the program of its own.
 */
#include "inject_internal.h"
#include "replay_file.h"

#include "../core/buf.h"
#include "../core/output.h"
#include "../core/sassdis.h"

#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_pcsampling.h>

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The most device memory kept for one launch, and for the whole run: beyond
 * them the kernel is traced by a run of the program of its own. */
#define S_LAUNCH_MAX ((unsigned long long)2 << 30)
#define S_TOTAL_MAX ((unsigned long long)8 << 30)
/* Allocations one launch's arguments may point into. */
#define S_MEMS_MAX 64

typedef struct {
    uint64_t crc;
    void *data;
    size_t size;
    bool written;             /* capture.CRC.cubin exists */
} S_cubin;

/* The cubins have a lock of their own: a module loads (and its callback
 * comes) inside driver calls made with gmi.lock held, the launch's own among
 * them when modules load lazily. */
static pthread_mutex_t S_lock = PTHREAD_MUTEX_INITIALIZER;

/* The last bytes kept of an allocation: a later launch that finds the same
 * bytes there names the same file, so a tensor many kernels read is written
 * once. */
typedef struct {
    unsigned long long base, size;
    void *bytes;
    char *file;
} S_mem;

static struct {
    S_mem *mems;              /* gmi.lock */
    size_t n_mems;
    S_cubin *cubins;          /* in load order; S_lock */
    size_t n_cubins;
    char **kept;              /* kernels kept or skipped (demangled) */
    size_t n_kept;
    unsigned long long total; /* bytes of memory kept */
    bool header;
    long long files;
} s;

void gmi_capture_module(const void *cubin, size_t size)
{
    if (!cubin || !size)
        return;
    CUpti_GetCubinCrcParams cp;
    memset(&cp, 0, sizeof cp);
    cp.size = CUpti_GetCubinCrcParamsSize;
    cp.cubin = cubin;
    cp.cubinSize = size;
    if (cuptiGetCubinCrc(&cp) != CUPTI_SUCCESS)
        return;
    pthread_mutex_lock(&S_lock);
    bool have = false;
    for (size_t i = 0; i < s.n_cubins && !have; i++)
        have = s.cubins[i].crc == cp.cubinCrc;
    void *copy = have ? NULL : malloc(size);
    if (copy) {   /* else its kernels are skipped: no cubin */
        memcpy(copy, cubin, size);
        s.cubins = gm_xrealloc(s.cubins, (s.n_cubins + 1) * sizeof *s.cubins);
        s.cubins[s.n_cubins++] = (S_cubin){cp.cubinCrc, copy, size, false};
    }
    pthread_mutex_unlock(&S_lock);
}

static bool S_kept(const char *name)
{
    for (size_t i = 0; i < s.n_kept; i++)
        if (strcmp(s.kept[i], name) == 0)
            return true;
    return false;
}

/* Write n bytes to dir/name, new (gm_file_create); false with why. */
static bool S_write_file(const char *name, const void *data, size_t n, char *why, size_t cap)
{
    char *path = gmi_path(name);
    gm_error e = {GM_OK, ""};
    bool ok = gm_file_create(path, data, n, &e) == GM_OK;
    if (!ok)
        snprintf(why, cap, "cannot write %s", e.message);
    free(path);
    return ok;
}

/* Append to the manifest, one write per launch (a program killed later
 * leaves whole entries). */
static void S_append(const gm_buf *b)
{
    char *path = gmi_path(GM_RP_MANIFEST);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ssize_t w = write(fd, b->data, b->len);
        if (w < 0 || (size_t)w != b->len)
            gmi_debug("capture: writing %s failed", path);
        close(fd);
    }
    free(path);
}

/* The cubin that defines symbol, the most recently loaded first, copied
 * out (its data stays until exit); false when none does. */
static bool S_cubin_of(const char *symbol, S_cubin *out)
{
    bool found = false;
    pthread_mutex_lock(&S_lock);
    for (size_t i = s.n_cubins; i-- > 0 && !found;) {
        long idx = -1;
        const char *names[1] = {symbol};
        if (gm_elf_function_indices(s.cubins[i].data, s.cubins[i].size, names, 1, &idx) &&
            idx >= 0) {
            *out = s.cubins[i];
            s.cubins[i].written = true;   /* the caller writes it now, or says it could not */
            found = true;
        }
    }
    pthread_mutex_unlock(&S_lock);
    return found;
}

#ifdef MAP_POPULATE
#define S_POPULATE MAP_POPULATE
#else
#define S_POPULATE 0
#endif

/* Copy n bytes of device memory at src into a new file dir/name, through a
 * shared mapping of it, pinned for the copy where the driver can (twice the
 * speed of a copy to pageable memory, and no second copy by write(2)).  The
 * mapping (caller munmaps), or NULL with why. */
static void *S_copy_to_file(const char *name, CUdeviceptr src, size_t n, char *why, size_t cap)
{
    char *path = gmi_path(name);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    void *p = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)n) == 0)   /* its pages made at once */
        p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | S_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(why, cap, "cannot make %s (%zu bytes): %s", path, n, strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(path);
        }
        free(path);
        return NULL;
    }
    close(fd);
    bool pinned = cuMemHostRegister(p, n, 0) == CUDA_SUCCESS;
    CUresult r = cuMemcpyDtoH(p, src, n);
    if (pinned)
        (void)cuMemHostUnregister(p);
    if (r != CUDA_SUCCESS) {
        const char *e = NULL;
        (void)cuGetErrorName(r, &e);
        snprintf(why, cap, "copying an allocation of %zu bytes failed (%s)", n, e ? e : "?");
        munmap(p, n);
        remove(path);
        p = NULL;
    }
    free(path);
    return p;
}

/* The allocations the argument words point into, kept; false with why. */
static bool S_keep_memory(gm_rp_launch *l, const unsigned char *args, size_t n, char *why,
                          size_t cap)
{
    unsigned long long sum = 0;
    for (size_t off = 0; off + 8 <= n; off += 8) {
        unsigned long long w;
        memcpy(&w, args + off, 8);
        if (!w)
            continue;
        CUdeviceptr base = 0;
        size_t size = 0;
        if (cuMemGetAddressRange(&base, &size, (CUdeviceptr)w) != CUDA_SUCCESS || !size)
            continue;
        bool have = false;
        for (size_t i = 0; i < l->n_mems && !have; i++)
            have = l->mems[i].base == base;
        if (have)
            continue;
        if (l->n_mems == S_MEMS_MAX) {
            snprintf(why, cap, "its arguments point into more than %d allocations", S_MEMS_MAX);
            return false;
        }
        sum += size;
        if (sum > S_LAUNCH_MAX || s.total + sum > S_TOTAL_MAX) {
            snprintf(why, cap, "the memory its arguments point into is larger than the %llu "
                     "GiB kept for a launch (%llu GiB for a run)", S_LAUNCH_MAX >> 30,
                     S_TOTAL_MAX >> 30);
            return false;
        }
        l->mems = gm_xrealloc(l->mems, (l->n_mems + 1) * sizeof *l->mems);
        l->mems[l->n_mems++] = (gm_rp_mem){base, size, NULL};
    }
    /* the files go where the program's own may: leave its disk room */
    gm_error room = {GM_OK, ""};
    if (gm_fs_room(gmi.opts.dir, sum, &room) != GM_OK) {
        snprintf(why, cap, "keeping its memory would fill the disk: %.400s", room.message);
        return false;
    }
    for (size_t i = 0; i < l->n_mems; i++) {
        gm_rp_mem *m = &l->mems[i];
        gm_buf name = GM_BUF_INIT;
        gm_buf_printf(&name, "capture.%lld.mem", s.files++);
        void *host = S_copy_to_file(name.data, (CUdeviceptr)m->base, m->size, why, cap);
        if (!host) {
            gm_buf_free(&name);
            return false;
        }
        S_mem *last = NULL;
        for (size_t k = 0; k < s.n_mems && !last; k++)
            if (s.mems[k].base == m->base && s.mems[k].size == m->size)
                last = &s.mems[k];
        if (last && memcmp(last->bytes, host, m->size) == 0) {
            munmap(host, m->size);
            char *path = gmi_path(name.data);
            remove(path);
            free(path);
            gm_buf_free(&name);
            m->file = gm_xstrdup(last->file);   /* the same bytes: the same file */
            continue;
        }
        m->file = gm_buf_detach(&name);
        if (!last) {
            s.mems = gm_xrealloc(s.mems, (s.n_mems + 1) * sizeof *s.mems);
            last = &s.mems[s.n_mems++];
            *last = (S_mem){m->base, m->size, NULL, NULL};
        }
        if (last->bytes)
            munmap(last->bytes, last->size);
        free(last->file);
        last->bytes = host;
        last->file = gm_xstrdup(m->file);
    }
    s.total += sum;
    return true;
}

/* The cubin crc's file could not be written: the next launch tries again. */
static void S_unwritten(uint64_t crc)
{
    pthread_mutex_lock(&S_lock);
    for (size_t i = 0; i < s.n_cubins; i++)
        if (s.cubins[i].crc == crc)
            s.cubins[i].written = false;
    pthread_mutex_unlock(&S_lock);
}

static void S_launch_free(gm_rp_launch *l)
{
    free(l->cubin);
    free(l->args);
    for (size_t i = 0; i < l->n_mems; i++)
        free(l->mems[i].file);
    free(l->mems);
}

/* Keep L; false with why. */
static bool S_keep(const gmi_launch *L, const char *symbol, long long index, gm_buf *out,
                   char *why, size_t cap)
{
    /* first the arguments: asking their layout loads a lazily loaded module */
    struct gmi_pending p;
    if (!gmi_pending_copy(&p, L)) {
        snprintf(why, cap, "its arguments cannot be copied (%s)", gmi.copy_fail);
        return false;
    }
    CUfunction fn;
    if (cuFuncGetAttribute(&(int){0}, CU_FUNC_ATTRIBUTE_NUM_REGS, L->f) != CUDA_SUCCESS)
        (void)cuKernelGetFunction(&fn, (CUkernel)(void *)L->f);   /* loads it here */
    S_cubin cub, *c = &cub;
    if (!S_cubin_of(symbol, &cub)) {
        snprintf(why, cap, "its module's cubin was not seen loading");
        gmi_pending_free(&p);
        return false;
    }
    const unsigned char *args = p.args ? p.args : p.extra_buf;
    size_t n = p.args ? p.args_size : p.extra_size;
    gm_rp_launch l;
    memset(&l, 0, sizeof l);
    l.index = index;
    l.symbol = (char *)symbol;
    memcpy(l.grid, L->grid, sizeof l.grid);
    memcpy(l.block, L->block, sizeof l.block);
    l.shm = L->shm;
    l.cooperative = L->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
                    L->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
    for (unsigned k = 0; L->config && k < L->config->numAttrs; k++) {
        const CUlaunchAttribute *a = &L->config->attrs[k];
        if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            l.cluster[0] = a->value.clusterDim.x;
            l.cluster[1] = a->value.clusterDim.y;
            l.cluster[2] = a->value.clusterDim.z;
        } else if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->value.cooperative) {
            l.cooperative = true;
        }
    }
    /* the memory as this launch will find it: the program's earlier work done */
    CUresult cr = cuCtxSynchronize();
    bool ok = cr == CUDA_SUCCESS;
    if (!ok) {
        const char *e = NULL;
        (void)cuGetErrorName(cr, &e);
        snprintf(why, cap, "the program's earlier work failed (%s)", e ? e : "?");
    }
    ok = ok && S_keep_memory(&l, args, n, why, cap);
    gm_buf name = GM_BUF_INIT;
    if (ok) {
        gm_buf_printf(&name, "capture.%lld.args", s.files++);
        ok = S_write_file(name.data, n ? args : (const void *)"", n, why, cap);
        l.args = gm_buf_detach(&name);
        l.args_size = n;
    }
    bool wrote = c->written;   /* claimed by an earlier launch (S_cubin_of) */
    if (ok && !c->written) {   /* its first launch kept: the file is written now */
        gm_buf_printf(&name, "capture.%016llx.cubin", (unsigned long long)c->crc);
        ok = wrote = S_write_file(name.data, c->data, c->size, why, cap);
        gm_buf_free(&name);
    }
    if (!wrote)
        S_unwritten(c->crc);   /* a later launch of its module writes it */
    if (ok) {
        gm_buf_printf(&name, "capture.%016llx.cubin", (unsigned long long)c->crc);
        l.cubin = gm_buf_detach(&name);
        gm_rp_write_launch(out, &l);
    }   /* a file a failed launch wrote stays: a later launch may name it (the CLI's
           private directory goes, files and all) */
    gm_buf_free(&name);
    l.symbol = NULL;
    S_launch_free(&l);
    gmi_pending_free(&p);
    return ok;
}

bool gmi_capture_wants(const char *symbol)
{
    if (!gmi.opts.capture || !symbol)
        return false;
    char *name = gmi_demangle(symbol);
    bool want = name && !S_kept(name);
    free(name);
    return want;
}

void gmi_capture_launch(const gmi_launch *L, const char *symbol, const char *name,
                        long long index, CUcontext ctx)
{
    if (!gmi.opts.capture || !name || S_kept(name))
        return;
    s.kept = gm_xrealloc(s.kept, (s.n_kept + 1) * sizeof *s.kept);
    s.kept[s.n_kept++] = gm_xstrdup(name);
    gm_buf b = GM_BUF_INIT;
    if (!s.header) {
        CUdevice dev = 0;
        CUcontext cur = NULL;
        int ordinal = -1;
        if (cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx &&
            cuCtxGetDevice(&dev) == CUDA_SUCCESS)
            ordinal = (int)dev;
        gm_rp_write_header(&b, ordinal);
        s.header = true;
    }
    char why[512] = "";
    double t0 = gmi_now();
    if (!S_keep(L, symbol, index, &b, why, sizeof why))
        gm_rp_write_skip(&b, index, name, why);
    gmi_debug("capture: launch %lld %s: %s (%.3f s)", index, name, why[0] ? why : "kept",
              gmi_now() - t0);
    S_append(&b);
    gm_buf_free(&b);
}
