build-nc/reports/ranks.o: reports/ranks.c reports/ranks.h \
 reports/../core/buf.h reports/../core/results.h \
 reports/../core/gm_error.h reports/charts.h reports/../core/fmt.h \
 reports/../core/buf.h reports/../core/results.h \
 reports/../core/gm_error.h reports/runs.h reports/../core/escape.h
reports/ranks.h:
reports/../core/buf.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/charts.h:
reports/../core/fmt.h:
reports/../core/buf.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/runs.h:
reports/../core/escape.h:
