/* inject_nvtx.c — the NVTX ranges the program's launches are made in: NVTX
 * calls InitializeInjectionNvtx2 at the program's first NVTX call (through
 * NVTX_INJECTION64_PATH), and the library keeps each thread's stack of range
 * names, which a profiled launch records as its "range" parameter.
 */
#include "inject_internal.h"

#include "../core/buf.h"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <stdlib.h>
#include <wchar.h>

/* ---- NVTX ranges --------------------------------------------------------------------- */

#define S_NVTX_DEPTH 64
static _Thread_local char *t_ranges[S_NVTX_DEPTH];
static _Thread_local int t_depth;     /* may exceed S_NVTX_DEPTH: deeper names not kept */

static int S_push(const char *name)
{
    if (t_depth < S_NVTX_DEPTH)
        t_ranges[t_depth] = gm_xstrdup(name ? name : "");
    return t_depth++;
}

static int S_pop(void)
{
    if (t_depth <= 0)
        return -1;
    t_depth--;
    if (t_depth < S_NVTX_DEPTH) {
        free(t_ranges[t_depth]);
        t_ranges[t_depth] = NULL;
    }
    return t_depth;
}

/* "outer/inner" for the calling thread, or NULL outside every range. */
char *gmi_range_path(void)
{
    if (t_depth <= 0)
        return NULL;
    gm_buf b = GM_BUF_INIT;
    int n = t_depth < S_NVTX_DEPTH ? t_depth : S_NVTX_DEPTH;
    for (int i = 0; i < n; i++)
        gm_buf_printf(&b, "%s%s", i ? "/" : "", t_ranges[i]);
    return gm_buf_detach(&b);
}

static const char *S_message(const nvtxEventAttributes_t *a, char *buf, size_t cap)
{
    if (!a)
        return "";
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_REGISTERED:
        /* our nvtxDomainRegisterStringA returns the string itself as the handle */
        return a->message.registered ? (const char *)a->message.registered : "";
    case NVTX_MESSAGE_TYPE_UNICODE: {
        size_t k = 0;
        for (const wchar_t *w = a->message.unicode; w && *w && k + 1 < cap; w++)
            buf[k++] = *w >= 0x20 && *w < 0x7f ? (char)*w : '?';
        buf[k] = '\0';
        return buf;
    }
    default:
        return "";
    }
}

static int NVTX_API S_nvtx_push_a(const char *message) { return S_push(message); }

static int NVTX_API S_nvtx_push_ex(const nvtxEventAttributes_t *a)
{
    char buf[256];
    return S_push(S_message(a, buf, sizeof buf));
}

static int NVTX_API S_nvtx_pop(void) { return S_pop(); }

static int NVTX_API S_nvtx_domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    (void)d;
    char buf[256];
    return S_push(S_message(a, buf, sizeof buf));
}

static int NVTX_API S_nvtx_domain_pop(nvtxDomainHandle_t d)
{
    (void)d;
    return S_pop();
}

static nvtxStringHandle_t NVTX_API S_nvtx_register_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    return (nvtxStringHandle_t)gm_xstrdup(s ? s : "");
}

static void S_hook(NvtxGetExportTableFunc_t get, NvtxCallbackModule module, unsigned id,
                   NvtxFunctionPointer fn)
{
    const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb || !cb->GetModuleFunctionTable || !cb->GetModuleFunctionTable(module, &table, &size) ||
        !table || id > size || !table[id])
        return;
    *table[id] = fn;
}

GMI_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
    if (!get)
        return 0;
    S_hook(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)S_nvtx_push_a);
    S_hook(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx,
           (NvtxFunctionPointer)S_nvtx_push_ex);
    S_hook(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)S_nvtx_pop);
    S_hook(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx,
           (NvtxFunctionPointer)S_nvtx_domain_push_ex);
    S_hook(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop,
           (NvtxFunctionPointer)S_nvtx_domain_pop);
    S_hook(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA,
           (NvtxFunctionPointer)S_nvtx_register_a);
    return 1;
}
