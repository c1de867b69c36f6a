// pass-split.cpp — how much would it save to flush the L2 only in the passes
// that count something the cache state changes?  Uses CUPTI's host API only
// (no GPU): for a chip and a metric list whose first NF metrics depend on the
// cache state, it splits the list into two configurations, F (flushed: those
// NF plus every other metric that adds no pass to them) and U (the rest, not
// flushed), and prints the ranges each launch would cost in every pass
// (a flushed pass has two: the flush kernel and the launch) against one
// configuration flushed in every pass.  F is grown greedily, over 300
// random orders of the other metrics; the best split is printed.
//
//   g++ -O2 -I/usr/local/cuda/include bench/pass-split.cpp -L/usr/local/cuda/lib64
//       -lcupti -Wl,-rpath,/usr/local/cuda/lib64 -o build/pass-split
//   build/pass-split GH100 NF METRIC...
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

static size_t S_passes(const char *chip, const std::vector<const char *> &m)
{
    CUpti_Profiler_Host_Initialize_Params ip{};
    ip.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    ip.pChipName = chip;
    if (cuptiProfilerHostInitialize(&ip) != CUPTI_SUCCESS) {
        std::fprintf(stderr, "pass-split: CUPTI does not know chip '%s'\n", chip);
        std::exit(2);
    }
    CUpti_Profiler_Host_ConfigAddMetrics_Params a{};
    a.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    a.pHostObject = ip.pHostObject;
    a.ppMetricNames = const_cast<const char **>(m.data());
    a.numMetrics = m.size();
    if (cuptiProfilerHostConfigAddMetrics(&a) != CUPTI_SUCCESS) {
        std::fprintf(stderr, "pass-split: CUPTI rejects a metric of the list on %s\n", chip);
        std::exit(2);
    }
    CUpti_Profiler_Host_GetConfigImageSize_Params s{};
    s.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    s.pHostObject = ip.pHostObject;
    std::vector<uint8_t> img;
    bool ok = cuptiProfilerHostGetConfigImageSize(&s) == CUPTI_SUCCESS;
    CUpti_Profiler_Host_GetConfigImage_Params g{};
    g.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    if (ok) {
        img.resize(s.configImageSize);
        g.pHostObject = ip.pHostObject;
        g.configImageSize = img.size();
        g.pConfigImage = img.data();
        ok = cuptiProfilerHostGetConfigImage(&g) == CUPTI_SUCCESS;
    }
    CUpti_Profiler_Host_GetNumOfPasses_Params np{};
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    if (ok) {
        np.configImageSize = img.size();
        np.pConfigImage = img.data();
        ok = cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS;
    }
    if (!ok) {
        std::fprintf(stderr, "pass-split: CUPTI could not build the config image\n");
        std::exit(2);
    }
    CUpti_Profiler_Host_Deinitialize_Params d{};
    d.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    d.pHostObject = ip.pHostObject;
    (void)cuptiProfilerHostDeinitialize(&d);
    return np.numOfPasses;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s CHIP NF METRIC...\n", argv[0]);
        return 2;
    }
    CUpti_Profiler_Initialize_Params pi{};
    pi.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    (void)cuptiProfilerInitialize(&pi);   // fails without a driver; the host API does not need it
    const char *chip = argv[1];
    size_t nf = std::strtoul(argv[2], nullptr, 10);
    std::vector<const char *> all(argv + 3, argv + argc);
    if (nf == 0 || nf > all.size()) {
        std::fprintf(stderr, "pass-split: NF must be 1 to %zu\n", all.size());
        return 2;
    }
    size_t p_all = S_passes(chip, all);
    std::printf("%s, %zu metrics: %zu passes as one configuration; flushed in every pass: "
                "%zu ranges per launch\n", chip, all.size(), p_all, 2 * p_all);
    for (const char *m : all)
        std::printf("  %zu  %s\n", S_passes(chip, {m}), m);
    std::mt19937 rng(1);
    std::vector<const char *> order = all;
    size_t best = SIZE_MAX;
    for (int trial = 0; trial < 300; trial++) {
        if (trial)
            std::shuffle(order.begin() + nf, order.end(), rng);
        std::vector<const char *> F(order.begin(), order.begin() + nf), U;
        size_t pf = S_passes(chip, F);
        for (size_t i = nf; i < order.size(); i++) {
            F.push_back(order[i]);
            if (S_passes(chip, F) != pf) {
                F.pop_back();
                U.push_back(order[i]);
            }
        }
        size_t pu = U.empty() ? 0 : S_passes(chip, U);
        if (2 * pf + pu >= best)
            continue;
        best = 2 * pf + pu;
        std::printf("order %d: F %zu metrics in %zu passes (flushed), U %zu in %zu: %zu passes, "
                    "%zu ranges per launch\n", trial, F.size(), pf, U.size(), pu, pf + pu, best);
        for (const char *m : U)
            std::printf("  U: %s\n", m);
    }
    return 0;
}
