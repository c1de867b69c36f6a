build-nc/reports/render_md.o: reports/render_md.c reports/render.h \
 reports/charts.h reports/../core/buf.h reports/../core/fmt.h \
 reports/../core/buf.h reports/../core/results.h \
 reports/../core/gm_error.h reports/../core/gm_error.h \
 reports/../core/results.h reports/runs.h reports/diff.h \
 reports/../core/catalog.h reports/../core/escape.h reports/findings.h \
 reports/ranks.h
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
reports/findings.h:
reports/ranks.h:
