/* test_srclines.c — per-source-line counters (issue 14) on recorded data:
 * the records the H100 gave for transpose/tiled and rgb/interleaved
 * (tests/fixtures/sass-records-*.txt, provenance in their header), mapped to
 * lines, aggregated, ranked, rendered (escaped for Markdown, HTML, gnuplot),
 * stored in and read back from the results file, and compared (diff). */
#include "../core/catalog.h"
#include "../core/model.h"
#include "../core/results.h"
#include "../core/srclines.h"
#include "../core/symbol.h"
#include "../reports/render.h"
#include "../reports/runs.h"
#include "../reports/srclines.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void S_load(const char *name, gm_sl_record **r, size_t *n)
{
    char *path = gmt_fixture(name);
    char *text = gmt_text(path);
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_sl_records_parse(text, path, r, n, &err), GM_OK, "%s", err.message);
    free(text);
    free(path);
}

static const gm_srcline *S_line(const gm_srclines *sl, long long line)
{
    for (size_t i = 0; i < sl->n_lines; i++)
        if (sl->lines[i].line == line)
            return &sl->lines[i];
    cr_assert_fail("no line %lld", line);
    return NULL;
}

Test(srclines, pc_to_line_from_recorded_records)
{
    gm_sl_record *r;
    size_t n;
    S_load("sass-records-transpose-tiled.txt", &r, &n);
    cr_assert_eq(n, 139);
    cr_assert_str_eq(r[0].function, "_Z22transpose_kernel_tiledPKfPfi");
    cr_assert_eq(r[0].pc, 0x0);
    cr_assert_eq(r[0].line, 68);
    cr_assert(strstr(r[0].file, "kernels/exp_transpose.cu") != NULL);
    /* the LDG of the tile load, as recorded */
    bool seen = false;
    for (size_t i = 0; i < n; i++)
        if (r[i].pc == 0x2e0) {
            seen = true;
            cr_assert_eq(r[i].line, 57);
            cr_assert_eq(r[i].count[GM_SL_GLOBAL_LD], 524288);
            cr_assert_eq(r[i].count[GM_SL_SECTORS], 2097152);
        }
    cr_assert(seen);
    gm_sl_records_free(r, n);
}

Test(srclines, aggregation_by_line)
{
    gm_sl_record *r;
    size_t n;
    S_load("sass-records-transpose-tiled.txt", &r, &n);
    gm_srclines sl = {0};
    gm_srclines_from_records(&sl, r, n);
    cr_assert(sl.line_info);
    cr_assert_eq(sl.n_lines, 11);
    for (size_t i = 1; i < sl.n_lines; i++)
        cr_assert_lt(sl.lines[i - 1].line, sl.lines[i].line, "sorted by line");
    const gm_srcline *ld = S_line(&sl, 57), *st = S_line(&sl, 65);
    cr_assert_eq(ld->count[GM_SL_SECTORS], 8388608);
    cr_assert_eq(ld->count[GM_SL_SECTORS_IDEAL], 8388608);
    cr_assert_eq(ld->count[GM_SL_WAVEFRONTS], 2097152);
    cr_assert_eq(ld->count[GM_SL_INST], 25690112);
    cr_assert_str_eq(ld->sass, "LDG STS");
    cr_assert_eq(st->count[GM_SL_WAVEFRONTS], 67108864);   /* 32-way conflict */
    cr_assert_eq(st->count[GM_SL_WAVEFRONTS_IDEAL], 2097152);
    cr_assert_str_eq(st->sass, "STG LDS");
    cr_assert_eq(st->pc, -1);
    /* line sums are the records' sums */
    long long sec = 0;
    for (size_t i = 0; i < n; i++)
        sec += r[i].count[GM_SL_SECTORS];
    cr_assert_eq(gm_srclines_total(&sl, GM_SL_SECTORS), sec);
    gm_srclines_clear(&sl);
    gm_sl_records_free(r, n);
}

Test(srclines, without_line_info_one_line_per_instruction)
{
    const char *text = GM_SL_RECORDS_HEADER "\n"
                       "k\t0x10\t-\t0\t4\t4\t0\t0\t0\t128\t16\t0\t0\n"
                       "k\t0x10\t-\t0\t4\t4\t0\t0\t0\t128\t16\t0\t0\n"
                       "k\t0x20\t-\t0\t4\t0\t4\t0\t0\t16\t16\t0\t0\n"
                       "k\t0x30\t-\t0\t4\t0\t0\t0\t0\t0\t0\t0\t0\n";
    gm_sl_record *r;
    size_t n;
    gm_error err;
    cr_assert_eq(gm_sl_records_parse(text, "t", &r, &n, &err), GM_OK, "%s", err.message);
    gm_srclines sl = {0};
    gm_srclines_from_records(&sl, r, n);
    cr_assert_not(sl.line_info);
    cr_assert_eq(sl.n_lines, 3);
    cr_assert_eq(sl.lines[0].pc, 0x10);
    cr_assert_eq(sl.lines[0].count[GM_SL_SECTORS], 256);
    char where[64];
    gm_srcline_where(&sl.lines[1], where, sizeof where);
    cr_assert_str_eq(where, "k+0x20");
    gm_srclines_clear(&sl);
    gm_sl_records_free(r, n);
}

/* Issue 26: rows of a library kernel without line info read
 * "_ZN2at6native18elementwise_kernel...+0x13c0".  The function is named as a
 * person reads it; symbols from the H100 run (examples/h100/run.json) and
 * PyTorch's elementwise kernel. */
Test(srclines, rows_without_line_info_name_the_function_readably)
{
    static const struct {
        const char *symbol, *name;
    } cases[] = {
        {"_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastINS0_"
         "15CUDAFunctor_addIfEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
         "elementwise_kernel<…>"},
        {"_Z15spmv_kernel_elliiPKiPKfS2_Pf", "spmv_kernel_ell"},
        {"_Z19matmul_kernel_tiledILi16EEvPKfS1_Pfi", "matmul_kernel_tiled<…>"},
        {"_ZN12_GLOBAL__N_114reduce_partialEPKfPfi", "reduce_partial"},
        {"_ZNSt6vectorIiE4sizeEv", "size"},
        {"_ZL9static_fnPf", "static_fn"},
        {"copy_kernel", "copy_kernel"},   /* extern "C": as it is */
        {"_Znot_a_symbol", "_Znot_a_symbol"},   /* not read: as it is */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gm_srcline l = {0};
        l.function = (char *)cases[i].symbol;
        l.pc = 0x13c0;
        char where[256], want[256];
        gm_srcline_where(&l, where, sizeof where);
        snprintf(want, sizeof want, "%s+0x13c0", cases[i].name);
        cr_assert_str_eq(where, want);
    }
    /* a very long plain name is cut; text quoting symbols names them */
    gm_buf b = GM_BUF_INIT;
    char longname[300];
    memset(longname, 'k', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    gm_symbol_readable(longname, &b);
    cr_assert_leq(b.len, GM_SYMBOL_MAX);
    gmt_assert_has(b.data, "…");
    gm_buf_free(&b);
    gm_symbol_text("launch 3 (_Z15spmv_kernel_elliiPKiPKfS2_Pf): out of memory; x_Z1y", &b);
    cr_assert_str_eq(b.data, "launch 3 (spmv_kernel_ell): out of memory; x_Z1y");
    gm_buf_free(&b);
}

Test(srclines, bad_records_name_the_line)
{
    gm_sl_record *r;
    size_t n;
    gm_error err;
    const char *bad = GM_SL_RECORDS_HEADER "\nk\t0x10\tf.cu\t3\t1\t1\t1\t1\t1\t1\t1\t1\t1\n"
                      "k\t16\tf.cu\t3\t1\t1\t1\t1\t1\t1\t1\t1\t1\n";
    cr_assert_eq(gm_sl_records_parse(bad, "rec.txt", &r, &n, &err), GM_ERR_PARSE);
    gmt_assert_has(err.message, "rec.txt:3");
    gmt_assert_has(err.message, "PC");
    const char *extra = "k\t0x10\tf.cu\t3\t1\t1\t1\t1\t1\t1\t1\t1\t1\t9\n";
    cr_assert_eq(gm_sl_records_parse(extra, "x", &r, &n, &err), GM_ERR_PARSE);
    gmt_assert_has(err.message, "extra");
    const char *neg = "k\t0x10\tf.cu\t3\t1\t1\t1\t1\t1\t-1\t1\t1\t1\n";
    cr_assert_eq(gm_sl_records_parse(neg, "x", &r, &n, &err), GM_ERR_PARSE);
    gmt_assert_has(err.message, "sectors");
}

Test(srclines, ranking_by_excess)
{
    gm_sl_record *r;
    size_t n;
    S_load("sass-records-rgb-interleaved.txt", &r, &n);
    gm_srclines sl = {0};
    gm_srclines_from_records(&sl, r, n);
    size_t idx[5];
    cr_assert_eq(gm_srclines_rank(&sl, false, idx, 5), 1);
    cr_assert_eq(sl.lines[idx[0]].line, 59);
    cr_assert_eq(gm_srcline_excess_sectors(&sl.lines[idx[0]]), 14745600 - 4915200);
    cr_assert_eq(gm_srclines_rank(&sl, true, idx, 5), 0, "no shared memory in rgb");
    gm_srclines_clear(&sl);
    gm_sl_records_free(r, n);

    S_load("sass-records-transpose-tiled.txt", &r, &n);
    gm_srclines_from_records(&sl, r, n);
    cr_assert_eq(gm_srclines_rank(&sl, true, idx, 1), 1);
    cr_assert_eq(sl.lines[idx[0]].line, 65);
    cr_assert_eq(gm_srclines_top(&sl, true, "LDS"), &sl.lines[idx[0]]);
    cr_assert_null(gm_srclines_top(&sl, true, "STS"), "the tile store is conflict-free");
    gm_srclines_clear(&sl);
    gm_sl_records_free(r, n);
}

Test(srclines, source_text_read_from_the_file)
{
    char *dir = gmt_tmpdir("srclines");
    char *src = gmt_join(dir, "k.cu");
    FILE *f = fopen(src, "w");
    cr_assert_not_null(f);
    fputs("line one\n\tout[i] = in[3*i];   \nlast", f);
    fclose(f);
    gm_sl_record r[2] = {{.function = "k", .pc = 0, .file = src, .line = 2, .count = {1}},
                         {.function = "k", .pc = 16, .file = src, .line = 9, .count = {1}}};
    gm_srclines sl = {0};
    gm_srclines_from_records(&sl, r, 2);
    gm_srclines_read_text(&sl);
    cr_assert_str_eq(S_line(&sl, 2)->text, " out[i] = in[3*i];");
    cr_assert_null(S_line(&sl, 9)->text, "past the end of the file");
    gm_srclines_clear(&sl);
    gmt_rmrf(dir);
    free(src);
    free(dir);
}

/* A run whose one line carries hostile text. */
static void S_hostile_run(gm_results *res, gm_run **out)
{
    gm_results_init(res);
    gm_experiment *e = gm_results_add_experiment(res);
    e->id = gm_xstrdup("rgb");
    e->title = gm_xstrdup("Interleaved vs planar RGB");
    gm_run *run = gm_results_add_run(res);
    run->experiment = gm_xstrdup("rgb");
    run->variant = gm_xstrdup("interleaved");
    run->kernel = gm_xstrdup("rgb_kernel_interleaved");
    run->check.status = GM_CHECK_PASSED;
    gm_srclines *sl = &run->source_lines;
    sl->present = true;
    sl->status = gm_xstrdup("collected");
    sl->line_info = true;
    sl->seconds = gm_vreal(0.5);
    sl->lines = gm_xcalloc(1, sizeof *sl->lines);
    sl->n_lines = 1;
    gm_srcline *l = &sl->lines[0];
    l->file = gm_xstrdup("/src/exp_rgb.cu");
    l->line = 59;
    l->pc = -1;
    l->function = gm_xstrdup("_Z22rgb_kernel_interleavedPhm");
    l->text = gm_xstrdup("img[3*i] = `rm -rf` | <script>alert('x')</script> *b*");
    l->sass = gm_xstrdup("LDG STG");
    l->count[GM_SL_SECTORS] = 300;
    l->count[GM_SL_SECTORS_IDEAL] = 100;
    *out = run;
}

Test(srclines, rendering_escapes_the_line_text)
{
    gm_results res;
    gm_run *run;
    S_hostile_run(&res, &run);
    const gm_run *runs[1] = {run};
    gm_buf b = GM_BUF_INIT;
    gm_srclines_md_section(&b, runs, 1);
    gmt_assert_has(b.data, "| `exp_rgb.cu:59` |");
    /* code span with a longer fence than the backquotes inside, | escaped */
    gmt_assert_has(b.data, "``img[3*i] = `rm -rf` \\| <script>alert('x')</script> *b*``");
    gmt_assert_has(b.data, "| 300 | 100 | 200 | 66.7% |");
    gm_buf_free(&b);

    /* gnuplot: one single-quoted literal, the quotes doubled, no backquote expansion */
    gm_buf g = GM_BUF_INIT;
    gm_srcline_label_gnuplot(&g, &run->source_lines.lines[0]);
    cr_assert_str_eq(g.data, "'exp_rgb.cu:59: img[3*i] = `rm -rf` | <script>alert(''x'')</script> *b*'");
    gm_buf_free(&g);

    /* HTML: the page never carries the raw tag (the whole report, through cmark) */
    char *dir = gmt_tmpdir("srclines-html");
    char *json = gmt_join(dir, "r.json"), *html = gmt_join(dir, "r.html");
    gm_error err;
    cr_assert_eq(gm_results_write_file(&res, json, &err), GM_OK, "%s", err.message);
    char *argv[] = {(char *)gmt_bin(), "render", json, "--out", html, NULL};
    char *out = NULL, *errs = NULL;
    cr_assert_eq(gmt_run(argv, NULL, &out, &errs), 0, "%s", errs);
    char *page = gmt_text(html);
    gmt_assert_lacks(page, "<script>alert");
    gmt_assert_has(page, "&lt;script&gt;alert");
    free(page);
    free(out);
    free(errs);
    gmt_rmrf(dir);
    free(json);
    free(html);
    free(dir);
    gm_results_free(&res);
}

Test(srclines, results_file_round_trip_and_old_files)
{
    gm_results res;
    gm_run *run;
    S_hostile_run(&res, &run);
    res.collection.source_lines = true;
    res.collection.source_lines_seconds = gm_vreal(12.5);
    res.collection.source_lines_launches = 43;
    char *a = gm_results_to_json(&res);
    gm_results back;
    gm_error err;
    cr_assert_eq(gm_results_read_string(a, "a.json", &back, &err), GM_OK, "%s", err.message);
    char *b = gm_results_to_json(&back);
    cr_assert_str_eq(a, b);
    cr_assert(back.runs[0].source_lines.present);
    cr_assert_eq(back.runs[0].source_lines.lines[0].count[GM_SL_SECTORS], 300);
    cr_assert_eq(back.collection.source_lines_launches, 43);
    cr_assert_eq(back.collection.source_lines_processes, 0);
    gmt_assert_lacks(a, "source_lines_processes");   /* not recorded: not written */
    free(b);
    gm_results_free(&back);
    free(a);

    /* the suite tracer's processes: kept; a count under 1 is refused by name */
    res.collection.source_lines_processes = 4;
    a = gm_results_to_json(&res);
    gmt_assert_has(a, "\"source_lines_processes\": 4");
    cr_assert_eq(gm_results_read_string(a, "a.json", &back, &err), GM_OK, "%s", err.message);
    cr_assert_eq(back.collection.source_lines_processes, 4);
    gm_results_free(&back);
    char *p = strstr(a, "\"source_lines_processes\": 4");
    memcpy(p, "\"source_lines_processes\": 0", strlen("\"source_lines_processes\": 0"));
    cr_assert_neq(gm_results_read_string(a, "a.json", &back, &err), GM_OK);
    gmt_assert_has(err.message, "source_lines_processes");
    gmt_assert_has(err.message, "0 is out of range");
    free(a);
    gm_results_free(&res);

    /* a file from before issue 14 has no source_lines anywhere */
    gm_results old;
    gmt_load_fixture("handwritten-small.json", &old);
    for (size_t i = 0; i < old.n_runs; i++)
        cr_assert_not(old.runs[i].source_lines.present);
    cr_assert_not(old.collection.source_lines);
    char *j = gm_results_to_json(&old);
    gmt_assert_lacks(j, "source_lines");
    free(j);
    gm_results_free(&old);
}

Test(srclines, bad_line_in_results_names_the_path)
{
    gm_results res;
    gm_run *run;
    S_hostile_run(&res, &run);
    char *a = gm_results_to_json(&res);
    char *p = strstr(a, "\"sectors\": 300");
    cr_assert_not_null(p);
    memcpy(p, "\"sectors\": -30", 14);
    gm_results back;
    gm_error err;
    cr_assert_neq(gm_results_read_string(a, "a.json", &back, &err), GM_OK);
    gmt_assert_has(err.message, "runs[0].source_lines.lines[0].sectors");
    free(a);
    gm_results_free(&res);
}

Test(srclines, diff_of_per_line_counts)
{
    gm_sl_record *r;
    size_t n;
    S_load("sass-records-transpose-tiled.txt", &r, &n);
    gm_srclines base = {0}, head = {0};
    gm_srclines_from_records(&base, r, n);
    gm_srclines_from_records(&head, r, n);
    gm_buf b = GM_BUF_INIT;
    cr_assert_eq(gm_srclines_md_diff(&b, &base, &head, 10), 0, "equal runs: no row");
    cr_assert_eq(b.len, 0);
    /* the padded tile: the conflict leaves line 65 */
    for (size_t i = 0; i < head.n_lines; i++)
        if (head.lines[i].line == 65)
            head.lines[i].count[GM_SL_WAVEFRONTS] = 2097152;
    cr_assert_eq(gm_srclines_md_diff(&b, &base, &head, 10), 1);
    gmt_assert_has(b.data, "`exp_transpose.cu:65`");
    gmt_assert_has(b.data, "67,108,864 → 2,097,152");
    gm_buf_free(&b);
    gm_srclines_clear(&base);
    gm_srclines_clear(&head);
    gm_sl_records_free(r, n);
}

Test(srclines, gpumem_report_diff_shows_moved_waste)
{
    gm_results base, head;
    gm_run *rb, *rh;
    S_hostile_run(&base, &rb);
    S_hostile_run(&head, &rh);
    gm_run_set_metric(rb, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", gm_vint(300), "sector");
    gm_run_set_metric(rh, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", gm_vint(350), "sector");
    /* head: the line's waste is gone, a new line wastes instead */
    gm_srclines *sl = &rh->source_lines;
    sl->lines[0].count[GM_SL_SECTORS] = 100;
    sl->lines = gm_xrealloc(sl->lines, 2 * sizeof *sl->lines);
    gm_srcline *l = &sl->lines[sl->n_lines++];
    memset(l, 0, sizeof *l);
    l->file = gm_xstrdup("/src/exp_rgb.cu");
    l->line = 61;
    l->pc = -1;
    l->text = gm_xstrdup("out[i] = tmp;");
    l->count[GM_SL_SECTORS] = 250;
    l->count[GM_SL_SECTORS_IDEAL] = 50;
    char *dir = gmt_tmpdir("srclines-diff");
    char *a = gmt_join(dir, "base.json"), *h = gmt_join(dir, "head.json");
    gm_error err;
    cr_assert_eq(gm_results_write_file(&base, a, &err), GM_OK, "%s", err.message);
    cr_assert_eq(gm_results_write_file(&head, h, &err), GM_OK, "%s", err.message);
    char *argv[] = {(char *)gmt_bin(), "diff", a, h, NULL};
    char *out = NULL, *errs = NULL;
    gmt_run(argv, NULL, &out, &errs);
    gmt_assert_has(out, "### Per source line");
    gmt_assert_has(out, "| `exp_rgb.cu:59` |");
    gmt_assert_has(out, "| 300 → 100 |");
    gmt_assert_has(out, "| `exp_rgb.cu:61` | `out[i] = tmp;` | 0 → 250 |");
    free(out);
    free(errs);

    /* the HTML page, the JSON and the CSV carry the same lines */
    char *html = gmt_join(dir, "d.html"), *js = gmt_join(dir, "d.json"),
         *csv = gmt_join(dir, "d.csv");
    char *argv2[] = {(char *)gmt_bin(), "diff", a, h, "--out", html, "--json", js, NULL};
    gmt_run(argv2, NULL, &out, &errs);
    char *page = gmt_text(html);
    gmt_assert_has(page, "<h3>Per source line</h3>");
    gmt_assert_has(page, "<code>exp_rgb.cu:61</code>");
    gmt_assert_has(page, "0 → 250");
    gmt_assert_lacks(page, "<script>alert");
    free(page);
    free(out);
    free(errs);
    json_t *root = json_load_file(js, 0, NULL);
    cr_assert(root);
    json_t *jsl = json_object_get(root, "source_lines");
    cr_assert(json_is_array(jsl) && json_array_size(jsl) == 1, "one run pair with lines");
    json_t *pair = json_array_get(jsl, 0);
    cr_expect_str_eq(json_string_value(json_object_get(pair, "variant")), "interleaved");
    json_t *lines = json_object_get(pair, "lines");
    cr_assert_eq(json_array_size(lines), 2, "line 59 (300 -> 100) and line 61 (new)");
    json_t *l0 = json_array_get(lines, 0), *l1 = json_array_get(lines, 1);
    /* the larger change first: 61 appeared with 250 + 50, 59 lost 200 */
    cr_expect_str_eq(json_string_value(json_object_get(l0, "where")), "exp_rgb.cu:61");
    cr_expect(json_is_null(json_object_get(l0, "base")), "line 61 is new in head");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(l0, "head"), "sectors")),
                 250);
    cr_expect_str_eq(json_string_value(json_object_get(l1, "where")), "exp_rgb.cu:59");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(l1, "base"), "sectors")),
                 300);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(l1, "head"), "sectors")),
                 100);
    json_decref(root);
    char *argv3[] = {(char *)gmt_bin(), "diff", a, h, "--out", csv, NULL};
    gmt_run(argv3, NULL, &out, &errs);
    char *c = gmt_text(csv);
    cr_expect_eq(strncmp(c, "status,experiment,variant,params,metric,unit,base,head,delta,ratio,"
                            "p,base_check,head_check,note,line\r\n", 90), 0, "%.100s", c);
    gmt_assert_has(c, "changed,rgb,interleaved,,source_line.sectors,sector,0,250,250,,,"
                      "passed,passed,out[i] = tmp;,exp_rgb.cu:61\r\n");
    gmt_assert_has(c, "changed,rgb,interleaved,,source_line.sectors,sector,300,100,-200,");
    gmt_assert_has(c, "source_line.sectors_ideal,sector,0,50,50,");
    free(c);
    free(out);
    free(errs);
    free(html);
    free(js);
    free(csv);
    gmt_rmrf(dir);
    free(a);
    free(h);
    free(dir);
    gm_results_free(&base);
    gm_results_free(&head);
}

/* The H100 run against itself with every line's counts changed (43 kernels
 * with per-line counts): the pull-request Markdown still fits a comment, the
 * per-line section is cut to whole runs and says how many it left out, and
 * --all shows them all. */
Test(srclines, diff_markdown_with_many_changed_lines_fits_a_comment)
{
    char *path = gmt_src("examples/h100/run.json");
    gm_results head;
    gm_error err;
    cr_assert_eq(gm_results_read_file(path, &head, &err), GM_OK, "%s", err.message);
    size_t with_lines = 0;
    for (size_t i = 0; i < head.n_runs; i++) {
        gm_srclines *sl = &head.runs[i].source_lines;
        with_lines += sl->present && sl->n_lines;
        for (size_t k = 0; k < sl->n_lines; k++)
            sl->lines[k].count[GM_SL_SECTORS] += 1000 + (long long)k;
    }
    cr_assert_gt(with_lines, 40);
    char *dir = gmt_tmpdir("srclines-many");
    char *h = gmt_join(dir, "head.json");
    cr_assert_eq(gm_results_write_file(&head, h, &err), GM_OK, "%s", err.message);
    char *argv[] = {(char *)gmt_bin(), "diff", path, h, NULL};
    char *out = NULL, *errs = NULL;
    gmt_run(argv, NULL, &out, &errs);
    cr_expect_lt(strlen(out), 65536, "%zu characters", strlen(out));
    gmt_assert_has(out, "### Per source line");
    gmt_assert_has(out, "more runs with changed lines not shown here");
    free(out);
    free(errs);
    char *argv2[] = {(char *)gmt_bin(), "diff", path, h, "--all", NULL};
    gmt_run(argv2, NULL, &out, &errs);
    gmt_assert_lacks(out, "more runs with changed lines not shown here");
    char want[96];
    snprintf(want, sizeof want, "; %zu of the %zu runs with per-line counts", with_lines,
             with_lines);
    gmt_assert_has(out, want);
    free(out);
    free(errs);
    gmt_rmrf(dir);
    free(h);
    free(dir);
    free(path);
    gm_results_free(&head);
}

/* ---- which runs the per-line pass measures --------------------------------- */

static gm_run *S_pick_run(gm_results *r, const char *variant, long long n, double ld_spr,
                          double sh_wpi, gm_check_status status)
{
    gm_run *run = gm_results_add_run(r);
    run->experiment = gm_xstrdup("transpose");
    run->variant = gm_xstrdup(variant);
    run->kernel = gm_xstrdup("k");
    gm_run_set_param(run, "n", gm_vint(n));
    gm_run_set_metric(run, GM_M_LD_SECTORS, gm_vreal(ld_spr * 1000), "sector");
    gm_run_set_metric(run, GM_M_LD_REQUESTS, gm_vint(1000), "request");
    gm_run_set_metric(run, GM_M_SH_LD_WAVES, gm_vreal(sh_wpi * 500), "");
    gm_run_set_metric(run, GM_M_SH_LD_INST, gm_vint(500), "inst");
    run->check.status = status;
    return run;
}

Test(srclines, pick_one_case_per_variant_stable_under_noise)
{
    gm_results r;
    gm_results_init(&r);
    /* padded: shared wavefronts per instruction 1.00-1.07 by noise: the
     * largest case, whichever size the noise favoured */
    S_pick_run(&r, "padded", 1024, 4, 1.07, GM_CHECK_PASSED);
    S_pick_run(&r, "padded", 2048, 4, 1.00, GM_CHECK_PASSED);
    S_pick_run(&r, "padded", 4096, 4, 1.03, GM_CHECK_PASSED);
    /* naive: one size wastes clearly most: that one */
    S_pick_run(&r, "naive", 1024, 4, 32.0, GM_CHECK_PASSED);
    S_pick_run(&r, "naive", 2048, 4, 4.0, GM_CHECK_PASSED);
    /* constant: 2.5 load sectors per request against 2.0 (6.5 against 6.0
     * with the shared 4.0) is a real difference: the first */
    S_pick_run(&r, "constant", 1024, 2.5, 4.0, GM_CHECK_PASSED);
    S_pick_run(&r, "constant", 2048, 2.0, 4.0, GM_CHECK_PASSED);
    /* tiled: the most wasteful case failed its check, one has no counters */
    S_pick_run(&r, "tiled", 1024, 4, 1.0, GM_CHECK_PASSED);
    S_pick_run(&r, "tiled", 2048, 8, 1.0, GM_CHECK_FAILED);
    gm_run *bare = gm_results_add_run(&r);
    bare->experiment = gm_xstrdup("transpose");
    bare->variant = gm_xstrdup("tiled");
    bare->kernel = gm_xstrdup("k");
    bare->check.status = GM_CHECK_PASSED;
    /* cpu: never profiled */
    gm_run *cpu = gm_results_add_run(&r);
    cpu->experiment = gm_xstrdup("transpose");
    cpu->variant = gm_xstrdup("cpu");
    cpu->check.status = GM_CHECK_PASSED;

    bool pick[16];
    cr_assert_eq(gm_srclines_pick(&r, pick), 4);
    bool want[] = {false, false, true, true, false, true, false, true, false, false, false};
    for (size_t i = 0; i < r.n_runs; i++)
        cr_expect_eq(pick[i], want[i], "run %zu (%s n=%lld)", i, r.runs[i].variant,
                     gm_run_param(&r.runs[i], "n")->value.i);

    /* the same sweep with the noise the other way picks the same case */
    r.runs[0].metrics[2].value = gm_vreal(1.00 * 500);
    r.runs[2].metrics[2].value = gm_vreal(1.06 * 500);
    cr_assert_eq(gm_srclines_pick(&r, pick), 4);
    cr_expect(pick[2] && !pick[0] && !pick[1]);
    gm_results_free(&r);
}

/* A case of grid blocks (one-dimensional) moving `bytes`. */
static gm_run *S_pick_sized(gm_results *r, const char *variant, long long n, double ld_spr,
                            unsigned blocks, long long bytes)
{
    gm_run *run = S_pick_run(r, variant, n, ld_spr, 1.0, GM_CHECK_PASSED);
    run->has_launch = true;
    run->launch.grid[0] = blocks;
    run->launch.grid[1] = run->launch.grid[2] = 1;
    run->launch.block[0] = 256;
    run->launch.block[1] = run->launch.block[2] = 1;
    run->bytes_read = gm_vint(bytes);
    run->bytes_written = gm_vint(bytes);
    return run;
}

Test(srclines, pick_the_smallest_case_that_fills_the_gpu)
{
    gm_results r;
    gm_results_init(&r);
    r.device.sm_count = 100;
    /* naive: equal waste at every size; 150 blocks are under two per SM, so
     * the smallest launch of at least 200 blocks, not the largest */
    S_pick_sized(&r, "naive", 256, 8, 150, 1 << 20);
    S_pick_sized(&r, "naive", 512, 8, 200, 1 << 22);
    S_pick_sized(&r, "naive", 1024, 8, 800, 1 << 24);
    /* tiled: the small case wastes less (a real difference): the large one */
    S_pick_sized(&r, "tiled", 512, 2, 400, 1 << 22);
    S_pick_sized(&r, "tiled", 1024, 4, 800, 1 << 24);
    /* stride: the same bytes at every stride: the last, as without the rule */
    S_pick_sized(&r, "stride", 8, 4, 1000, 1 << 26);
    S_pick_sized(&r, "stride", 32, 4, 1000, 1 << 26);
    /* one block (a chain DP): none fills the GPU: the largest, as before */
    S_pick_sized(&r, "chain", 128, 3, 1, 1 << 10);
    S_pick_sized(&r, "chain", 256, 3, 1, 1 << 12);

    bool pick[16];
    cr_assert_eq(gm_srclines_pick(&r, pick), 4);
    bool want[] = {false, true, false, false, true, false, true, false, true};
    for (size_t i = 0; i < r.n_runs; i++)
        cr_expect_eq(pick[i], want[i], "run %zu (%s n=%lld)", i, r.runs[i].variant,
                     gm_run_param(&r.runs[i], "n")->value.i);

    /* the SM count unknown (an older file): the largest, as before */
    r.device.sm_count = 0;
    cr_assert_eq(gm_srclines_pick(&r, pick), 4);
    cr_expect(pick[2] && !pick[1]);
    gm_results_free(&r);
}

/* A picked run of experiment exp whose counters measured `inst` global load
 * requests (and nothing else a tracer patches). */
static void S_deal_run(gm_results *r, bool *pick, const char *exp, double inst, bool picked)
{
    gm_run *run = gm_results_add_run(r);
    run->experiment = gm_xstrdup(exp);
    run->variant = gm_xstrdup("v");
    if (inst >= 0)
        gm_run_set_metric(run, GM_M_LD_REQUESTS, gm_vint((long long)inst), "request");
    pick[r->n_runs - 1] = picked;
}

Test(srclines, deal_experiments_whole_costliest_first)
{
    gm_results r;
    gm_results_init(&r);
    bool pick[16];
    /* matmul 900 (three picks), dp 600, spmv 500 (and a run not picked), banks 200, rgb
     * with no counters (1 each) */
    S_deal_run(&r, pick, "matmul", 299, true);
    S_deal_run(&r, pick, "matmul", 299, true);
    S_deal_run(&r, pick, "matmul", 299, true);
    S_deal_run(&r, pick, "dp", 599, true);
    S_deal_run(&r, pick, "spmv", 499, true);
    S_deal_run(&r, pick, "spmv", 1e9, false);
    S_deal_run(&r, pick, "banks", 199, true);
    S_deal_run(&r, pick, "rgb", -1, true);
    S_deal_run(&r, pick, "rgb", -1, true);
    size_t child[16];
    for (size_t i = 0; i < 16; i++)
        child[i] = 99;
    /* two processes: matmul 900 | dp 600, spmv to the lighter (dp: 1100), banks to
     * matmul (1100), rgb to the first of equals */
    cr_assert_eq(gm_srclines_deal(&r, pick, 2, child), 2);
    size_t want2[] = {0, 0, 0, 1, 1, 99, 0, 0, 0};
    for (size_t i = 0; i < r.n_runs; i++)
        cr_expect_eq(child[i], want2[i], "run %zu (%s): process %zu, not %zu", i,
                     r.runs[i].experiment, child[i], want2[i]);
    /* more processes than experiments: one each, the rest unused */
    cr_assert_eq(gm_srclines_deal(&r, pick, 8, child), 5);
    size_t want8[] = {0, 0, 0, 1, 2, 99, 3, 4, 4};
    for (size_t i = 0; i < r.n_runs; i++)
        cr_expect_eq(child[i], want8[i], "run %zu (%s): process %zu, not %zu", i,
                     r.runs[i].experiment, child[i], want8[i]);
    /* one process: everything there, in order */
    cr_assert_eq(gm_srclines_deal(&r, pick, 1, child), 1);
    for (size_t i = 0; i < r.n_runs; i++)
        if (pick[i])
            cr_expect_eq(child[i], 0);
    /* nothing picked: no process */
    bool none[16] = {false};
    cr_assert_eq(gm_srclines_deal(&r, none, 4, child), 0);
    gm_results_free(&r);
}

/* ---- where a line is, and which line of one run is which of another ------- */

/* text with every `from` replaced by `to` (caller frees). */
static char *S_replace_all(const char *text, const char *from, const char *to)
{
    gm_buf b = GM_BUF_INIT;
    size_t n = strlen(from);
    for (const char *p = text, *q; *p; p = q + n) {
        q = strstr(p, from);
        if (!q) {
            gm_buf_puts(&b, p);
            break;
        }
        gm_buf_put(&b, p, (size_t)(q - p));
        gm_buf_puts(&b, to);
    }
    return gm_buf_detach(&b);
}

/* The H100 run of 2026-11-25 (tests/fixtures/h100-suite-320eb68.json, once
 * examples/h100/run.json: 43 kernels with per-line counts, collected in
 * /work/main before the kernels moved into folders), its paths under
 * /work/main/ moved to `to` (NULL: as recorded). */
static void S_read_h100(gm_results *r, const char *to)
{
    char *path = gmt_fixture("h100-suite-320eb68.json");
    char *text = gmt_text(path);
    char *moved = to ? S_replace_all(text, "\"/work/main/", to) : gm_xstrdup(text);
    gm_error err;
    cr_assert_eq(gm_results_read_string(moved, path, r, &err), GM_OK, "%s", err.message);
    free(moved);
    free(text);
    free(path);
}

/* The per-line counts of run i of r. */
static gm_srclines *S_sl(gm_results *r, size_t i)
{
    return &r->runs[i].source_lines;
}

static bool S_collected(const gm_results *r, size_t i)
{
    const gm_srclines *sl = &r->runs[i].source_lines;
    return sl->present && sl->status && strcmp(sl->status, "collected") == 0 && sl->n_lines;
}

Test(srclines, labels_are_paths_relative_to_the_source_root)
{
    gm_sl_record r[3] = {
        {.function = "k", .pc = 0, .file = "/src/gm/kernels/transpose/kernels.cu", .line = 69,
         .count = {1}},
        {.function = "k", .pc = 16, .file = "/usr/local/cuda/include/sm_32_intrinsics.hpp",
         .line = 12, .count = {1}},
        {.function = "k", .pc = 32, .file = "/src/gmx/kernels/banks/kernels.cu", .line = 3,
         .count = {1}}};
    gm_srclines sl = {0};
    gm_srclines_from_records(&sl, r, 3);
    gm_srclines_relate(&sl, "/src/gm/");
    cr_assert_str_eq(sl.root, "/src/gm", "kept, without its last slash");
    char where[256];
    const char *want[] = {"kernels/transpose/kernels.cu:69", "sm_32_intrinsics.hpp:12",
                          "kernels.cu:3"};
    const char *files[] = {"kernels/transpose/kernels.cu",
                           "/usr/local/cuda/include/sm_32_intrinsics.hpp",
                           "/src/gmx/kernels/banks/kernels.cu"};
    for (size_t i = 0; i < 3; i++) {
        const gm_srcline *l = S_line(&sl, r[i].line);
        gm_srcline_where(l, where, sizeof where);
        cr_expect_str_eq(where, want[i]);
        cr_expect_str_eq(l->file, files[i], "a file outside the root as recorded");
    }
    /* the results file keeps the root; files without it read as before */
    gm_results res;
    gm_results_init(&res);
    gm_experiment *e = gm_results_add_experiment(&res);
    e->id = gm_xstrdup("transpose");
    e->title = gm_xstrdup("Transpose");
    gm_run *run = gm_results_add_run(&res);
    run->experiment = gm_xstrdup("transpose");
    run->variant = gm_xstrdup("tiled");
    run->source_lines = sl;
    run->source_lines.present = true;
    run->source_lines.status = gm_xstrdup("collected");
    char *json = gm_results_to_json(&res);
    gmt_assert_has(json, "\"root\": \"/src/gm\"");
    gmt_assert_has(json, "\"file\": \"kernels/transpose/kernels.cu\"");
    gm_results back;
    gm_error err;
    cr_assert_eq(gm_results_read_string(json, "r.json", &back, &err), GM_OK, "%s", err.message);
    cr_expect_str_eq(back.runs[0].source_lines.root, "/src/gm");
    free(json);
    gm_results_free(&back);
    gm_results_free(&res);
    /* a root no file lies under is not kept */
    gm_srclines other = {0};
    gm_srclines_from_records(&other, r, 3);
    gm_srclines_relate(&other, "/elsewhere");
    cr_expect_null(other.root);
    cr_expect_str_eq(S_line(&other, 69)->file, "/src/gm/kernels/transpose/kernels.cu");
    gm_srclines_clear(&other);
}

/* Issue 27: one commit collected in two checkouts.  Every line was listed
 * twice ("6,369,536 → 0" and "0 → 6,369,536"): 43 of 43 runs changed while
 * every counter was equal.  Matched by their paths' common tail, by their
 * paths relative to the source roots, or one side each way: no change. */
Test(srclines, one_commit_in_two_checkouts_changes_no_line)
{
    gm_results base, head;
    S_read_h100(&base, NULL);
    S_read_h100(&head, "\"/home/ci/checkout-2/");
    cr_assert_eq(base.n_runs, head.n_runs);
    for (int how = 0; how < 3; how++) {
        size_t runs = 0;
        for (size_t i = 0; i < base.n_runs; i++) {
            if (!S_collected(&base, i))
                continue;
            if (how == 1)
                gm_srclines_relate(S_sl(&head, i), "/home/ci/checkout-2");
            if (how == 2)
                gm_srclines_relate(S_sl(&base, i), "/work/main");
            gm_srcline_change *ch = NULL;
            size_t nc = gm_srclines_changes(S_sl(&base, i), S_sl(&head, i), &ch);
            cr_expect_eq(nc, 0, "%s %s, paths %s: %zu lines changed", base.runs[i].experiment,
                         base.runs[i].variant,
                         how == 0 ? "as recorded" : how == 1 ? "one relative" : "both relative",
                         nc);
            free(ch);
            runs++;
        }
        cr_expect_eq(runs, 43);
    }
    /* relative to their roots, both read the same */
    for (size_t i = 0; i < head.n_runs; i++) {
        if (!S_collected(&head, i) || strcmp(head.runs[i].variant, "padded") != 0 ||
            strcmp(head.runs[i].experiment, "transpose") != 0)
            continue;
        const gm_srcline *l69 = S_line(S_sl(&head, i), 69);
        cr_assert_not_null(l69);
        char where[256];
        gm_srcline_where(l69, where, sizeof where);
        cr_expect_str_eq(where, "kernels/exp_transpose.cu:69");
    }
    gm_results_free(&base);
    gm_results_free(&head);

    /* and as `gpumem-report diff` says it */
    S_read_h100(&head, "\"/home/ci/checkout-2/");
    char *dir = gmt_tmpdir("srclines-checkouts");
    char *h = gmt_join(dir, "head.json"), *a = gmt_fixture("h100-suite-320eb68.json");
    gm_error err;
    cr_assert_eq(gm_results_write_file(&head, h, &err), GM_OK, "%s", err.message);
    char *argv[] = {(char *)gmt_bin(), "diff", a, h, NULL};
    char *out = NULL, *errs = NULL;
    gmt_run(argv, NULL, &out, &errs);
    gmt_assert_has(out, "**Per source line:** the 43 runs with per-line counts on both sides "
                        "count the same on every line.");
    gmt_assert_lacks(out, "### Per source line");
    free(out);
    free(errs);
    gmt_rmrf(dir);
    free(a);
    free(h);
    free(dir);
    gm_results_free(&head);
}

/* Issue 23 moved the suite's kernels from kernels/exp_transpose.cu to
 * kernels/transpose/kernels.cu: a run of before (paths recorded whole) and
 * one of after (relative to the source root, three lines further down)
 * match by the code; a change shows once, with both places. */
Test(srclines, older_paths_match_new_ones_by_their_code)
{
    gm_results base, head;
    S_read_h100(&base, NULL);
    S_read_h100(&head, NULL);
    size_t padded = 0, runs = 0;
    for (size_t i = 0; i < head.n_runs; i++) {
        gm_srclines *sl = S_sl(&head, i);
        if (!S_collected(&head, i) || strcmp(head.runs[i].experiment, "transpose") != 0)
            continue;
        for (size_t k = 0; k < sl->n_lines; k++) {
            gm_srcline *l = &sl->lines[k];
            if (!l->file || !strstr(l->file, "/exp_transpose.cu"))
                continue;
            free(l->file);
            l->file = gm_xstrdup("/src/gm/kernels/transpose/kernels.cu");
            l->line += 3;
        }
        gm_srclines_relate(sl, "/src/gm");
        gm_srcline_change *ch = NULL;
        size_t nc = gm_srclines_changes(S_sl(&base, i), sl, &ch);
        cr_expect_eq(nc, 0, "transpose %s: %zu lines changed", head.runs[i].variant, nc);
        free(ch);
        runs++;
        if (strcmp(head.runs[i].variant, "padded") == 0)
            padded = i;
    }
    cr_assert_eq(runs, 3);
    /* the padded tile's column read wastes more */
    gm_srclines *sl = S_sl(&head, padded);
    for (size_t k = 0; k < sl->n_lines; k++)
        if (sl->lines[k].line == 72)
            sl->lines[k].count[GM_SL_WAVEFRONTS] += 1000;
    gm_buf b = GM_BUF_INIT;
    cr_expect_eq(gm_srclines_md_diff(&b, S_sl(&base, padded), sl, 10), 1);
    gmt_assert_has(b.data, "| `exp_transpose.cu:69` → `kernels/transpose/kernels.cu:72` | "
                           "`out[(size_t)(y + j) * n + x] = tile[tx][ty + j];` |");
    gm_buf_free(&b);
    gm_results_free(&base);
    gm_results_free(&head);
}

static gm_srcline S_ln(const char *file, long long line, const char *text)
{
    return (gm_srcline){.file = (char *)file, .line = line, .pc = -1, .text = (char *)text};
}

/* The three rounds of gm_srclines_match, and how files pair. */
Test(srclines, lines_match_by_place_then_code)
{
    gm_srcline a[] = {
        S_ln("/a/kernels/f.cu", 10, "x = a[i];"), S_ln("/a/kernels/f.cu", 11, "  y = b[i];"),
        S_ln("/a/kernels/f.cu", 12, "}"),         S_ln("/a/kernels/g.cu", 5, "s += a[k];"),
        S_ln("/a/kernels/h.cu", 1, "t = u;"),     S_ln("/a/kernels/h.cu", 3, "t = u;"),
        S_ln("kernels/p/k.cu", 7, NULL),          S_ln("/a/kernels/q.cu", 9, NULL),
        {.function = "_Z1kv", .pc = 0x40},
    };
    gm_srcline b[] = {
        S_ln("/b/c/kernels/f.cu", 10, "// added"), S_ln("/b/c/kernels/f.cu", 11, "x = a[i];"),
        S_ln("/b/c/kernels/f.cu", 12, "y = b[i];   "), S_ln("/b/c/kernels/f.cu", 13, "}"),
        S_ln("/b/c/kernels/g.cu", 5, "s += a[k] * 2;"), S_ln("/b/c/kernels/h.cu", 2, "t = u;"),
        S_ln("/b/c/kernels/h.cu", 4, "t = u;"),   S_ln("kernels/r/k.cu", 7, NULL),
        S_ln("kernels/q.cu", 9, NULL),            {.function = "_Z1kv", .pc = 0x40},
    };
    size_t na = sizeof a / sizeof a[0], nb = sizeof b / sizeof b[0], m[sizeof a / sizeof a[0]];
    gm_srclines_match(a, na, b, nb, m);
    /* moved down a line (round 2, indentation and trailing blanks aside),
     * edited in place (round 3), the same code twice (the nearest each),
     * two files relative to their roots that differ (not the same file), a
     * path recorded whole and one relative to its root (the same file), no
     * line info (function and PC) */
    size_t want[] = {1, 2, 3, 4, 5, 6, GM_SL_NONE, 8, 9};
    for (size_t i = 0; i < na; i++)
        cr_expect_eq(m[i], want[i], "line %zu of a: %zu, not %zu", i, m[i], want[i]);
}

/* Issue 25, model predictions for programs: the tracer's records of the lab
 * on the H100 (tests/fixtures/lab-trace-h100-07d3e04.txt) as predictions,
 * against the counters the same commit measured for the same first launches
 * (lab-h100-07d3e04.json): global sectors, requests and instructions equal;
 * shared wavefronts at most what was measured and within 15 % of it (the
 * excess of blocks out of step on an SM, docs/model.md: up to +12 % seen);
 * rendered, the program's section gets the model's table, the method says
 * where the counts come from, and the shared excess is information, not a
 * warning. */
Test(srclines, a_programs_trace_predicts_its_counters)
{
    char *path = gmt_fixture("lab-trace-h100-07d3e04.txt");
    char *text = gmt_text(path);
    gm_sl_trace t;
    gm_error err = {GM_OK, ""};
    cr_assert_eq(gm_sl_trace_parse(text, path, &t, &err), GM_OK, "%s", err.message);
    gm_results r;
    gmt_load_fixture("lab-h100-07d3e04.json", &r);
    cr_assert_eq(t.n_launches, 5);
    static const char *const exact[] = {GM_M_LD_SECTORS, GM_M_LD_REQUESTS, GM_M_ST_SECTORS,
                                        GM_M_ST_REQUESTS, GM_M_SH_LD_INST, GM_M_SH_ST_INST};
    static const char *const shared[] = {GM_M_SH_LD_WAVES, GM_M_SH_ST_WAVES};
    size_t with_shared = 0;
    for (size_t k = 0; k < t.n_launches; k++) {
        gm_run *run = NULL;
        for (size_t i = 0; i < r.n_runs && !run; i++)
            if (r.runs[i].kernel && strcmp(r.runs[i].kernel, t.launches[k].kernel) == 0)
                run = &r.runs[i];
        cr_assert_not_null(run, "no run of %s", t.launches[k].kernel);
        gm_trace_prediction_clear(&run->prediction);
        gm_sl_trace_predict(&t.launches[k], &run->prediction);
        for (size_t m = 0; m < sizeof exact / sizeof exact[0]; m++)
            cr_expect_eq(gm_run_predicted(run, exact[m]), gm_run_metric_num(run, exact[m]),
                         "%s: %s predicted %g, measured %g", run->kernel, exact[m],
                         gm_run_predicted(run, exact[m]), gm_run_metric_num(run, exact[m]));
        for (size_t m = 0; m < 2; m++) {
            double p = gm_run_predicted(run, shared[m]), v = gm_run_metric_num(run, shared[m]);
            with_shared += p > 0;
            cr_expect(p <= v && v <= 1.15 * p, "%s: %s predicted %g, measured %g", run->kernel,
                      shared[m], p, v);
        }
    }
    cr_expect_geq(with_shared, 3);
    char *dir = gmt_tmpdir("srclines-predict");
    char *json = gmt_join(dir, "lab.json"), *md = gmt_join(dir, "lab.md");
    cr_assert_eq(gm_results_write_file(&r, json, &err), GM_OK, "%s", err.message);
    char *argv[] = {(char *)gmt_bin(), "render", json, "--out", md, NULL};
    char *errs = NULL;
    cr_assert_eq(gmt_run(argv, NULL, NULL, &errs), 0, "%s", errs);
    char *page = gmt_text(md);
    gmt_assert_has(page, "**Address-trace model**");
    gmt_assert_has(page, "are the tracer's counts of that launch: its real addresses");
    gmt_assert_has(page, "| all, on the GPU |");
    gmt_assert_has(page, "- **Info** (model-mismatch): in `lab`, `shared-unpadded`: the counters "
                         "and the tracer's counts of the same launch differ");
    gmt_assert_lacks(page, "**Warning** (model-mismatch)");
    free(page);
    free(errs);
    gmt_rmrf(dir);
    free(json);
    free(md);
    free(dir);
    gm_results_free(&r);
    gm_sl_trace_free(&t);
    free(text);
    free(path);
}

/* A program's run whose kernel the per-line pass counted in another run's
 * launch (layouts.py, H100 f07246d: PyTorch's copy kernel, first launched
 * for the transpose, then for the stride-8 gather) says so in both forms,
 * rather than standing silent beside the other run's lines. */
Test(srclines, a_run_counted_in_another_runs_launch_says_so)
{
    gm_results r;
    gmt_load_fixture("pytorch-h100-f07246d.json", &r);
    const char *want = "`gather-stride8`: not counted per line: the pass counts the first launch "
                       "of each kernel, and this kernel's was `copy-transposed`'s; its lines need "
                       "not be this run's.";
    for (int page = 0; page < 2; page++) {
        gm_report_opts ro = {0};
        char *md = gm_render_markdown(&r, NULL, page ? NULL : "report.charts", &ro);
        gmt_assert_has(md, want);
        free(md);
    }
    gm_results_free(&r);
}
