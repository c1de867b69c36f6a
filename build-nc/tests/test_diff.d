build-nc/tests/test_diff.o: tests/test_diff.c tests/../core/catalog.h \
 tests/../reports/diff.h tests/../reports/../core/buf.h \
 tests/../reports/../core/catalog.h tests/../reports/../core/gm_error.h \
 tests/../reports/../core/results.h tests/../reports/../core/gm_error.h \
 tests/../core/results.h tests/helpers.h
tests/../core/catalog.h:
tests/../reports/diff.h:
tests/../reports/../core/buf.h:
tests/../reports/../core/catalog.h:
tests/../reports/../core/gm_error.h:
tests/../reports/../core/results.h:
tests/../reports/../core/gm_error.h:
tests/../core/results.h:
tests/helpers.h:
