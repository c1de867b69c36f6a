build-nc/reports/render_html.o: reports/render_html.c reports/render.h \
 reports/charts.h reports/../core/buf.h reports/../core/fmt.h \
 reports/../core/buf.h reports/../core/results.h \
 reports/../core/gm_error.h reports/../core/gm_error.h \
 reports/../core/results.h reports/runs.h reports/diff.h \
 reports/../core/catalog.h reports/../core/escape.h \
 reports/../core/output.h
reports/render.h:
reports/charts.h:
reports/../core/buf.h:
reports/../core/fmt.h:
reports/../core/buf.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/../core/gm_error.h:
reports/../core/results.h:
reports/runs.h:
reports/diff.h:
reports/../core/catalog.h:
reports/../core/escape.h:
reports/../core/output.h:
