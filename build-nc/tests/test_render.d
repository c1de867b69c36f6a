build-nc/tests/test_render.o: tests/test_render.c tests/../core/catalog.h \
 tests/../reports/charts.h tests/../reports/../core/buf.h \
 tests/../reports/../core/fmt.h tests/../reports/../core/buf.h \
 tests/../reports/../core/results.h tests/../reports/../core/gm_error.h \
 tests/../reports/../core/gm_error.h tests/../reports/../core/results.h \
 tests/../reports/runs.h tests/../core/escape.h tests/../core/buf.h \
 tests/../core/model.h tests/../core/gm_error.h tests/../core/results.h \
 tests/../reports/render.h tests/../reports/charts.h \
 tests/../reports/diff.h tests/../reports/../core/catalog.h \
 tests/../core/results.h tests/helpers.h
tests/../core/catalog.h:
tests/../reports/charts.h:
tests/../reports/../core/buf.h:
tests/../reports/../core/fmt.h:
tests/../reports/../core/buf.h:
tests/../reports/../core/results.h:
tests/../reports/../core/gm_error.h:
tests/../reports/../core/gm_error.h:
tests/../reports/../core/results.h:
tests/../reports/runs.h:
tests/../core/escape.h:
tests/../core/buf.h:
tests/../core/model.h:
tests/../core/gm_error.h:
tests/../core/results.h:
tests/../reports/render.h:
tests/../reports/charts.h:
tests/../reports/diff.h:
tests/../reports/../core/catalog.h:
tests/../core/results.h:
tests/helpers.h:
