build-nc/reports/diff.o: reports/diff.c reports/diff.h \
 reports/../core/buf.h reports/../core/catalog.h \
 reports/../core/gm_error.h reports/../core/results.h \
 reports/../core/gm_error.h
reports/diff.h:
reports/../core/buf.h:
reports/../core/catalog.h:
reports/../core/gm_error.h:
reports/../core/results.h:
reports/../core/gm_error.h:
