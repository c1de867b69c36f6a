/* render_md.c — the report as GitHub-flavoured Markdown: a pure function of the
 * results (and the chart plan).  The HTML page is this text through cmark-gfm.
 *
 * Every string from the results goes through gm_esc_md (text) or
 * gm_esc_md_code (names), so it can neither open raw HTML nor split a table
 * cell; numbers are formatted here (core/fmt.h), with their units; an absent
 * value is "—".
 *
 * This file is the order of the document; each part is written in a file of
 * its own (md_int.h lists them) over the shared helpers of md_util.c.
 */
#include "render.h"

#include "claims.h"
#include "md_int.h"
#include "sources.h"

/* ---- changes since a baseline ------------------------------------------------ */

static void S_changes(gm_buf *b, const gm_report_opts *ro)
{
    gm_diff_render dr = {.base_name = ro->baseline_name, .head_name = ro->results_name,
                         .only_changed = true, .in_report = true};
    gm_diff_md_section(b, ro->changes, &dr);
}

/* ---- the document ---------------------------------------------------------- */

char *gm_render_markdown(const gm_results *r, const gm_charts *charts, const char *chart_dir,
                         const gm_report_opts *ro)
{
    gm_report_opts none = {0};
    if (!ro)
        ro = &none;
    gm_sections ss;
    gm_sections_build(r, &ss);
    gm_findings f;
    gm_findings_build(r, &f);
    gm_buf b = GM_BUF_INIT;
    md_header(&b, r, ro->timestamp);
    md_top_warnings(&b, &ss);
    bool html = !chart_dir && !ro->github;
    md_summary(&b, r, &ss);
    bool suite = false;
    for (size_t i = 0; i < ss.n; i++)
        suite |= ss.v[i].listed && !gm_section_is_program(&ss.v[i]);
    if (suite)
        gm_claims_md(&b, r, &ss, NULL);
    md_findings(&b, &f, &ss, html);
    if (ro->changes)
        S_changes(&b, ro);
    for (size_t i = 0; i < ss.n; i++)
        md_section(&b, r, &ss, i, charts, chart_dir, &f, ro->github);
    md_method(&b, r, &ss, ro->timestamp, html);
    /* the documents the claims and the experiments cite, when any does */
    bool cited = suite && gm_claims_present(&ss);
    for (size_t i = 0; i < ss.n && suite && !cited; i++)
        cited = ss.v[i].exp && gm_sources_cited(ss.v[i].exp->source);
    if (cited)
        gm_sources_md(&b);
    gm_findings_free(&f);
    gm_sections_free(&ss);
    /* one trailing newline */
    while (b.len && b.data[b.len - 1] == '\n')
        b.data[--b.len] = '\0';
    gm_buf_puts(&b, "\n");
    char *md = md_with_contents(gm_buf_detach(&b));
    return ro->github ? md_gfm_parts(md) : md;
}
