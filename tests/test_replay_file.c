/* test_replay_file.c — the launches a program's counted run keeps for its
 * per-line pass (collectors/replay_file.h, issue 25): the manifest written
 * and read back field for field, malformed lines named by line, and the
 * argument words moved to the new allocations with their offsets (and so
 * their alignment) kept. */
#include "../collectors/replay_file.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static gm_rp_launch S_launch(void)
{
    static gm_rp_mem mems[2] = {{0x7f0000000000ULL, 4096, "capture.1.mem"},
                                {0x7f0000200000ULL, 1ULL << 24, "capture.2.mem"}};
    gm_rp_launch l;
    memset(&l, 0, sizeof l);
    l.index = 6;
    l.symbol = "_Z16transpose_paddedPKfPfi";
    l.cubin = "capture.00000000deadbeef.cubin";
    l.grid[0] = 64, l.grid[1] = 64, l.grid[2] = 1;
    l.block[0] = 32, l.block[1] = 8, l.block[2] = 1;
    l.shm = 49152 + 4;
    l.cluster[0] = 2, l.cluster[1] = 1, l.cluster[2] = 1;
    l.cooperative = true;
    l.args = "capture.3.args";
    l.args_size = 20;
    l.mems = mems;
    l.n_mems = 2;
    return l;
}

Test(replay_file, a_manifest_reads_back_as_written)
{
    gm_buf b = GM_BUF_INIT;
    gm_rp_write_header(&b, 1);
    gm_rp_launch l = S_launch();
    gm_rp_write_launch(&b, &l);
    gm_rp_write_skip(&b, 9, "accumulate(float*,\tfloat const*, int)", "too\nlarge");
    gm_replay r;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_rp_parse(b.data, "replay.txt", &r, &err), GM_OK, "%s", err.message);
    cr_assert_eq(r.device, 1);
    cr_assert_eq(r.n_launches, 1);
    const gm_rp_launch *g = &r.launches[0];
    cr_assert_eq(g->index, 6);
    cr_assert_str_eq(g->symbol, l.symbol);
    cr_assert_str_eq(g->cubin, l.cubin);
    cr_assert_eq(g->grid[0], 64);
    cr_assert_eq(g->grid[1], 64);
    cr_assert_eq(g->block[1], 8);
    cr_assert_eq(g->shm, 49156);
    cr_assert_eq(g->cluster[0], 2);
    cr_assert(g->cooperative);
    cr_assert_str_eq(g->args, "capture.3.args");
    cr_assert_eq(g->args_size, 20);
    cr_assert_eq(g->n_mems, 2);
    cr_assert_eq(g->mems[1].base, 0x7f0000200000ULL);
    cr_assert_eq(g->mems[1].size, 1ULL << 24);
    cr_assert_str_eq(g->mems[1].file, "capture.2.mem");
    cr_assert_eq(r.n_skips, 1);
    cr_assert_eq(r.skips[0].index, 9);
    cr_assert_str_eq(r.skips[0].kernel, "accumulate(float*, float const*, int)");
    cr_assert_str_eq(r.skips[0].why, "too large");
    gm_rp_free(&r);
    gm_buf_free(&b);
}

Test(replay_file, a_malformed_manifest_names_its_line)
{
    const struct {
        const char *text, *says;
    } cases[] = {
        {"", "replay.txt:1: not a replay manifest"},
        {"# something else\n", "replay.txt:1: not a replay manifest"},
        {GM_RP_HEADER "\n@device\tx\n", "replay.txt:2: @device"},
        {GM_RP_HEADER "\n@mem\t10\t4\tf\n", "replay.txt:2: @mem before any @launch"},
        {GM_RP_HEADER "\n@launch\t1\t_Z1kv\tc.cubin\t1,1,1\t32,1,1\t0\t0,0,0\t0\targs\n",
         "replay.txt:2: @launch"},
        {GM_RP_HEADER "\n@launch\t1\t_Z1kv\t../c.cubin\t1,1,1\t32,1,1\t0\t0,0,0\t0\ta\t0\n",
         "replay.txt:2: @launch"},
        {GM_RP_HEADER "\n@launch\t1\t_Z1kv\tc.cubin\t1,1\t32,1,1\t0\t0,0,0\t0\ta\t0\n",
         "replay.txt:2: @launch"},
        {GM_RP_HEADER "\n@launch\t1\t_Z1kv\tc.cubin\t1,1,1\t32,1,1\t0\t0,0,0\t0\ta\t0\n"
                      "@mem\tzz\t4\tf\n",
         "replay.txt:3: @mem"},
        {GM_RP_HEADER "\n@launch\t1\t_Z1kv\tc.cubin\t1,1,1\t32,1,1\t0\t0,0,0\t0\ta\t0\n"
                      "@mem\t10\t0\tf\n",
         "replay.txt:3: @mem"},
        {GM_RP_HEADER "\n@other\n", "replay.txt:2: a line that is neither"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gm_replay r;
        gm_error err = {GM_OK, ""};
        cr_assert_eq(gm_rp_parse(cases[i].text, "replay.txt", &r, &err), GM_ERR_PARSE,
                     "case %zu", i);
        gmt_assert_has(err.message, cases[i].says);
        cr_assert_eq(r.n_launches, 0, "case %zu: nothing half-read", i);
    }
}

static void S_put(unsigned char *a, size_t off, uint64_t v)
{
    memcpy(a + off, &v, 8);
}

static uint64_t S_get(const unsigned char *a, size_t off)
{
    uint64_t v;
    memcpy(&v, a + off, 8);
    return v;
}

Test(replay_file, argument_words_move_with_their_offsets)
{
    gm_rp_mem m[2] = {{0x1000, 0x100, "a"}, {0x1100, 0x80, "b"}};
    unsigned long long to[2] = {0x90000, 0xa0000};
    unsigned char args[48];
    memset(args, 0, sizeof args);
    S_put(args, 0, 0x1000 + 0x44);   /* inside a */
    S_put(args, 8, 0x1100);          /* a's end is b's start: b holds it */
    S_put(args, 16, 0x1180);         /* one past b's end: b's */
    S_put(args, 24, 0x5000);         /* in no allocation: left alone */
    S_put(args, 32, 7);              /* a number */
    /* a word at an offset that is not a multiple of 8 is not a pointer */
    uint32_t lo = 0x1010;
    memcpy(args + 44, &lo, 4);
    cr_assert_eq(gm_rp_relocate(args, sizeof args, m, 2, to), 3);
    cr_assert_eq(S_get(args, 0), 0x90044);
    cr_assert_eq(S_get(args, 8), 0xa0000);
    cr_assert_eq(S_get(args, 16), 0xa0080);
    cr_assert_eq(S_get(args, 24), 0x5000);
    cr_assert_eq(S_get(args, 32), 7);
    uint32_t back;
    memcpy(&back, args + 44, 4);
    cr_assert_eq(back, 0x1010);
    /* a tail shorter than a word is not read */
    unsigned char tail[12];
    memset(tail, 0, sizeof tail);
    S_put(tail, 0, 0x1001);
    cr_assert_eq(gm_rp_relocate(tail, 7, m, 2, to), 0);
    cr_assert_eq(gm_rp_relocate(tail, sizeof tail, m, 2, to), 1);
    cr_assert_eq(S_get(tail, 0), 0x90001);
}
