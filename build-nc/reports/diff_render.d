build-nc/reports/diff_render.o: reports/diff_render.c reports/diff.h \
 reports/../core/buf.h reports/../core/catalog.h \
 reports/../core/gm_error.h reports/../core/results.h \
 reports/../core/gm_error.h reports/../core/escape.h \
 reports/../core/buf.h reports/../core/output.h
reports/diff.h:
reports/../core/buf.h:
reports/../core/catalog.h:
reports/../core/gm_error.h:
reports/../core/results.h:
reports/../core/gm_error.h:
reports/../core/escape.h:
reports/../core/buf.h:
reports/../core/output.h:
