build-nc/reports/findings.o: reports/findings.c reports/findings.h \
 reports/../core/buf.h reports/runs.h reports/../core/fmt.h \
 reports/../core/buf.h reports/../core/results.h \
 reports/../core/gm_error.h reports/../core/results.h \
 reports/../core/gm_error.h reports/../core/catalog.h \
 reports/../core/escape.h
reports/findings.h:
reports/../core/buf.h:
reports/runs.h:
reports/../core/fmt.h:
reports/../core/buf.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/../core/catalog.h:
reports/../core/escape.h:
