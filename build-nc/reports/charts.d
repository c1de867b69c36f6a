build-nc/reports/charts.o: reports/charts.c reports/charts.h \
 reports/../core/buf.h reports/../core/fmt.h reports/../core/buf.h \
 reports/../core/results.h reports/../core/gm_error.h \
 reports/../core/gm_error.h reports/../core/results.h reports/runs.h \
 reports/../core/catalog.h reports/../core/escape.h \
 reports/../core/output.h
reports/charts.h:
reports/../core/buf.h:
reports/../core/fmt.h:
reports/../core/buf.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/../core/gm_error.h:
reports/../core/results.h:
reports/runs.h:
reports/../core/catalog.h:
reports/../core/escape.h:
reports/../core/output.h:
