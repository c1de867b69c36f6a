/* suite.c — the experiment suite as data: what each experiment demonstrates
 * and one row per kernel variant (see case.h for the life of a case).
 *
 * Adding a variant: write its launch function in the experiment's file,
 * declare it below, add a row.  `gpumem-report list`, --only/--skip, the
 * table tests (tests/test_suite.c), the GPU validation (tests/gpu/
 * suite_validate.c) and the report follow from the table.
 *
 * Experiments 1-7 are in kernels/exp_*.cu of the first half of the suite;
 * experiments 8-14 have their own marked sections in each part of this file.
 */
#include "suite.h"

#include <string.h>

const gm_experiment_def *gm_experiment_find(const char *id)
{
    for (size_t i = 0; i < gm_experiments_len; i++)
        if (strcmp(gm_experiments[i]->id, id) == 0)
            return gm_experiments[i];
    return NULL;
}

/* ---- the functions each experiment exports (kernels/<experiment>.h) ------ */

#include "coalescing/coalescing.h"
#include "alignment/alignment.h"
#include "aos_soa/aos_soa.h"
#include "rgb/rgb.h"
#include "traversal2d/traversal2d.h"
#include "grid3d/grid3d.h"
#include "matvec/matvec.h"
#include "matmul/matmul.h"
#include "transpose/transpose.h"
#include "banks/banks.h"
#include "spmv/spmv.h"
#include "conv/conv.h"
#include "texture/texture.h"
#include "dp/dp.h"

/* The GPU side (setup, reset, launch, check, teardown in exp_*.cu) exists
 * only in a build with the CUDA toolkit; without it the rows keep describe
 * and trace, so the table, its tests, `list` and the model work anywhere. */
#ifdef GM_HAVE_CUDA
#define GM_GPU(fn) fn
#else
#define GM_GPU(fn) NULL
#endif

/* describe and the GPU functions every variant of an experiment shares; each
 * variant has its own launch function and kind. */
#define GM_FNS(p)                                                                 \
    .describe = p##_describe, .setup = GM_GPU(p##_setup), .reset = GM_GPU(p##_reset), \
    .check = GM_GPU(p##_check), .teardown = GM_GPU(p##_teardown)

/* ---- experiment descriptions ---------------------------------------------- */

static const gm_experiment_def S_coalescing = {
    .id = "coalescing",
    .title = "Coalesced vs strided reads",
    .summary =
        "Every variant gathers the same N floats into a contiguous output, each input "
        "element read once, so the useful work is identical; only the order in which a "
        "warp's 32 threads touch memory changes. With a stride of s elements the 32 "
        "4-byte loads of a warp land in min(32, 4s) different 32-byte sectors instead of "
        "4, so DRAM and L2 move up to 8 times the bytes the kernel uses. The float2 and "
        "float4 variants read the same array contiguously with 8- and 16-byte loads: "
        "fewer instructions and more bytes in flight per thread.",
    .source =
        "untitled notes on cache lines and sectors (sectors per request); Part 17: "
        "Memory Hierarchy (CUDA course module) (strided vs coalesced access)",
    .sweep_param = "stride",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "stride",
    .question =
        "How much longer does a strided read take than a coalesced one, when every "
        "element is still read exactly once?",
    .contrast_a = "stride@stride=32",
    .contrast_b = "stride@stride=1",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

static const gm_experiment_def S_alignment = {
    .id = "alignment",
    .title = "Misaligned reads",
    .summary =
        "A contiguous copy whose source starts 0 to 128 bytes past a line boundary. A warp's "
        "128-byte request then straddles two 128-byte lines unless the offset is a multiple of "
        "128, and five 32-byte sectors instead of four unless it is a multiple of 32: at 96 "
        "bytes it costs a second line but no extra bytes, at 100 bytes both. Neighbouring "
        "warps share the straddled lines, so caches absorb much of the cost; the sector "
        "counts show what remains. 16-byte loads need 16-byte-aligned addresses and run only "
        "at those offsets.",
    .source =
        "untitled notes on cache lines and sectors (offsets 0, 96 and 100 bytes: cross "
        "a line, pay in time; cross a sector, pay in bytes)",
    .sweep_param = "offset",
    .sweep_log2 = false,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "scalar",
    .question =
        "At one access width (4-byte loads), what does starting 100 bytes past a line "
        "cost against an aligned start, and 96 bytes (a line crossed, no sector wasted)?",
    .contrast_a = "scalar@offset=100",
    .contrast_b = "scalar@offset=0",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

static const gm_experiment_def S_aos_soa = {
    .id = "aos_soa",
    .title = "Array of structures vs structure of arrays",
    .summary =
        "Particles with position, velocity and mass (7 floats). A kinetic-energy step reads 4 "
        "of the 7 fields, a drag step reads and writes all of them. Stored as an array of "
        "28-byte structures, one field load of a warp spans 896 bytes and pulls the unused "
        "fields through the memory system; as seven arrays every load is 128 contiguous "
        "bytes. Structures padded to 32 bytes and read with 16-byte loads move whole "
        "structures at full width: as good as arrays when every field is needed, not when "
        "only some are.",
    .source =
        "an untitled article on memory coalescing (AoS vs SoA particles); untitled notes on "
        "cache lines and sectors (SoA as the fix for uncoalesced loads)",
    .sweep_param = NULL,
    .sweep_log2 = false,
    .series_param = "fields",
    .bandwidth_bound = true,
    .baseline_variant = "aos",
    .question =
        "When a step needs only some fields of each particle, do separate arrays (SoA) "
        "beat an array of structures (AoS)?",
    .contrast_a = "aos",
    .contrast_b = "soa",
    .contrast_at = "fields=4",
    .contrast_counter = "ld_spr",
};

static const gm_experiment_def S_rgb = {
    .id = "rgb",
    .title = "Interleaved vs planar RGB: inverting the red channel",
    .summary =
        "The lab report's experiment: invert the red byte of every pixel in place, with the "
        "image stored interleaved (RGBRGB...) or as three planes, for 64 to 1024 threads per "
        "block at 1, 2 and 4 times 960x1280 pixels, and at 64 times where the image (236 MB) "
        "is far larger than L2 and launch overhead no longer dominates. Interleaved, a warp's "
        "32 one-byte accesses span 96 bytes, so the green and blue bytes move too; planar, "
        "they are 32 contiguous bytes. With one byte per thread, though, both kernels need a "
        "thread (and small blocks many blocks) per byte, which can cost more than the bytes "
        "themselves; planar with 16 bytes per thread shows what the layout gives when each "
        "thread moves a full 16-byte word.",
    .source =
        "Lab 4, Geavanceerde Computerarchitectuur (KU Leuven), part 1 (tables 1-3)",
    .sweep_param = "block",
    .sweep_log2 = true,
    .series_param = "scale",
    .bandwidth_bound = true,
    .baseline_variant = "interleaved",
    .question =
        "Is inverting the red channel of an interleaved (RGBRGB...) image slower than of "
        "a planar one, at the same block size and image size?",
    .contrast_a = "interleaved",
    .contrast_b = "planar",
    .contrast_at = "scale=64,block=256",
    .contrast_counter = "ld_spr",
};

static const gm_experiment_def S_traversal2d = {
    .id = "traversal2d",
    .title = "Row-major vs column-major thread mapping",
    .summary =
        "c = a + b over a row-major n x n matrix with the same 32x8 thread blocks; only which "
        "index the fastest thread index drives changes. Mapped along rows, a warp reads 128 "
        "contiguous bytes; mapped down columns, its 32 loads are a whole row apart and touch "
        "32 sectors for 4 useful bytes each. Neighbouring warps of a block read the "
        "neighbouring columns, so L1 and L2 recover part of the waste.",
    .source =
        "Part 17: Memory Hierarchy (CUDA course module) (2D row- vs column-major access: "
        "450 vs 90 GB/s)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "col_mapping",
    .question =
        "Over the same row-major arrays, how much does mapping a warp down a column cost "
        "against mapping it along a row?",
    .contrast_a = "col_mapping",
    .contrast_b = "row_mapping",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

static const gm_experiment_def S_grid3d = {
    .id = "grid3d",
    .title = "3D grid walked along z: z-major vs x-major storage",
    .summary =
        "A second difference along z over an n^3 grid, a warp working on 32 consecutive z at "
        "one (x, y). Stored z-major, those 32 values are 128 contiguous bytes; stored x-major "
        "they are n^2 floats apart and every thread's load is a separate line. The threads and "
        "the arithmetic are identical; only the storage order differs.",
    .source =
        "an untitled article on memory coalescing (weather-model grid walked along z: "
        "up to 32x from the layout)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "xmajor",
    .question =
        "Walking a 3D grid along z, how much does x-major storage cost against z-major?",
    .contrast_a = "xmajor",
    .contrast_b = "zmajor",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

static const gm_experiment_def S_matvec = {
    .id = "matvec",
    .title = "Matrix-vector product: layout against thread mapping",
    .summary =
        "y = A x with a thread per row or a warp per row, over row-major or column-major A. A "
        "thread per row coalesces only with column-major A (a warp reads a column slice); a "
        "warp per row coalesces with row-major A (a warp reads a row slice). But a thread per "
        "row leaves only n threads, too few to keep enough loads in flight on a large GPU "
        "whatever the layout, and with row-major A the 31 other floats of each line a thread "
        "touches are still in L1 on its next steps: coalescing alone does not decide between "
        "the two. A warp per row with 16-byte loads is the layout-and-mapping pair that "
        "streams A at memory speed.",
    .source =
        "an untitled article on memory coalescing (row- vs column-major matrix-vector "
        "products, thread vs warp per row)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "thread_rowmajor",
    .question =
        "With a thread per row, does a column-major matrix beat a row-major one?",
    .contrast_a = "thread_rowmajor",
    .contrast_b = "thread_colmajor",
    .contrast_at = NULL,
    .contrast_counter = "ld_spr",
};

/* ---- experiments 8-14: descriptions ---- */

static const gm_experiment_def S_matmul = {
    .id = "matmul",
    .title = "Matrix multiplication: global, shared and constant memory",
    .summary =
        "C = AB for square float matrices, one output per thread, with B read from global "
        "memory, from shared-memory tiles or from constant memory, at 4x4 and 16x16 blocks. "
        "Tiles cut global loads by the tile width, but a 4-wide tile barely pays for its "
        "barriers. Constant memory holds B only up to 64 KiB and serves a warp one address "
        "at a time, so reading a row of B from it is serialised. Padding a tile row by one "
        "word matters only where the tile is accessed down a column (the k-major tile); "
        "double buffering lets the next tile's loads overlap the current tile's arithmetic.",
    .source =
        "Lab 4, Geavanceerde Computerarchitectuur (KU Leuven), part 2 (B in global, "
        "shared and constant memory, BLOCK_SIZE 4 and 16); Part 17: Memory Hierarchy "
        "(CUDA course module) (naive to tiled)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = "block",
    .bandwidth_bound = false,
    .baseline_variant = "naive",
    .question =
        "At the same tile size, does staging tiles of A and B in shared memory beat "
        "reading them from global memory?",
    .contrast_a = "naive",
    .contrast_b = "tiled",
    .contrast_at = "block=16",
    .contrast_counter = "ld_sectors",
};

static const gm_experiment_def S_transpose = {
    .id = "transpose",
    .title = "Matrix transpose: naive, shared tile, padded tile",
    .summary =
        "A transpose reads rows and writes columns, so done directly one side walks memory a "
        "whole row apart and every warp store touches 32 sectors. Staging a 32x32 tile in "
        "shared memory makes both global sides row-wise; reading the tile down a column then "
        "puts the whole warp on one bank, a 32-way conflict, until each tile row is padded to "
        "33 words.",
    .source =
        "Part 17: Memory Hierarchy (CUDA course module) (shared-memory tiling and "
        "conflict-free padding); an untitled article on memory coalescing "
        "(shared-memory tiles)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "naive",
    .question =
        "Does padding the shared tile of a transpose (32x33 instead of 32x32) remove its "
        "bank conflicts, and what does that save?",
    .contrast_a = "tiled",
    .contrast_b = "padded",
    .contrast_at = NULL,
    .contrast_counter = "shared_wpi",
};

static const gm_experiment_def S_banks = {
    .id = "banks",
    .title = "Shared-memory bank conflicts: stride and padding",
    .summary =
        "Each thread of a warp reads the shared-memory word lane x stride. With 32 banks of "
        "4-byte words, a stride of 2, 4, ... 32 words puts 2, 4, ... 32 different words on "
        "each bank in use, and the hardware serves one of them per wavefront. Padding the "
        "array by one word per 32 spreads every stride over all the banks. The global traffic "
        "is the same small amount in every case, so time and wavefront counts isolate the "
        "conflicts.",
    .source =
        "Part 17: Memory Hierarchy (CUDA course module) (bank-conflict scenarios, "
        "padding: 180 vs 1300 GB/s)",
    .sweep_param = "stride",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = false,
    .baseline_variant = "unpadded",
    .question =
        "At a stride of 32 words, a 32-way bank conflict, what does padding the shared "
        "array save?",
    .contrast_a = "unpadded@stride=32",
    .contrast_b = "padded@stride=32",
    .contrast_at = NULL,
    .contrast_counter = "shared_wpi",
};

static const gm_experiment_def S_spmv = {
    .id = "spmv",
    .title = "Sparse matrix-vector product: CSR, ELLPACK, JDS",
    .summary =
        "y = Ax for one sparse matrix whose row lengths follow a power law, in four layouts. "
        "A thread per CSR row reads entries rows apart and waits for the longest row of its "
        "warp; a warp per row reads each row contiguously but idles lanes on short rows; "
        "ELLPACK pads every row to the longest so each step is coalesced, and reads the "
        "padding; JDS sorts rows by length and stores their k-th entries together, coalesced "
        "without the padding, four rows to a thread with 16-byte loads. The reads of x are "
        "scattered in every layout: each nonzero gathers one 4-byte value at a random column, "
        "an L2 lookup and a 32-byte sector for 8 bytes of matrix. With x in L2 the rate of "
        "those lookups, not DRAM, sets the pace, so no layout of this matrix comes near copy "
        "bandwidth; only columns close enough for x to stay in L1 would (the ceiling and the "
        "counters that show it: bench/results/suite-spmv-2026-11-22*.txt).",
    .source =
        "an untitled article on memory coalescing (CSR with a thread per row, ELLPACK, "
        "JDS)",
    .sweep_param = "rows",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "csr_thread",
    .question =
        "Does reordering the rows into jagged diagonals (JDS) beat CSR with a thread per "
        "row on the same matrix?",
    .contrast_a = "csr_thread",
    .contrast_b = "jds",
    .contrast_at = NULL,
    .contrast_counter = "ld_sectors",
};

static const gm_experiment_def S_conv = {
    .id = "conv",
    .title = "Constant-memory broadcast: a 7x7 convolution",
    .summary =
        "All threads of a warp read the same filter coefficient at the same step. From "
        "constant memory that uniform read is one broadcast, and the coefficient can be an "
        "operand of the multiply-add itself; from global memory it is a load instruction per "
        "coefficient. The 7x7 neighbourhoods of adjacent pixels overlap: a shared-memory tile "
        "with its halo loads each pixel from global memory about twice instead of through 49 "
        "cached loads.",
    .source =
        "an untitled article on memory coalescing (constant-memory broadcast and "
        "shared-memory tiling in a convolution)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = false,
    .baseline_variant = "global",
    .question =
        "Does a constant-memory broadcast of the 7x7 filter beat reading it from global "
        "memory?",
    .contrast_a = "global",
    .contrast_b = "constant",
    .contrast_at = NULL,
    .contrast_counter = "ld_requests",
};

static const gm_experiment_def S_texture = {
    .id = "texture",
    .title = "Texture path: semi-Lagrangian advection",
    .summary =
        "Each cell traces back along a swirling velocity and interpolates the field "
        "bilinearly at the departure point, clamped at the edges. Neighbouring threads sample "
        "near each other but not in a row: scattered reads with 2D locality. The texture "
        "unit reads a block-linear array and filters and clamps in hardware; the plain "
        "versions issue four loads (ordinary or read-only) and do the arithmetic. Texture "
        "weights have 8 fractional bits, so its results differ from the others by a bounded "
        "amount.",
    .source =
        "an untitled article on memory coalescing (texture memory for semi-Lagrangian "
        "advection)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = true,
    .baseline_variant = "global",
    .question =
        "For scattered reads with spatial locality, does the texture path beat plain "
        "global loads?",
    .contrast_a = "global",
    .contrast_b = "texture",
    .contrast_at = NULL,
    .contrast_counter = "dram_bytes",
};

static const gm_experiment_def S_dp = {
    .id = "dp",
    .title = "Chained matrix multiplication by dynamic programming: table by diagonals",
    .summary =
        "The cost table of a matrix chain fills one diagonal at a time and the cells of a "
        "diagonal are independent, so one block gives each cell a thread and waits at a "
        "barrier between diagonals. With the table row-major, the cells neighbouring threads "
        "read are a row apart; stored diagonal after diagonal they are adjacent, and each "
        "warp read is coalesced. The serial CPU version shows the chain length where the GPU "
        "starts to win.",
    .source =
        "Optimizing Memory Access Efficiency in CUDA Kernel via Data Layout Technique "
        "(row-major vs diagonal table, CPU/GPU break-even)",
    .sweep_param = "n",
    .sweep_log2 = true,
    .series_param = NULL,
    .bandwidth_bound = false,
    .baseline_variant = "rowmajor",
    .question =
        "Does storing the DP table by diagonals make the GPU kernel faster than a "
        "row-major table, and from which n does the GPU beat one CPU thread?",
    .contrast_a = "rowmajor",
    .contrast_b = "diagonal",
    .contrast_at = "n=1024",
    .contrast_counter = "ld_spr",
};

const gm_experiment_def *const gm_experiments[] = {
    &S_coalescing,
    &S_alignment,
    &S_aos_soa,
    &S_rgb,
    &S_traversal2d,
    &S_grid3d,
    &S_matvec,
    /* ---- experiments 8-14 ---- */
    &S_matmul,
    &S_transpose,
    &S_banks,
    &S_spmv,
    &S_conv,
    &S_texture,
    &S_dp,
};
const size_t gm_experiments_len = sizeof gm_experiments / sizeof gm_experiments[0];

/* ---- the table: one row per variant --------------------------------------- */

/* Sizes: N = 2^25 floats (128 MiB read, 128 MiB written per launch, about
 * 0.1 ms at H100 copy bandwidth); --quick N = 2^22. */
#define S_COAL_N {"n", GM_VALUES(1 << 25), GM_VALUES(1 << 22)}
/* The same N for the shifted copy: 33 offsets of 256 MiB of traffic. */
#define S_ALIGN_N {"n", GM_VALUES(1 << 25), GM_VALUES(1 << 22)}
#define S_ALIGN_OFFSETS                                                           \
    GM_VALUES(0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68, 72, 76, 80,  \
              84, 88, 92, 96, 100, 104, 108, 112, 116, 120, 124, 128)
/* 2^23 particles: 224 MiB each way for the 7-field step, 160 MiB for energy. */
#define S_AOS_N {"n", GM_VALUES(1 << 23), GM_VALUES(1 << 20)}
#define S_AOS_FIELDS {"fields", GM_VALUES(4, 7), GM_AS_FULL}
/* Pixel count multiples of 960x1280 (the seed's 1x, 2x, 4x and our 64x). */
#define S_RGB_SCALE {"scale", GM_VALUES(1, 2, 4, 64), GM_VALUES(1)}
#define S_RGB_BLOCK {"block", GM_VALUES(64, 128, 256, 512, 1024), GM_VALUES(128, 256)}
/* 8192^2: 256 MiB per matrix, 768 MiB moved. */
#define S_T2D_N {"n", GM_VALUES(1024, 2048, 4096, 8192), GM_VALUES(1024)}
/* 128^3 = 8 MiB (fits in L2), 256^3 = 64 MiB per grid (x-major at 384^3 takes
 * 2.4 ms a launch on an H100 and shows nothing 256 does not). */
#define S_G3D_N {"n", GM_VALUES(128, 256), GM_VALUES(128)}
/* 8192^2 floats: A is 256 MiB. */
#define S_MV_N {"n", GM_VALUES(2048, 4096, 8192), GM_VALUES(1024)}

const gm_variant gm_suite[] = {
    /* 1. coalescing */
    {.experiment = &S_coalescing,
     .name = "stride",
     .layout = "thread i reads float in[(i mod (N/s))*s + i div (N/s)]: a warp's 32 4-byte "
               "loads are s*4 bytes apart; the grid still reads every element once",
     .params = {S_COAL_N, {"stride", GM_VALUES(1, 2, 4, 8, 16, 32), GM_VALUES(1, 4, 32)}},
     GM_FNS(coalescing),
     .kind = GM_COALESCING_STRIDE,
     .launch = GM_GPU(coalescing_launch_stride),
     .trace = coalescing_trace,
     .idempotent = true},
    {.experiment = &S_coalescing,
     .name = "float2",
     .layout = "thread i reads float2 in[2i..2i+1]: a warp reads 256 contiguous bytes with "
               "8-byte loads",
     .params = {S_COAL_N, {"stride", GM_VALUES(1), GM_AS_FULL}},
     GM_FNS(coalescing),
     .kind = GM_COALESCING_FLOAT2,
     .launch = GM_GPU(coalescing_launch_float2),
     .trace = coalescing_trace,
     .idempotent = true},
    {.experiment = &S_coalescing,
     .name = "float4",
     .layout = "thread i reads float4 in[4i..4i+3]: a warp reads 512 contiguous bytes with "
               "16-byte loads",
     .params = {S_COAL_N, {"stride", GM_VALUES(1), GM_AS_FULL}},
     GM_FNS(coalescing),
     .kind = GM_COALESCING_FLOAT4,
     .launch = GM_GPU(coalescing_launch_float4),
     .trace = coalescing_trace,
     .idempotent = true},

    /* 2. alignment */
    {.experiment = &S_alignment,
     .name = "scalar",
     .layout = "out[i] = in[offset/4 + i]: each warp reads 128 contiguous bytes starting "
               "offset bytes past a 512-byte-aligned base",
     .params = {S_ALIGN_N, {"offset", S_ALIGN_OFFSETS, GM_VALUES(0, 4, 32, 96, 100, 128)}},
     GM_FNS(alignment),
     .kind = GM_ALIGNMENT_SCALAR,
     .launch = GM_GPU(alignment_launch_scalar),
     .trace = alignment_trace,
     .idempotent = true},
    {.experiment = &S_alignment,
     .name = "float4",
     .layout = "the same copy with 16-byte loads: each warp reads 512 contiguous bytes; "
               "needs a 16-byte-aligned source",
     .params = {S_ALIGN_N,
                {"offset", GM_VALUES(0, 16, 32, 48, 64, 80, 96, 100, 112, 128),
                 GM_VALUES(0, 96, 100)}},
     GM_FNS(alignment),
     .kind = GM_ALIGNMENT_FLOAT4,
     .launch = GM_GPU(alignment_launch_float4),
     .trace = alignment_trace,
     .idempotent = true},

    /* 3. aos_soa */
    {.experiment = &S_aos_soa,
     .name = "aos",
     .layout = "array of 28-byte structures {x,y,z,vx,vy,vz,m}, fields read one float at a time",
     .params = {S_AOS_N, S_AOS_FIELDS},
     GM_FNS(aos_soa),
     .kind = GM_AOS_SOA_AOS,
     .launch = GM_GPU(aos_soa_launch_aos),
     .trace = aos_soa_trace,
     .idempotent = true},
    {.experiment = &S_aos_soa,
     .name = "soa",
     .layout = "seven float arrays x[], y[], z[], vx[], vy[], vz[], m[]",
     .params = {S_AOS_N, S_AOS_FIELDS},
     GM_FNS(aos_soa),
     .kind = GM_AOS_SOA_SOA,
     .launch = GM_GPU(aos_soa_launch_soa),
     .trace = aos_soa_trace,
     .idempotent = true},
    {.experiment = &S_aos_soa,
     .name = "aos_padded",
     .layout = "array of 32-byte structures {x,y,z,pad,vx,vy,vz,m} read as two 16-byte loads",
     .params = {S_AOS_N, S_AOS_FIELDS},
     GM_FNS(aos_soa),
     .kind = GM_AOS_SOA_AOS_PADDED,
     .launch = GM_GPU(aos_soa_launch_aos_padded),
     .trace = aos_soa_trace,
     .idempotent = true},

    /* 4. rgb (in place: reset restores the image before every launch) */
    {.experiment = &S_rgb,
     .name = "interleaved",
     .layout = "RGBRGB...: thread i inverts byte 3i, a warp's accesses 3 bytes apart",
     .params = {S_RGB_SCALE, S_RGB_BLOCK},
     GM_FNS(rgb),
     .kind = GM_RGB_INTERLEAVED,
     .launch = GM_GPU(rgb_launch_interleaved),
     .trace = rgb_trace},
    {.experiment = &S_rgb,
     .name = "planar",
     .layout = "RRR...GGG...BBB...: thread i inverts red byte i, a warp's accesses contiguous",
     .params = {S_RGB_SCALE, S_RGB_BLOCK},
     GM_FNS(rgb),
     .kind = GM_RGB_PLANAR,
     .launch = GM_GPU(rgb_launch_planar),
     .trace = rgb_trace},
    {.experiment = &S_rgb,
     .name = "planar_x16",
     .layout = "planar, thread i inverts red bytes 16i..16i+15 with one 16-byte load and store",
     .params = {S_RGB_SCALE, {"block", GM_VALUES(256), GM_AS_FULL}},
     GM_FNS(rgb),
     .kind = GM_RGB_PLANAR_X16,
     .launch = GM_GPU(rgb_launch_planar_x16),
     .trace = rgb_trace},

    /* 5. traversal2d */
    {.experiment = &S_traversal2d,
     .name = "row_mapping",
     .layout = "row-major arrays, threadIdx.x along a row: a warp reads 128 contiguous bytes",
     .params = {S_T2D_N},
     GM_FNS(traversal2d),
     .kind = GM_TRAVERSAL2D_ROW_MAPPING,
     .launch = GM_GPU(traversal2d_launch_row_mapping),
     .trace = traversal2d_trace,
     .idempotent = true},
    {.experiment = &S_traversal2d,
     .name = "col_mapping",
     .layout = "row-major arrays, threadIdx.x down a column: a warp's loads are a row apart",
     .params = {S_T2D_N},
     GM_FNS(traversal2d),
     .kind = GM_TRAVERSAL2D_COL_MAPPING,
     .launch = GM_GPU(traversal2d_launch_col_mapping),
     .trace = traversal2d_trace,
     .idempotent = true},

    /* 6. grid3d */
    {.experiment = &S_grid3d,
     .name = "zmajor",
     .layout = "(x,y,z) at z + n(y + n x); a warp takes 32 consecutive z: 128 contiguous bytes",
     .params = {S_G3D_N},
     GM_FNS(grid3d),
     .kind = GM_GRID3D_ZMAJOR,
     .launch = GM_GPU(grid3d_launch_zmajor),
     .trace = grid3d_trace,
     .idempotent = true},
    {.experiment = &S_grid3d,
     .name = "xmajor",
     .layout = "(x,y,z) at x + n(y + n z); a warp takes 32 consecutive z: loads 4n^2 bytes apart",
     .params = {S_G3D_N},
     GM_FNS(grid3d),
     .kind = GM_GRID3D_XMAJOR,
     .launch = GM_GPU(grid3d_launch_xmajor),
     .trace = grid3d_trace,
     .idempotent = true},

    /* 7. matvec */
    {.experiment = &S_matvec,
     .name = "thread_rowmajor",
     .layout = "thread per row, row-major A: a warp's loads are a row (4n bytes) apart",
     .params = {S_MV_N},
     GM_FNS(matvec),
     .kind = GM_MATVEC_THREAD_ROWMAJOR,
     .launch = GM_GPU(matvec_launch_thread_rowmajor),
     .trace = matvec_trace,
     .idempotent = true},
    {.experiment = &S_matvec,
     .name = "thread_colmajor",
     .layout = "thread per row, column-major A: a warp reads 128 contiguous bytes of a column",
     .params = {S_MV_N},
     GM_FNS(matvec),
     .kind = GM_MATVEC_THREAD_COLMAJOR,
     .launch = GM_GPU(matvec_launch_thread_colmajor),
     .trace = matvec_trace,
     .idempotent = true},
    {.experiment = &S_matvec,
     .name = "warp_rowmajor",
     .layout = "warp per row, row-major A: a warp reads 128 contiguous bytes of a row per step",
     .params = {S_MV_N},
     GM_FNS(matvec),
     .kind = GM_MATVEC_WARP_ROWMAJOR,
     .launch = GM_GPU(matvec_launch_warp_rowmajor),
     .trace = matvec_trace,
     .idempotent = true},
    {.experiment = &S_matvec,
     .name = "warp_rowmajor_vec4",
     .layout = "warp per row, row-major A, 16-byte loads: 512 contiguous bytes per step",
     .params = {S_MV_N},
     GM_FNS(matvec),
     .kind = GM_MATVEC_WARP_ROWMAJOR_VEC4,
     .launch = GM_GPU(matvec_launch_warp_rowmajor_vec4),
     .trace = matvec_trace,
     .idempotent = true},

    /* ---- experiments 8-14 ---- */

/* 8. The lab report's sizes (N 8..768) at its block sizes 4 and 16, plus 1536
 * (7.2 GFLOP, a few ms naive) where the tile variants are compared; constant
 * memory holds B up to n = 128, larger n are recorded as not run. */
#define S_MM_SEED {"n", GM_VALUES(8, 16, 32, 64, 96, 192, 384, 768, 1536), GM_VALUES(96, 192)}
#define S_MM_SEED_BLOCK {"block", GM_VALUES(4, 16), GM_VALUES(16)}
#define S_MM_TILE {"n", GM_VALUES(384, 768, 1536), GM_VALUES(192)}
#define S_MM_TILE_BLOCK {"block", GM_VALUES(16), GM_AS_FULL}
/* 9. 8192^2 floats: 256 MiB each way (above L2 from 4096 up). */
#define S_TR_N {"n", GM_VALUES(1024, 2048, 4096, 8192), GM_VALUES(2048)}
/* 10. 2^20 threads x 512 shared loads: ~70 us conflict-free, ~2 ms at 32-way. */
#define S_BK_PARAMS                                                               \
    {"threads", GM_VALUES(1 << 20), GM_VALUES(1 << 18)},                          \
        {"stride", GM_VALUES(1, 2, 4, 8, 16, 32), GM_VALUES(1, 4, 32)},           \
        {"reps", GM_VALUES(512), GM_AS_FULL}
/* 11. Rows of 4..64 entries: 2^22 rows hold 40 M nonzeros (320 MB in CSR, with x
 * and y 370 MB to move once; 2 GiB padded to ELLPACK, built on the device). */
#define S_SP_ROWS {"rows", GM_VALUES(1 << 20, 1 << 22), GM_VALUES(1 << 14)}
/* 12, 13. 4096^2 floats: 64 MiB per field. */
#define S_CV_N {"n", GM_VALUES(1024, 2048, 4096), GM_VALUES(1024)}
#define S_TX_N {"n", GM_VALUES(1024, 2048, 4096), GM_VALUES(1024)}
/* 14. The chain lengths of seed 002's break-even and layout figures; one
 * block holds n <= 1024 threads.  At 1024 the CPU version took 0.38 s and each GPU
 * version ~0.1 s on the H100 machine (one block on one SM: a long launch). */
#define S_DP_N {"n", GM_VALUES(64, 128, 256, 512, 1024), GM_VALUES(64, 256)}

    /* 8. matmul (constant: reset loads B into __constant__ memory) */
    {.experiment = &S_matmul,
     .name = "naive",
     .layout = "thread (row, col) reads A's row and B's column from global memory: A "
               "broadcast, B's row segment coalesced, n steps",
     .params = {S_MM_SEED, S_MM_SEED_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_NAIVE,
     .launch = GM_GPU(matmul_launch_naive),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &S_matmul,
     .name = "tiled",
     .layout = "block x block tiles of A and B staged in shared memory, two barriers per tile",
     .params = {S_MM_SEED, S_MM_SEED_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_TILED,
     .launch = GM_GPU(matmul_launch_tiled),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &S_matmul,
     .name = "constant",
     .layout = "naive with B in __constant__ memory: a warp reads `block` different words of "
               "a row of B per step",
     .params = {S_MM_SEED, S_MM_SEED_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_CONSTANT,
     .launch = GM_GPU(matmul_launch_constant),
     .trace = matmul_trace},
    {.experiment = &S_matmul,
     .name = "tiled_padded",
     .layout = "tiled with [T][T+1] shared arrays; the access pattern is already "
               "conflict-free",
     .params = {S_MM_TILE, S_MM_TILE_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_TILED_PADDED,
     .launch = GM_GPU(matmul_launch_tiled_padded),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &S_matmul,
     .name = "tiled_kmajor",
     .layout = "A's tile stored k-major (as[k][row]): each warp store strides 16 words, an "
               "8-way bank conflict",
     .params = {S_MM_TILE, S_MM_TILE_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_TILED_KMAJOR,
     .launch = GM_GPU(matmul_launch_tiled_kmajor),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &S_matmul,
     .name = "tiled_kmajor_padded",
     .layout = "k-major A tile in [T][T+1]: the 17-word stride spreads the stores over the "
               "banks",
     .params = {S_MM_TILE, S_MM_TILE_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_TILED_KMAJOR_PADDED,
     .launch = GM_GPU(matmul_launch_tiled_kmajor_padded),
     .trace = matmul_trace,
     .idempotent = true},
    {.experiment = &S_matmul,
     .name = "double_buffer",
     .layout = "tiled with two buffers per operand: the next tile's loads are in flight during "
               "the current tile's arithmetic; one barrier per tile",
     .params = {S_MM_TILE, S_MM_TILE_BLOCK},
     GM_FNS(matmul),
     .kind = GM_MATMUL_DOUBLE_BUFFER,
     .launch = GM_GPU(matmul_launch_double_buffer),
     .trace = matmul_trace,
     .idempotent = true},

    /* 9. transpose */
    {.experiment = &S_transpose,
     .name = "naive",
     .layout = "read rows, write columns: each warp store touches 32 sectors, 4n bytes apart",
     .params = {S_TR_N},
     GM_FNS(transpose),
     .kind = GM_TRANSPOSE_NAIVE,
     .launch = GM_GPU(transpose_launch_naive),
     .trace = transpose_trace,
     .idempotent = true},
    {.experiment = &S_transpose,
     .name = "tiled",
     .layout = "32x32 shared tile: rows in, rows out; the tile is read down a column, all 32 "
               "lanes on one bank",
     .params = {S_TR_N},
     GM_FNS(transpose),
     .kind = GM_TRANSPOSE_TILED,
     .launch = GM_GPU(transpose_launch_tiled),
     .trace = transpose_trace,
     .idempotent = true},
    {.experiment = &S_transpose,
     .name = "padded",
     .layout = "32x33 shared tile: the column read strides 33 words, one lane per bank",
     .params = {S_TR_N},
     GM_FNS(transpose),
     .kind = GM_TRANSPOSE_PADDED,
     .launch = GM_GPU(transpose_launch_padded),
     .trace = transpose_trace,
     .idempotent = true},

    /* 10. banks */
    {.experiment = &S_banks,
     .name = "unpadded",
     .layout = "lane l reads shared word l x stride: stride 2^k is a 2^k-way bank conflict",
     .params = {S_BK_PARAMS},
     GM_FNS(banks),
     .kind = GM_BANKS_UNPADDED,
     .launch = GM_GPU(banks_launch_unpadded),
     .trace = banks_trace,
     .idempotent = true},
    {.experiment = &S_banks,
     .name = "padded",
     .layout = "word w stored at w + w/32: every stride spreads over the 32 banks",
     .params = {S_BK_PARAMS},
     GM_FNS(banks),
     .kind = GM_BANKS_PADDED,
     .launch = GM_GPU(banks_launch_padded),
     .trace = banks_trace,
     .idempotent = true},

    /* 11. spmv */
    {.experiment = &S_spmv,
     .name = "csr_thread",
     .layout = "CSR, a thread per row: a warp's k-th entries lie rows apart; the warp waits "
               "for its longest row",
     .params = {S_SP_ROWS},
     GM_FNS(spmv),
     .kind = GM_SPMV_CSR_THREAD,
     .launch = GM_GPU(spmv_launch_csr_thread),
     .trace = spmv_trace,
     .idempotent = true},
    {.experiment = &S_spmv,
     .name = "csr_warp",
     .layout = "CSR, a warp per row: lanes read consecutive entries, then a shuffle reduction",
     .params = {S_SP_ROWS},
     GM_FNS(spmv),
     .kind = GM_SPMV_CSR_WARP,
     .launch = GM_GPU(spmv_launch_csr_warp),
     .trace = spmv_trace,
     .idempotent = true},
    {.experiment = &S_spmv,
     .name = "ell",
     .layout = "ELLPACK, column-major, every row padded to the longest: coalesced, padding "
               "read",
     .params = {S_SP_ROWS},
     GM_FNS(spmv),
     .kind = GM_SPMV_ELL,
     .launch = GM_GPU(spmv_launch_ell),
     .trace = spmv_trace,
     .idempotent = true},
    {.experiment = &S_spmv,
     .name = "jds",
     .layout = "jagged diagonals: rows sorted by length, k-th entries contiguous; a thread "
               "takes four sorted rows with one 16-byte load per array",
     .params = {S_SP_ROWS},
     GM_FNS(spmv),
     .kind = GM_SPMV_JDS,
     .launch = GM_GPU(spmv_launch_jds),
     .trace = spmv_trace,
     .idempotent = true},

    /* 12. conv (reset loads the filter into __constant__ memory; it is the same
     * filter in every case) */
    {.experiment = &S_conv,
     .name = "global",
     .layout = "filter coefficients by global loads (one address per warp), image through L1",
     .params = {S_CV_N},
     GM_FNS(conv),
     .kind = GM_CONV_GLOBAL,
     .launch = GM_GPU(conv_launch_global),
     .trace = conv_trace,
     .idempotent = true},
    {.experiment = &S_conv,
     .name = "constant",
     .layout = "filter in __constant__ memory (a broadcast per coefficient), image through L1",
     .params = {S_CV_N},
     GM_FNS(conv),
     .kind = GM_CONV_CONSTANT,
     .launch = GM_GPU(conv_launch_constant),
     .trace = conv_trace,
     .idempotent = true},
    {.experiment = &S_conv,
     .name = "shared",
     .layout = "filter in __constant__ memory, 38x14 image tile with its halo in shared memory",
     .params = {S_CV_N},
     GM_FNS(conv),
     .kind = GM_CONV_SHARED,
     .launch = GM_GPU(conv_launch_shared),
     .trace = conv_trace,
     .idempotent = true},

    /* 13. texture */
    {.experiment = &S_texture,
     .name = "global",
     .layout = "four corner loads from the row-major field, bilinear weights and clamping in "
               "the kernel",
     .params = {S_TX_N},
     GM_FNS(texture),
     .kind = GM_TEXTURE_GLOBAL,
     .launch = GM_GPU(texture_launch_global),
     .trace = texture_trace,
     .idempotent = true},
    {.experiment = &S_texture,
     .name = "readonly",
     .layout = "the same four loads through the read-only data path (__ldg)",
     .params = {S_TX_N},
     GM_FNS(texture),
     .kind = GM_TEXTURE_READONLY,
     .launch = GM_GPU(texture_launch_readonly),
     .trace = texture_trace,
     .idempotent = true},
    {.experiment = &S_texture,
     .name = "texture",
     .layout = "one tex2D on a block-linear cudaArray: hardware bilinear filter and clamp",
     .params = {S_TX_N},
     GM_FNS(texture),
     .kind = GM_TEXTURE_TEXTURE,
     .launch = GM_GPU(texture_launch_texture),
     .trace = texture_trace,
     .idempotent = true},

    /* 14. dp (the kernels read cells they wrote earlier in the launch) */
    {.experiment = &S_dp,
     .name = "cpu_serial",
     .layout = "host, one thread: the textbook loop, row-major table, m[k+1][j] walks a column",
     .params = {S_DP_N},
     GM_FNS(dp),
     .kind = GM_DP_CPU_SERIAL,
     .launch = GM_GPU(dp_launch_cpu_serial),
     .on_host = true},
    {.experiment = &S_dp,
     .name = "rowmajor",
     .layout = "one block, a thread per cell of the diagonal; row-major table: neighbouring "
               "threads read a row plus one apart",
     .params = {S_DP_N},
     GM_FNS(dp),
     .kind = GM_DP_ROWMAJOR,
     .launch = GM_GPU(dp_launch_rowmajor),
     .trace = dp_trace},
    {.experiment = &S_dp,
     .name = "diagonal",
     .layout = "one block, a thread per cell of the diagonal; table stored by diagonals: "
               "neighbouring threads read adjacent words",
     .params = {S_DP_N},
     GM_FNS(dp),
     .kind = GM_DP_DIAGONAL,
     .launch = GM_GPU(dp_launch_diagonal),
     .trace = dp_trace},
};
const size_t gm_suite_len = sizeof gm_suite / sizeof gm_suite[0];
