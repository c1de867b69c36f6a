/* test_sassdis.c — the SASS text of kernels without line info (issue 25):
 * nvdisasm's output (tests/fixtures/nvdisasm-lab-sm90.txt, CUDA 13.0's
 * nvdisasm -c on examples/app/lab.cu for sm_90) parsed into instructions,
 * the records' cubin directives, the text put into rows without line info
 * only, the CLI's side (orchestrate/nvdisasm.h) with a stand-in nvdisasm
 * (tests/fixtures/fake-nvdisasm.sh) that works, fails or is missing, and the
 * rows rendered with their instruction, escaped. */
#include "../core/results.h"
#include "../core/sassdis.h"
#include "../core/srclines.h"
#include "../orchestrate/nvdisasm.h"
#include "../reports/srclines.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void S_parse_fixture(gm_sass_dis *d)
{
    char *path = gmt_fixture("nvdisasm-lab-sm90.txt");
    char *text = gmt_text(path);
    cr_assert_gt(gm_sass_dis_parse(d, text, strlen(text), NULL, NULL), 0);
    free(text);
    free(path);
}

Test(sassdis, instructions_of_the_recorded_listing)
{
    gmt_deadline(30);
    gm_sass_dis d = GM_SASS_DIS_INIT;
    S_parse_fixture(&d);
    cr_assert_eq(d.n_functions, 5);
    cr_assert_not(d.truncated);
    const char *t = gm_sass_dis_find(&d, "_Z10accumulatePfPKfi", 0xc0);
    cr_assert_not_null(t);
    cr_assert_str_eq(t, "LDG.E R3, desc[UR4][R2.64]");
    /* the predicate is kept, the offset comment and the ';' are not */
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z10accumulatePfPKfi", 0x70), "@P0 EXIT");
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z10accumulatePfPKfi", 0x0), "LDC R1, c[0x0][0x28]");
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z10accumulatePfPKfi", 0x120), "BRA `(.L_x_0)");
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z10accumulatePfPKfi", 0x130), "NOP");
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z16transpose_paddedPKfPfi", 0x230),
                     "STS [R16+0x420], R11");
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z18transpose_unpaddedPKfPfi", 0x230),
                     "STS [R16+0x400], R11");
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z13scale_stridedPKfPfif", 0xe0),
                     "LOP3.LUT R4, R0, 0xffffffe0, RZ, 0xc0, !PT");
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z15scale_coalescedPKfPfif", 0x110), "EXIT");
    /* past the end, between instructions, another function, a prefix of a name */
    cr_assert_null(gm_sass_dis_find(&d, "_Z10accumulatePfPKfi", 0x200));
    cr_assert_null(gm_sass_dis_find(&d, "_Z10accumulatePfPKfi", 0xc8));
    cr_assert_null(gm_sass_dis_find(&d, "_Z10accumulate", 0xc0));
    cr_assert_null(gm_sass_dis_find(&d, "nope", 0));
    /* nothing from the directives, labels or the symbol table */
    for (size_t i = 0; i < d.n_insts; i++) {
        gmt_assert_lacks(d.insts[i].text, "/*");
        gmt_assert_lacks(d.insts[i].text, "  ");
        cr_assert_neq(d.insts[i].text[0], '.');
        cr_assert_neq(d.insts[i].text[strlen(d.insts[i].text) - 1], ';');
    }
    gm_sass_dis_free(&d);
}

static bool S_only_strided(const char *function, void *ctx)
{
    (void)ctx;
    return strcmp(function, "_Z13scale_stridedPKfPfif") == 0;
}

Test(sassdis, keep_only_the_functions_asked_for)
{
    gmt_deadline(30);
    char *path = gmt_fixture("nvdisasm-lab-sm90.txt");
    char *text = gmt_text(path);
    gm_sass_dis d = GM_SASS_DIS_INIT;
    size_t n = gm_sass_dis_parse(&d, text, strlen(text), S_only_strided, NULL);
    cr_assert_eq(n, 40, "scale_strided: 28 instructions and 12 NOPs, got %zu", n);
    cr_assert_eq(d.n_functions, 1);
    cr_assert_str_eq(gm_sass_dis_find(&d, "_Z13scale_stridedPKfPfif", 0x160),
                     "LDG.E R2, desc[UR4][R2.64]");
    cr_assert_null(gm_sass_dis_find(&d, "_Z10accumulatePfPKfi", 0xc0));
    gm_sass_dis_free(&d);
    free(text);
    free(path);
}

Test(sassdis, garbage_is_skipped_never_fatal)
{
    gmt_deadline(30);
    gm_sass_dis d = GM_SASS_DIS_INIT;
    cr_assert_eq(gm_sass_dis_parse(&d, "", 0, NULL, NULL), 0);
    cr_assert_eq(gm_sass_dis_parse(&d, NULL, 0, NULL, NULL), 0);
    const char *bad =
        "        /*0000*/   MOV R1, R2 ;\n"            /* before any function */
        ".text.:\n"                                     /* no name */
        ".text.a b:\n"                                  /* a blank in the name */
        "\t.section\t.text.k,\"ax\",@progbits\n"        /* a directive, not a label */
        "//--------------------- .text.k ----\n"
        "junk \x01\x02\xff\n"
        ".text.k:\n"
        "        /*zz*/  MOV R1, R2 ;\n"                 /* no hex offset */
        "        /*0010*/ ;\n"                           /* no instruction */
        "        /*0020   MOV R1, R2 ;\n"                /* unclosed */
        "        /*00000000000000000030*/ MOV ;\n"       /* offset too long */
        "        /*0040*/   IADD3 R1,\tR2,   R3 ;   /* 0x000fe20007ffe0ff */\n"
        "        /*0050*/   {  FADD R1, R2, R3 ;   }\n"
        "        /*0060*/   MOV R1, R\x01" "2 ;\r\n"
        "        /*0070*/   \n"
        "        /*0080*/   LDG.E R3, desc[UR4][R2.64] | <b>x</b> ;";   /* no newline */
    size_t n = gm_sass_dis_parse(&d, bad, strlen(bad), NULL, NULL);
    cr_assert_eq(n, 4, "got %zu", n);
    cr_assert_str_eq(gm_sass_dis_find(&d, "k", 0x40), "IADD3 R1, R2, R3");
    cr_assert_str_eq(gm_sass_dis_find(&d, "k", 0x50), "FADD R1, R2, R3");
    cr_assert_str_eq(gm_sass_dis_find(&d, "k", 0x60), "MOV R1, R 2");
    cr_assert_str_eq(gm_sass_dis_find(&d, "k", 0x80), "LDG.E R3, desc[UR4][R2.64] | <b>x</b>");
    cr_assert_null(gm_sass_dis_find(&d, "k", 0x10));
    gm_sass_dis_free(&d);

    /* an overlong line is skipped, a long instruction cut at 240 bytes */
    gm_buf b = GM_BUF_INIT;
    gm_buf_puts(&b, ".text.k:\n        /*0000*/   ");
    for (int i = 0; i < GM_SASS_DIS_MAX_LINE; i++)
        gm_buf_putc(&b, 'A');
    gm_buf_puts(&b, " ;\n        /*0010*/   ");
    for (int i = 0; i < 100; i++)
        gm_buf_puts(&b, "R1, ");
    gm_buf_puts(&b, " ;\n");
    cr_assert_eq(gm_sass_dis_parse(&d, b.data, b.len, NULL, NULL), 1);
    cr_assert_null(gm_sass_dis_find(&d, "k", 0));
    cr_assert_eq(strlen(gm_sass_dis_find(&d, "k", 0x10)), 239, "cut, then its blank dropped");
    gm_sass_dis_free(&d);
    gm_buf_free(&b);

    /* random bytes */
    unsigned seed = 7;
    char junk[8192];
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < sizeof junk; i++) {
            seed = seed * 1103515245u + 12345u;
            junk[i] = "/*0123456789abcdef .text:\n;@PRZ"[(seed >> 16) % 32];
        }
        gm_sass_dis_parse(&d, junk, sizeof junk, NULL, NULL);
    }
    gm_sass_dis_free(&d);
}

Test(sassdis, cubin_directives)
{
    const char *text = GM_SL_RECORDS_HEADER "\n"
                       "# cubin\t_Z1kPf\t/tmp/x/sass.0.00ab.cubin\n"
                       "# cubin\t_Z1kPf\t/tmp/x/other.cubin\n"      /* named twice: the first */
                       "# cubin\t_Z1jPf\t/tmp/x/sass.0.00ab.cubin\r\n"
                       "# cubin\tno-path\n"
                       "# cubin\t\t/tmp/x/y.cubin\n"
                       "# cubin\ta\tb\tc\n"
                       "# a comment\n"
                       "_Z1kPf\t0x10\t-\t0\t1\t1\t0\t0\t0\t4\t1\t0\t0\n";
    gm_sl_cubin *c;
    size_t n = gm_sl_cubins_parse(text, &c);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(c[0].function, "_Z1kPf");
    cr_assert_str_eq(c[0].path, "/tmp/x/sass.0.00ab.cubin");
    cr_assert_str_eq(c[1].function, "_Z1jPf");
    cr_assert_str_eq(c[1].path, "/tmp/x/sass.0.00ab.cubin");
    gm_sl_cubins_free(c, n);
    /* written as read; tabs and newlines cannot split it */
    gm_buf b = GM_BUF_INIT;
    gm_sl_cubin_write(&b, "_Z1kPf", "/tmp/a\tb\nc.cubin");
    cr_assert_str_eq(b.data, "# cubin\t_Z1kPf\t/tmp/a?b?c.cubin\n");
    /* a records file with directives still parses as records (older readers: comments) */
    gm_sl_record *r;
    size_t nr;
    gm_error err;
    cr_assert_eq(gm_sl_records_parse(text, "t", &r, &nr, &err), GM_OK, "%s", err.message);
    cr_assert_eq(nr, 1);
    gm_sl_records_free(r, nr);
    gm_buf_free(&b);
}

/* Lines of lab's accumulate: two without line info, one with. */
static void S_lines(gm_srclines *sl)
{
    const char *text = GM_SL_RECORDS_HEADER "\n"
                       "_Z10accumulatePfPKfi\t0xc0\t-\t0\t4\t4\t0\t0\t0\t128\t16\t0\t0\n"
                       "_Z10accumulatePfPKfi\t0x100\t-\t0\t4\t0\t4\t0\t0\t16\t16\t0\t0\n"
                       "_Z10accumulatePfPKfi\t0xe0\t/src/lab.cu\t102\t4\t4\t0\t0\t0\t32\t16\t0\t0\n"
                       "_Z10accumulatePfPKfi\t0x999\t-\t0\t4\t4\t0\t0\t0\t32\t16\t0\t0\n";
    gm_sl_record *r;
    size_t n;
    gm_error err;
    cr_assert_eq(gm_sl_records_parse(text, "t", &r, &n, &err), GM_OK, "%s", err.message);
    memset(sl, 0, sizeof *sl);
    gm_srclines_from_records(sl, r, n);
    gm_sl_records_free(r, n);
    cr_assert_eq(sl->n_lines, 4);
}

static const gm_srcline *S_at(const gm_srclines *sl, long long pc, long long line)
{
    for (size_t i = 0; i < sl->n_lines; i++)
        if (sl->lines[i].line == line && (line > 0 || sl->lines[i].pc == pc))
            return &sl->lines[i];
    cr_assert_fail("no line pc 0x%llx line %lld", pc, line);
    return NULL;
}

Test(sassdis, fill_changes_only_rows_without_line_info)
{
    gmt_deadline(30);
    gm_sass_dis d = GM_SASS_DIS_INIT;
    S_parse_fixture(&d);
    gm_srclines sl;
    S_lines(&sl);
    long long before[4][GM_SL_N];
    for (size_t i = 0; i < 4; i++)
        memcpy(before[i], sl.lines[i].count, sizeof before[i]);
    cr_assert_eq(gm_srclines_fill_sass(&sl, &d), 2);
    const gm_srcline *l = S_at(&sl, 0xc0, 0);
    cr_assert_str_eq(l->text, "LDG.E R3, desc[UR4][R2.64]");
    cr_assert_null(l->file);
    cr_assert_eq(l->pc, 0xc0);
    cr_assert_str_eq(S_at(&sl, 0x100, 0)->text, "STG.E desc[UR4][R4.64], R7");
    /* a line with line info keeps what it had (no text: the file is not there) */
    l = S_at(&sl, -1, 102);
    cr_assert_null(l->text);
    cr_assert_eq(l->pc, -1);
    cr_assert_null(S_at(&sl, 0x999, 0)->text, "a PC nvdisasm does not list");
    for (size_t i = 0; i < 4; i++)
        cr_assert_arr_eq(before[i], sl.lines[i].count, sizeof before[i]);
    /* text already there stays */
    cr_assert_eq(gm_srclines_fill_sass(&sl, &d), 0);
    gm_srclines_clear(&sl);
    gm_sass_dis_free(&d);
}

/* A private directory with a cubin (a stand-in text, or with real the lab's
 * sm_90 cubin) and records naming it. */
static char *S_child_files_of(char **records, bool real)
{
    char *dir = gmt_tmpdir("sassdis");
    gm_buf p = GM_BUF_INIT, t = GM_BUF_INIT;
    gm_buf_printf(&p, "%s/sass.0.00000000000000ab.cubin", dir);
    FILE *f = fopen(p.data, "w");
    cr_assert_not_null(f);
    if (real) {
        char *src = gmt_fixture("lab-sm90.cubin");
        FILE *in = fopen(src, "rb");
        cr_assert_not_null(in);
        char chunk[4096];
        size_t k;
        while ((k = fread(chunk, 1, sizeof chunk, in)) > 0)
            cr_assert_eq(fwrite(chunk, 1, k, f), k);
        fclose(in);
        free(src);
    } else {
        fputs("stand-in cubin\n", f);
    }
    cr_assert_eq(fclose(f), 0);
    gm_buf_printf(&t, "%s\n", GM_SL_RECORDS_HEADER);
    gm_sl_cubin_write(&t, "_Z10accumulatePfPKfi", p.data);
    gm_sl_cubin_write(&t, "_Z10accumulatePfPKfi", p.data);
    /* outside the prefix: neither read nor removed */
    gm_sl_cubin_write(&t, "_Z16transpose_paddedPKfPfi", "/etc/passwd");
    *records = gm_buf_detach(&t);
    gm_buf_free(&p);
    return dir;
}

/* The CLI's side: the records' cubins through nvdisasm (as GPUMEM_REPORT_NVDISASM
 * names it), the text into a collected run's lines, the note, the files gone. */
static void S_cli_side_of(const char *nvdisasm, const char *mode, gm_srclines *sl, char **dir,
                          bool real)
{
    char *records;
    *dir = S_child_files_of(&records, real);
    if (nvdisasm)
        setenv("GPUMEM_REPORT_NVDISASM", nvdisasm, 1);
    if (mode)
        setenv("FAKE_NVDISASM", mode, 1);
    S_lines(sl);
    sl->present = true;
    sl->status = gm_xstrdup("collected");
    sl->line_info = false;
    sl->note = gm_xstrdup("the kernel carries no line info");
    gm_sl_cubin *c;
    size_t n = gm_sl_cubins_parse(records, &c);
    cr_assert_eq(n, 2);
    gm_buf prefix = GM_BUF_INIT;
    gm_buf_printf(&prefix, "%s/sass.", *dir);
    gm_sass_text st = GM_SASS_TEXT_INIT;
    gm_sass_text_load(&st, c, n, prefix.data);
    cr_assert_eq(st.n_files, 1);
    gm_sass_text_apply(&st, sl);
    gm_sass_text_free(&st);
    gm_sl_cubins_free(c, n);
    gm_buf_free(&prefix);
    free(records);
    cr_assert_eq(gmt_count_entries(*dir), 0, "the cubin and its listing are removed");
    cr_assert(gmt_exists("/etc/passwd"));
}

static void S_cli_side(const char *nvdisasm, const char *mode, gm_srclines *sl, char **dir)
{
    S_cli_side_of(nvdisasm, mode, sl, dir, false);
}

/* A cubin's functions by their ELF symbol indices (readelf -s of the lab's
 * sm_90 cubin: accumulate 18 ... scale_coalesced 22), what nvdisasm -fun
 * takes; garbage and every truncation of the file give nothing, reading
 * nothing outside it. */
Test(sassdis, function_indices_of_a_cubin)
{
    char *p = gmt_fixture("lab-sm90.cubin");
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f);
    unsigned char buf[32768];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    free(p);
    cr_assert_gt(len, 20000);
    const char *names[] = {"_Z10accumulatePfPKfi", "_Z13scale_stridedPKfPfif", "no_such",
                           "_Z15scale_coalescedPKfPfif"};
    long idx[4];
    cr_assert_eq(gm_elf_function_indices(buf, len, names, 4, idx), 3);
    cr_assert_eq(idx[0], 18);
    cr_assert_eq(idx[1], 21);
    cr_assert_eq(idx[2], -1);
    cr_assert_eq(idx[3], 22);
    for (size_t cut = 0; cut < len; cut += 97) {
        unsigned char *part = malloc(cut ? cut : 1);
        memcpy(part, buf, cut);
        size_t got = gm_elf_function_indices(part, cut, names, 4, idx);
        cr_assert_leq(got, 3);
        free(part);
    }
    unsigned char junk[256];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 37 + 11);
    memcpy(junk, "\177ELF\002\001", 6);
    cr_assert_eq(gm_elf_function_indices(junk, sizeof junk, names, 4, idx), 0);
    cr_assert_eq(idx[0], -1);
}

/* nvdisasm is asked for the kernel's function alone (-fun with its symbol
 * index): a library's cubin holds thousands, and disassembling all of them
 * took PyTorch's example 27 s; an nvdisasm that refuses -fun is asked for
 * the whole cubin. */
Test(sassdis, nvdisasm_asked_for_the_kernel_alone)
{
    gmt_deadline(60);
    char *fake = gmt_src("tests/fixtures/fake-nvdisasm.sh");
    char *logdir = gmt_tmpdir("sassdis-log");
    char *log = gmt_join(logdir, "calls");
    setenv("FAKE_NVDISASM_LOG", log, 1);
    const char *modes[] = {NULL, "nofun"};
    for (size_t m = 0; m < 2; m++) {
        remove(log);
        if (modes[m])
            setenv("FAKE_NVDISASM", modes[m], 1);
        else
            unsetenv("FAKE_NVDISASM");
        gm_srclines sl;
        char *dir;
        S_cli_side_of(fake, NULL, &sl, &dir, true);
        cr_assert_str_eq(S_at(&sl, 0xc0, 0)->text, "LDG.E R3, desc[UR4][R2.64]");
        char *calls = gmt_text(log);
        cr_assert(strncmp(calls, "-c -fun 18 ", 11) == 0, "%s", calls);
        size_t lines = 0;
        for (const char *q = calls; *q; q++)
            lines += *q == '\n';
        cr_assert_eq(lines, m == 0 ? 1 : 2, "%s", calls);
        if (m == 1)
            cr_assert(strncmp(strchr(calls, '\n') + 1, "-c /", 4) == 0, "%s", calls);
        free(calls);
        gm_srclines_clear(&sl);
        gmt_rmrf(dir);
        free(dir);
    }
    unsetenv("FAKE_NVDISASM_LOG");
    unsetenv("FAKE_NVDISASM");
    gmt_rmrf(logdir);
    free(logdir);
    free(log);
    free(fake);
}

Test(sassdis, cli_side_with_a_working_nvdisasm)
{
    gmt_deadline(60);
    char *fake = gmt_src("tests/fixtures/fake-nvdisasm.sh");
    gm_srclines sl;
    char *dir;
    S_cli_side(fake, NULL, &sl, &dir);
    cr_assert_str_eq(S_at(&sl, 0xc0, 0)->text, "LDG.E R3, desc[UR4][R2.64]");
    cr_assert_str_eq(S_at(&sl, 0x100, 0)->text, "STG.E desc[UR4][R4.64], R7");
    cr_assert_str_eq(sl.note, "the kernel carries no line info; the instruction text is from "
                              "nvdisasm");
    cr_assert_eq(S_at(&sl, 0xc0, 0)->count[GM_SL_SECTORS], 128);
    gm_srclines_clear(&sl);
    gmt_rmrf(dir);
    free(dir);
    free(fake);
}

Test(sassdis, cli_side_with_a_failing_or_missing_nvdisasm)
{
    gmt_deadline(60);
    char *fake = gmt_src("tests/fixtures/fake-nvdisasm.sh");
    gm_srclines sl;
    char *dir;
    S_cli_side(fake, "fail", &sl, &dir);
    cr_assert_null(S_at(&sl, 0xc0, 0)->text);
    gmt_assert_has(sl.note, "the kernel carries no line info; no instruction text: nvdisasm "
                            "failed (exit status 1): nvdisasm fatal");
    gmt_assert_has(sl.note, "is not an ELF file");
    cr_assert_eq(S_at(&sl, 0xc0, 0)->count[GM_SL_SECTORS], 128, "counts unchanged");
    cr_assert_eq(S_at(&sl, 0x100, 0)->count[GM_SL_SECTORS], 16);
    gm_srclines_clear(&sl);
    gmt_rmrf(dir);
    free(dir);

    S_cli_side("/nonexistent/nvdisasm", NULL, &sl, &dir);
    cr_assert_null(S_at(&sl, 0xc0, 0)->text);
    cr_assert_str_eq(sl.note, "the kernel carries no line info; no instruction text: nvdisasm "
                              "was not found: GPUMEM_REPORT_NVDISASM=/nonexistent/nvdisasm is "
                              "no executable file");
    cr_assert_eq(S_at(&sl, 0xc0, 0)->count[GM_SL_SECTORS], 128);
    gm_srclines_clear(&sl);
    gmt_rmrf(dir);
    free(dir);

    /* "none": not run, and the note says it was not asked for */
    S_cli_side("none", NULL, &sl, &dir);
    cr_assert_null(S_at(&sl, 0xc0, 0)->text);
    cr_assert_str_eq(sl.note, "the kernel carries no line info; no instruction text: the "
                              "instruction text was not asked for (GPUMEM_REPORT_NVDISASM=none)");
    cr_assert_eq(S_at(&sl, 0xc0, 0)->count[GM_SL_SECTORS], 128);
    gm_srclines_clear(&sl);
    gmt_rmrf(dir);
    free(dir);

    /* not set, and found nowhere */
    unsetenv("GPUMEM_REPORT_NVDISASM");
    setenv("CUDA_HOME", "/nonexistent", 1);
    setenv("PATH", "/nonexistent", 1);
    char *why = NULL, *exe = gm_nvdisasm_find(&why);
    if (exe) {   /* the toolkit this build was made with, or /usr/local/cuda */
        cr_assert(strstr(exe, "/bin/nvdisasm"), "%s", exe);
    } else {
        gmt_assert_has(why, "nvdisasm was not found (looked at $GPUMEM_REPORT_NVDISASM, "
                            "$CUDA_HOME/bin, ");
        gmt_assert_has(why, "PATH and /usr/local/cuda/bin)");
    }
    free(exe);
    free(why);
    free(fake);
}

/* A program's kernel without line info, its rows' instructions holding what
 * Markdown and HTML must escape. */
static void S_nolines_run(gm_results *res, gm_run **out)
{
    gm_results_init(res);
    gm_experiment *e = gm_results_add_experiment(res);
    e->id = gm_xstrdup("lab");
    e->title = gm_xstrdup("A kernel without line info");
    gm_run *run = gm_results_add_run(res);
    run->experiment = gm_xstrdup("lab");
    run->kernel = gm_xstrdup("accumulate(float*, float const*, int)");
    run->variant = gm_xstrdup("accumulate");
    run->check.status = GM_CHECK_PASSED;
    gm_srclines *sl = &run->source_lines;
    sl->present = true;
    sl->status = gm_xstrdup("collected");
    sl->note = gm_xstrdup("the kernel carries no line info; the instruction text is from "
                          "nvdisasm");
    sl->line_info = false;
    sl->lines = gm_xcalloc(2, sizeof *sl->lines);
    sl->n_lines = 2;
    const char *text[2] = {"LDG.E R3, desc[UR4][R2.64] | <b>x</b>", "@P0 BRA `(.L_x_0)"};
    for (int i = 0; i < 2; i++) {
        gm_srcline *l = &sl->lines[i];
        l->line = 0;
        l->pc = 0xc0 + 0x40 * i;
        l->function = gm_xstrdup("_Z10accumulatePfPKfi");
        l->text = gm_xstrdup(text[i]);
        l->sass = gm_xstrdup("LDG");
        l->count[GM_SL_SECTORS] = 300 - 100 * i;
        l->count[GM_SL_SECTORS_IDEAL] = 100;
    }
    *out = run;
}

Test(sassdis, rows_without_line_info_render_their_instruction)
{
    gmt_deadline(60);
    gm_results res;
    gm_run *run;
    S_nolines_run(&res, &run);
    const gm_run *runs[1] = {run};
    gm_buf b = GM_BUF_INIT;
    gm_srclines_md_section(&b, runs, 1);
    gmt_assert_has(b.data, "| Instruction | Code | SASS |");
    gmt_assert_has(b.data, "| `accumulate+0xc0` | `LDG.E R3, desc[UR4][R2.64] \\| <b>x</b>` | "
                           "LDG | 300 | 100 | 200 |");
    gmt_assert_has(b.data, "| `accumulate+0x100` | ``@P0 BRA `(.L_x_0)`` |");
    gmt_assert_lacks(b.data, "_Z10");
    gm_buf_free(&b);
    /* the finding's citation reads as a line's does: where, then the code */
    gm_buf c = GM_BUF_INIT;
    gm_srcline_cite_md(&c, &run->source_lines.lines[0]);
    cr_assert_str_eq(c.data, "`accumulate+0xc0` `LDG.E R3, desc[UR4][R2.64] \\| <b>x</b>`");
    gm_buf_free(&c);

    /* HTML, through the whole report: the tag never raw, the table whole */
    char *dir = gmt_tmpdir("sassdis-html");
    char *json = gmt_join(dir, "r.json"), *html = gmt_join(dir, "r.html");
    gm_error err;
    cr_assert_eq(gm_results_write_file(&res, json, &err), GM_OK, "%s", err.message);
    char *argv[] = {(char *)gmt_bin(), "render", json, "--out", html, NULL};
    char *out = NULL, *errs = NULL;
    cr_assert_eq(gmt_run(argv, NULL, &out, &errs), 0, "%s", errs);
    char *page = gmt_text(html);
    gmt_assert_lacks(page, "<b>x</b>");
    gmt_assert_has(page, "<code>LDG.E R3, desc[UR4][R2.64] | &lt;b&gt;x&lt;/b&gt;</code>");
    gmt_assert_has(page, "<code>@P0 BRA `(.L_x_0)</code>");
    gmt_assert_lacks(page, "_Z10accumulate");
    free(page);
    free(out);
    free(errs);
    /* the text survives the results file */
    gm_results back;
    cr_assert_eq(gm_results_read_file(json, &back, &err), GM_OK, "%s", err.message);
    cr_assert_str_eq(back.runs[0].source_lines.lines[0].text,
                     "LDG.E R3, desc[UR4][R2.64] | <b>x</b>");
    gm_results_free(&back);
    gmt_rmrf(dir);
    free(json);
    free(html);
    free(dir);
    gm_results_free(&res);
}
