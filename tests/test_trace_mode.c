/* test_trace_mode.c — the per-line counts of the Compute Sanitizer's trace
 * mode (issue 25) without a GPU: the records file it writes (tests/fixtures/
 * trace-records-lab.txt, hand-written from examples/app/lab.cu's access
 * patterns), which argument points into which allocation, the arrays' names
 * (from the kernel's source or its demangled name), the lines and arrays of a
 * run, the results file, the report's rows, the CSV and the diff. */
#include "../core/results.h"
#include "../core/srclines.h"
#include "../reports/csv.h"
#include "../reports/srclines.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 131072LL   /* warps of one lab.cu launch: 2^22 threads */

/* The fixture with @SRC@ made the repository root, parsed. */
static void S_load(gm_sl_trace *t)
{
    char *path = gmt_fixture("trace-records-lab.txt");
    char *text = gmt_text(path);
    gm_buf b = GM_BUF_INIT;
    for (const char *p = text; *p;) {
        const char *at = strstr(p, "@SRC@");
        if (!at) {
            gm_buf_puts(&b, p);
            break;
        }
        gm_buf_put(&b, p, (size_t)(at - p));
        gm_buf_puts(&b, gmt_srcdir());
        p = at + 5;
    }
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_sl_trace_parse(b.data, path, t, &err), GM_OK, "%s", err.message);
    gm_buf_free(&b);
    free(text);
    free(path);
}

static const gm_sl_trace_launch *S_launch(const gm_sl_trace *t, const char *prefix)
{
    for (size_t i = 0; i < t->n_launches; i++)
        if (strncmp(t->launches[i].kernel, prefix, strlen(prefix)) == 0)
            return &t->launches[i];
    cr_assert_fail("no launch of %s", prefix);
    return NULL;
}

Test(trace_mode, records_file_parsed)
{
    gm_sl_trace t;
    S_load(&t);
    cr_assert_eq(t.n_launches, 4);
    cr_assert_null(t.error);
    cr_assert_null(t.unavailable);
    cr_assert_eq(t.seen, 10);
    cr_assert_eq(t.traced, 4);
    const gm_sl_trace_launch *L = S_launch(&t, "scale_strided");
    cr_assert_null(L->label, "a program's launches have no label");
    cr_assert_eq(L->index, 2);
    cr_assert_eq(L->n_params, 4);
    cr_assert_eq(L->n_records, 2);
    cr_assert_str_eq(L->records[0].function, "_Z13scale_stridedPKfPfif");
    cr_assert_eq(L->records[0].count[GM_SL_SECTORS], 32 * W);
    cr_assert_eq(L->n_allocs, 2);
    cr_assert_eq(L->allocs[0].size, 16777216);
    cr_assert_eq(L->allocs[0].n_refs, 1);
    cr_assert_eq(L->allocs[0].refs[0].param, 0);
    cr_assert_eq(L->allocs[0].sectors, 32 * W);
    const gm_sl_trace_launch *A = S_launch(&t, "accumulate");
    cr_assert_eq(A->allocs[1].n_refs, 0, "an allocation no argument points to");
    gm_sl_trace_free(&t);
}

Test(trace_mode, records_written_then_read_back)
{
    gm_buf b = GM_BUF_INIT;
    gm_sl_trace_write_header(&b);
    gm_sl_trace_write_launch(&b, "3", 17, 2, "k(float*, int)");
    gm_sl_record r = {.function = "_Z1kPfi", .pc = 0x40, .file = NULL, .line = 0,
                      .count = {4, 4, 0, 0, 0, 128, 16, 0, 0}};
    gm_sl_record_write(&b, &r);
    gm_sl_argref refs[2] = {{0, 0}, {1, 8}};
    gm_sl_trace_alloc a = {.size = 4096, .refs = refs, .n_refs = 2, .loads = 4,
                           .bytes = 512, .sectors = 128, .sectors_ideal = 16};
    gm_sl_trace_write_alloc(&b, &a);
    gm_sl_trace_alloc none = {.size = -1, .loads = 1, .bytes = 4, .sectors = 1,
                              .sectors_ideal = 1};
    gm_sl_trace_write_alloc(&b, &none);
    gm_sl_trace_write_note(&b, "error", "the table\tfilled\nup");
    gm_sl_trace t;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_sl_trace_parse(b.data, "t", &t, &err), GM_OK, "%s", err.message);
    cr_assert_eq(t.n_launches, 1);
    cr_assert_str_eq(t.launches[0].label, "3");
    cr_assert_eq(t.launches[0].index, 17);
    cr_assert_str_eq(t.launches[0].kernel, "k(float*, int)");
    cr_assert_eq(t.launches[0].records[0].count[GM_SL_SECTORS], 128);
    cr_assert_eq(t.launches[0].n_allocs, 2);
    cr_assert_eq(t.launches[0].allocs[0].refs[1].offset, 8);
    cr_assert_eq(t.launches[0].allocs[1].size, -1);
    cr_assert_str_eq(t.error, "the table filled up", "tabs and newlines: spaces");
    gm_sl_trace_free(&t);
    gm_buf_free(&b);
}

Test(trace_mode, bad_records_name_the_line)
{
    gm_sl_trace t;
    gm_error err;
    cr_assert_eq(gm_sl_trace_parse("", "x", &t, &err), GM_ERR_PARSE);
    gmt_assert_has(err.message, "empty");
    cr_assert_eq(gm_sl_trace_parse("# gpumem-report sass records 1\n", "x", &t, &err),
                 GM_ERR_PARSE);
    gmt_assert_has(err.message, "x:1");
    const char *early = GM_SL_TRACE_HEADER "\n@alloc\t4\t-\t1\t0\t4\t1\t1\n";
    cr_assert_eq(gm_sl_trace_parse(early, "x", &t, &err), GM_ERR_PARSE);
    gmt_assert_has(err.message, "x:2");
    gmt_assert_has(err.message, "@launch before @alloc");
    const char *refs = GM_SL_TRACE_HEADER "\n@launch\t-\t0\t1\tk\n@alloc\t4\t0:x\t1\t0\t4\t1\t1\n";
    cr_assert_eq(gm_sl_trace_parse(refs, "x", &t, &err), GM_ERR_PARSE);
    gmt_assert_has(err.message, "x:3");
    gmt_assert_has(err.message, "REFS");
    const char *rec = GM_SL_TRACE_HEADER "\nk\t0x10\t-\t0\t1\t1\t1\t1\t1\t1\t1\t1\t1\n";
    cr_assert_eq(gm_sl_trace_parse(rec, "x", &t, &err), GM_ERR_PARSE);
    gmt_assert_has(err.message, "@launch before the first record");
    /* what a library without the Compute Sanitizer writes */
    const char *un = GM_SL_TRACE_HEADER "\n@unavailable\tcannot load libgpumem-trace.so\n"
                                        "@future\tkept for a newer writer\n";
    cr_assert_eq(gm_sl_trace_parse(un, "x", &t, &err), GM_OK, "%s", err.message);
    cr_assert_str_eq(t.unavailable, "cannot load libgpumem-trace.so");
    gm_sl_trace_free(&t);
}

Test(trace_mode, argument_words_matched_against_allocations)
{
    /* k(float const* in, float* out, int n, std::array<char*, 3> p), laid out by the driver */
    unsigned char buf[48];
    memset(buf, 0, sizeof buf);
    unsigned long long in = 0x7f0000001000ull, out = 0x7f0000200010ull, none = 0x1234;
    unsigned long long arr[3] = {0x7f0000200000ull + 64, 0, 0x7f0000001000ull + 4095};
    int n = 1 << 20;
    memcpy(buf + 0, &in, 8);
    memcpy(buf + 8, &out, 8);
    memcpy(buf + 16, &n, 4);
    memcpy(buf + 24, arr, 24);
    gm_sl_param layout[4] = {{0, 8}, {8, 8}, {16, 4}, {24, 24}};
    gm_sl_range allocs[3] = {{0x7f0000001000ull, 4096},
                             {0x7f0000200000ull, 1 << 20},
                             {0x7f0000400000ull, 64}};
    gm_sl_match *m = NULL;
    size_t k = gm_sl_args_match(buf, sizeof buf, layout, 4, allocs, 3, &m);
    cr_assert_eq(k, 4);
    cr_assert(m[0].param == 0 && m[0].offset == 0 && m[0].alloc == 0);
    cr_assert(m[1].param == 1 && m[1].offset == 0 && m[1].alloc == 1, "inside, not at the base");
    cr_assert(m[2].param == 3 && m[2].offset == 0 && m[2].alloc == 1, "a word of a struct");
    cr_assert(m[3].param == 3 && m[3].offset == 16 && m[3].alloc == 0, "its last byte");
    free(m);
    (void)none;
    /* one past the end is outside; a layout past the buffer is skipped */
    unsigned long long past = 0x7f0000001000ull + 4096;
    memcpy(buf, &past, 8);
    gm_sl_param bad[2] = {{0, 8}, {40, 16}};
    k = gm_sl_args_match(buf, sizeof buf, bad, 2, allocs, 3, &m);
    cr_assert_eq(k, 0);
    free(m);
    cr_assert_eq(gm_sl_args_match(NULL, 0, layout, 4, allocs, 3, &m), 0, "no bytes known");
    free(m);
}

Test(trace_mode, parameter_types_and_base_names)
{
    char **v;
    size_t n = gm_sl_param_types("scale_coalesced(float const*, float*, int, float)", &v);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(v[0], "float const*");
    cr_assert_str_eq(v[3], "float");
    gm_sl_strv_free(v, n);
    n = gm_sl_param_types("void at::native::vectorized_elementwise_kernel<4, at::native::"
                          "AddFunctor<float>, std::array<char*, 3ul> >(int, at::native::"
                          "AddFunctor<float>, std::array<char*, 3ul>)", &v);
    cr_assert_eq(n, 3, "commas inside template arguments do not split");
    cr_assert_str_eq(v[2], "std::array<char*, 3ul>");
    gm_sl_strv_free(v, n);
    cr_assert_eq(gm_sl_param_types("k()", &v), 0);
    cr_assert_eq(gm_sl_param_types("k(void)", &v), 0);
    cr_assert_eq(gm_sl_param_types("plain_c_name", &v), 0);
    const char *names[][2] = {
        {"scale_coalesced(float const*, float*, int, float)", "scale_coalesced"},
        {"void ns::k<32, (ns::E)1>(float*)", "k"},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >(at::native::"
         "ReduceOp<float>)", "reduce_kernel"},
        {"plain", "plain"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *b = gm_sl_base_name(names[i][0]);
        cr_assert_str_eq(b, names[i][1]);
        free(b);
    }
}

Test(trace_mode, parameter_names_from_the_source)
{
    char *path = gmt_src("examples/app/lab.cu");
    char *src = gmt_text(path);
    char **v;
    size_t n = gm_sl_param_names(src, "scale_strided", 4, &v);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(v[0], "in");
    cr_assert_str_eq(v[1], "out");
    cr_assert_str_eq(v[2], "n");
    cr_assert_str_eq(v[3], "a");
    gm_sl_strv_free(v, n);
    cr_assert_eq(gm_sl_param_names(src, "scale_strided", 3, &v), 0, "the driver's count rules");
    cr_assert_eq(gm_sl_param_names(src, "scale", 4, &v), 0, "a whole name only");
    free(src);
    free(path);
    const char *odd = "template <int T>\n__global__ void __launch_bounds__(256)\nodd(const float "
                      "*__restrict__ x, float *, int n = 4, float y[4], unsigned)\n{}\n"
                      "__global__ void other(int q);\n";
    /* __launch_bounds__(256) is stepped over */
    n = gm_sl_param_names(odd, "odd", 5, &v);
    cr_assert_eq(n, 5);
    cr_assert_str_eq(v[0], "x");
    cr_assert_null(v[1], "no name given");
    cr_assert_str_eq(v[2], "n");
    cr_assert_str_eq(v[3], "y");
    cr_assert_null(v[4], "a lone type is no name");
    gm_sl_strv_free(v, n);
}

Test(trace_mode, allocation_names)
{
    gm_sl_argref r1[2] = {{1, 0}, {1, 0}};
    gm_sl_trace_alloc a = {.size = 64, .refs = r1, .n_refs = 2};
    char *names[2] = {"in", "out"};
    char *s = gm_sl_alloc_name(&a, "k(float const*, float*)", names, 2);
    cr_assert_str_eq(s, "out", "a word named once");
    free(s);
    s = gm_sl_alloc_name(&a, "k(float const*, float*)", NULL, 0);
    cr_assert_str_eq(s, "arg 1 (float*)", "no source: position and type");
    free(s);
    gm_sl_argref r2[2] = {{2, 8}, {0, 0}};
    gm_sl_trace_alloc b = {.size = 64, .refs = r2, .n_refs = 2};
    s = gm_sl_alloc_name(&b, "f(float*, int, std::array<char*, 3ul>)", NULL, 0);
    cr_assert_str_eq(s, "arg 2 +8 (std::array<char*, 3ul>), arg 0 (float*)");
    free(s);
    gm_sl_argref r3[1] = {{0, 24}};
    gm_sl_trace_alloc d = {.size = 64, .refs = r3, .n_refs = 1};
    s = gm_sl_alloc_name(&d, "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<"
                             "float, at::native::MeanOps<float, float, float, float>, unsigned "
                             "int, float, 4, 4> >(at::native::ReduceOp<float, at::native::"
                             "MeanOps<float, float, float, float>, unsigned int, float, 4, 4>)",
                         NULL, 0);
    cr_assert_str_eq(s, "arg 0 +24 (at::native::ReduceOp<…>)");
    free(s);
    gm_sl_trace_alloc c = {.size = 64};
    cr_assert_null(gm_sl_alloc_name(&c, "k(float*)", NULL, 0));
}

Test(trace_mode, symbols_name_kernels)
{
    cr_assert(gm_sl_symbol_is("_Z22transpose_kernel_tiledILi16EEvPKfPfi",
                              "transpose_kernel_tiled<16>"));
    cr_assert_not(gm_sl_symbol_is("_Z29transpose_kernel_tiled_paddedPKfPfi",
                                  "transpose_kernel_tiled"));
    cr_assert_not(gm_sl_symbol_is("_Z2k2Pf", "k"));
    cr_assert(gm_sl_symbol_is("plain_c", "plain_c"));
    cr_assert_not(gm_sl_symbol_is("plain_c2", "plain_c"));
    cr_assert_not(gm_sl_symbol_is(NULL, "k"));
}

/* A program's results with the fixture's launches as its runs' lines. */
static void S_program(gm_results *res)
{
    gm_sl_trace t;
    S_load(&t);
    gm_results_init(res);
    gm_experiment *e = gm_results_add_experiment(res);
    e->id = gm_xstrdup("lab");
    e->title = gm_xstrdup("Kernels of lab");
    const char *variants[] = {"coalesced", "uncoalesced", "shared-unpadded", "accumulate"};
    for (size_t i = 0; i < t.n_launches; i++) {
        gm_run *run = gm_results_add_run(res);
        run->experiment = gm_xstrdup("lab");
        run->variant = gm_xstrdup(variants[i]);
        run->kernel = gm_xstrdup(t.launches[i].kernel);
        run->check.status = GM_CHECK_NO_REFERENCE;
        gm_srclines *sl = &run->source_lines;
        sl->present = true;
        sl->status = gm_xstrdup("collected");
        gm_srclines_from_trace(sl, &t.launches[i]);
    }
    res->collection.source_lines = true;
    res->collection.source_lines_seconds = gm_vreal(1.25);
    res->collection.source_lines_launches = (long long)t.n_launches;
    res->collection.source_lines_method = gm_xstrdup("trace");
    gm_sl_trace_free(&t);
}

Test(trace_mode, lines_and_arrays_of_a_launch)
{
    gm_results res;
    S_program(&res);
    const gm_srclines *sl = &res.runs[1].source_lines;   /* scale_strided */
    cr_assert(sl->line_info);
    cr_assert_eq(sl->n_lines, 1);
    cr_assert_eq(sl->lines[0].line, 67);
    cr_assert_eq(sl->lines[0].count[GM_SL_SECTORS], 36 * W);
    gmt_assert_has(sl->lines[0].text, "in[(i % 32) * (n / 32) + i / 32]");
    cr_assert_eq(sl->n_allocs, 2);
    cr_assert_str_eq(sl->allocs[0].name, "in", "the most excess first, named from lab.cu");
    cr_assert_eq(gm_sl_alloc_excess(&sl->allocs[0]), 28 * W);
    cr_assert_str_eq(sl->allocs[1].name, "out");
    cr_assert_eq(gm_sl_alloc_excess(&sl->allocs[1]), 0);
    const gm_srclines *acc = &res.runs[3].source_lines;
    cr_assert_str_eq(acc->allocs[0].name, "acc");
    cr_assert_eq(acc->allocs[0].loads, W);
    cr_assert_eq(acc->allocs[0].stores, W);
    cr_assert_null(acc->allocs[1].name);
    gm_results_free(&res);
}

Test(trace_mode, results_file_keeps_arrays_and_method)
{
    gm_results res;
    S_program(&res);
    res.collection.source_lines_fallback = gm_xstrdup("a reason");
    char *a = gm_results_to_json(&res);
    gmt_assert_has(a, "\"allocations\"");
    gmt_assert_has(a, "\"source_lines_method\": \"trace\"");
    gm_results back;
    gm_error err;
    cr_assert_eq(gm_results_read_string(a, "a.json", &back, &err), GM_OK, "%s", err.message);
    char *b = gm_results_to_json(&back);
    cr_assert_str_eq(a, b);
    cr_assert_eq(back.runs[1].source_lines.n_allocs, 2);
    cr_assert_str_eq(back.runs[1].source_lines.allocs[0].name, "in");
    cr_assert_eq(back.runs[3].source_lines.allocs[1].size, 16777216);
    cr_assert_str_eq(back.collection.source_lines_method, "trace");
    cr_assert_str_eq(back.collection.source_lines_fallback, "a reason");
    free(b);
    gm_results_free(&back);
    /* a negative count names its path */
    char *p = strstr(a, "\"stores\": 131072");
    cr_assert_not_null(p);
    memcpy(p, "\"stores\": -31072", 16);
    cr_assert_neq(gm_results_read_string(a, "a.json", &back, &err), GM_OK);
    gmt_assert_has(err.message, "source_lines.allocations[");
    gmt_assert_has(err.message, "].stores");
    free(a);
    gm_results_free(&res);
}

Test(trace_mode, report_rows_name_the_array)
{
    gm_results res;
    S_program(&res);
    const gm_run *runs[4] = {&res.runs[0], &res.runs[1], &res.runs[2], &res.runs[3]};
    gm_buf b = GM_BUF_INIT;
    gm_srclines_md_section(&b, runs, 4);
    gmt_assert_has(b.data, "Which arrays");
    gmt_assert_has(b.data, "| `in` | 16.0 MiB | read | 16.0 MiB | 4,194,304 | 524,288 | "
                           "3,670,016 | 100.0% |");
    gmt_assert_has(b.data, "| `acc` | 16.0 MiB | read, written | 32.0 MiB |");
    gmt_assert_has(b.data, "| an allocation no argument points to | 16.0 MiB | read |");
    gm_buf_free(&b);
    gm_srclines_md_brief(&b, runs, 4, false);
    gmt_assert_has(b.data, "**The array that wastes the most**");
    gmt_assert_has(b.data, "| `uncoalesced` | `in` | 16.0 MiB | read | 3,670,016 sectors | "
                           "100.0% |");
    cr_assert_eq(gmt_occurrences(b.data, "| `coalesced` | `in`"), 0, "no excess, no row");
    gm_buf_free(&b);
    /* the method section says how and what it cost */
    cr_assert(gm_srclines_md_method(&b, &res, true));
    gmt_assert_has(b.data, "the program ran once more");
    gmt_assert_has(b.data, "Compute Sanitizer");
    gmt_assert_has(b.data, "4 kernels counted; the extra run took 1.25 s in all (4 launches "
                           "counted");
    gm_buf_free(&b);
    /* made again from the kept launches, one kernel by a rerun: both said */
    free(res.collection.source_lines_method);
    res.collection.source_lines_method = gm_xstrdup("replay");
    res.collection.source_lines_fallback =
        gm_xstrdup("1 kernel was traced in a run of the program of its own, not made again "
                   "from the counted run: accumulate(float*, float const*, int): its module's "
                   "cubin was not seen loading");
    cr_assert(gm_srclines_md_method(&b, &res, true));
    gmt_assert_has(b.data, "was made again in a process of its own, traced, from what the "
                           "counted run kept of it");
    gmt_assert_has(b.data, "the program did not run again");
    gmt_assert_lacks(b.data, "the program ran once more");
    gmt_assert_has(b.data, "1 kernel was traced in a run of the program of its own, not made "
                           "again from the counted run: accumulate(float\\*, float const\\*, "
                           "int): its module's cubin was not seen loading. ");
    gmt_assert_has(b.data, "the extra process took 1.25 s in all");
    gm_buf_free(&b);
    free(res.collection.source_lines_fallback);
    res.collection.source_lines_fallback = NULL;
    /* the suite's tracer: one process (files before the field), then four side by side */
    free(res.collection.source_lines_method);
    res.collection.source_lines_method = gm_xstrdup("trace");
    cr_assert(gm_srclines_md_method(&b, &res, false));
    gmt_assert_has(b.data, "one more process set up each layout's chosen case");
    gmt_assert_has(b.data, "the extra process took 1.25 s in all");
    gm_buf_free(&b);
    res.collection.source_lines_processes = 4;
    cr_assert(gm_srclines_md_method(&b, &res, false));
    gmt_assert_has(b.data, "4 processes of their own, side by side, each with whole "
                           "experiments, set up each layout's chosen case");
    gmt_assert_has(b.data, "the extra processes took 1.25 s in all");
    gmt_assert_lacks(b.data, "one more process");
    gm_buf_free(&b);
    res.collection.source_lines_processes = 0;
    free(res.collection.source_lines_method);
    res.collection.source_lines_method = gm_xstrdup("sass");
    res.collection.source_lines_fallback = gm_xstrdup("the tracer's library libgpumem-trace.so "
                                                      "is not installed");
    cr_assert(gm_srclines_md_method(&b, &res, false));
    gmt_assert_has(b.data, "CUPTI's SASS metrics");
    gmt_assert_has(b.data, "was not used: the tracer's library libgpumem-trace.so is not "
                           "installed.");
    gm_buf_free(&b);
    free(res.collection.source_lines_method);
    res.collection.source_lines_method = NULL;
    cr_assert_not(gm_srclines_md_method(&b, &res, false), "an older file: md_method.c's words");
    cr_assert_eq(b.len, 0);
    gm_buf_free(&b);
    gm_results_free(&res);
}

Test(trace_mode, csv_rows_of_the_arrays)
{
    gm_results res;
    S_program(&res);
    char *csv = gm_results_csv(&res);
    gmt_assert_has(csv, ",uncoalesced,,no-reference,array.0.name,in,\r\n");
    gmt_assert_has(csv, ",uncoalesced,,no-reference,array.0.sectors,4194304,sector\r\n");
    gmt_assert_has(csv, ",accumulate,,no-reference,array.1.name,,\r\n");
    free(csv);
    gm_results_free(&res);
}

Test(trace_mode, diff_of_arrays)
{
    gm_results base, head;
    S_program(&base);
    S_program(&head);
    gm_srclines *h = &head.runs[1].source_lines;
    gm_buf b = GM_BUF_INIT;
    cr_assert_eq(gm_srclines_md_diff_allocs(&b, &base.runs[1].source_lines, h), 0,
                 "the same: no row");
    cr_assert_eq(b.len, 0);
    h->allocs[0].sectors = 4 * W;   /* the strided read made coalesced */
    cr_assert_eq(gm_srclines_md_diff_allocs(&b, &base.runs[1].source_lines, h), 1);
    gmt_assert_has(b.data, "| `in` | 16.0 MiB | 4,194,304 → 524,288 | 524,288 | 3,670,016 → 0 |");
    gm_buf_free(&b);
    gm_sl_alloc_change *ch = NULL;
    free(h->allocs[1].name);
    h->allocs[1].name = gm_xstrdup("renamed");
    size_t n = gm_srclines_alloc_changes(&base.runs[1].source_lines, h, &ch);
    cr_assert_eq(n, 3, "in changed; out gone; renamed new");
    cr_assert_not_null(ch[1].base);
    cr_assert_null(ch[1].head);
    cr_assert_null(ch[2].base);
    free(ch);
    gm_results_free(&base);
    gm_results_free(&head);
}
