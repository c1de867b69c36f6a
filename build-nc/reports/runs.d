build-nc/reports/runs.o: reports/runs.c reports/runs.h \
 reports/../core/buf.h reports/../core/fmt.h reports/../core/buf.h \
 reports/../core/results.h reports/../core/gm_error.h \
 reports/../core/results.h reports/../core/catalog.h \
 reports/../core/escape.h
reports/runs.h:
reports/../core/buf.h:
reports/../core/fmt.h:
reports/../core/buf.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/../core/results.h:
reports/../core/catalog.h:
reports/../core/escape.h:
