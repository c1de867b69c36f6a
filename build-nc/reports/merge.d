build-nc/reports/merge.o: reports/merge.c reports/merge.h \
 reports/../core/gm_error.h reports/../core/results.h \
 reports/../core/gm_error.h reports/charts.h reports/../core/buf.h \
 reports/../core/fmt.h reports/../core/buf.h reports/../core/results.h \
 reports/runs.h reports/diff.h reports/../core/catalog.h
reports/merge.h:
reports/../core/gm_error.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/charts.h:
reports/../core/buf.h:
reports/../core/fmt.h:
reports/../core/buf.h:
reports/../core/results.h:
reports/runs.h:
reports/diff.h:
reports/../core/catalog.h:
