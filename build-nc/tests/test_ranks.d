build-nc/tests/test_ranks.o: tests/test_ranks.c tests/helpers.h \
 tests/../core/results.h tests/../core/gm_error.h tests/../core/buf.h \
 tests/../core/devlock.h tests/../core/pathpat.h tests/../core/results.h \
 tests/../reports/merge.h tests/../reports/../core/gm_error.h \
 tests/../reports/../core/results.h tests/../reports/render.h \
 tests/../reports/charts.h tests/../reports/../core/buf.h \
 tests/../reports/../core/fmt.h tests/../reports/../core/buf.h \
 tests/../reports/../core/results.h tests/../reports/runs.h \
 tests/../reports/diff.h tests/../reports/../core/catalog.h
tests/helpers.h:
tests/../core/results.h:
tests/../core/gm_error.h:
tests/../core/buf.h:
tests/../core/devlock.h:
tests/../core/pathpat.h:
tests/../core/results.h:
tests/../reports/merge.h:
tests/../reports/../core/gm_error.h:
tests/../reports/../core/results.h:
tests/../reports/render.h:
tests/../reports/charts.h:
tests/../reports/../core/buf.h:
tests/../reports/../core/fmt.h:
tests/../reports/../core/buf.h:
tests/../reports/../core/results.h:
tests/../reports/runs.h:
tests/../reports/diff.h:
tests/../reports/../core/catalog.h:
