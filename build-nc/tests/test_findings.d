build-nc/tests/test_findings.o: tests/test_findings.c \
 tests/../reports/findings.h tests/../reports/../core/buf.h \
 tests/../reports/runs.h tests/../reports/../core/fmt.h \
 tests/../reports/../core/buf.h tests/../reports/../core/results.h \
 tests/../reports/../core/gm_error.h tests/../reports/../core/results.h \
 tests/../reports/../core/gm_error.h tests/../core/buf.h \
 tests/../core/catalog.h tests/../core/model.h tests/../core/gm_error.h \
 tests/../core/results.h tests/../core/results.h tests/helpers.h
tests/../reports/findings.h:
tests/../reports/../core/buf.h:
tests/../reports/runs.h:
tests/../reports/../core/fmt.h:
tests/../reports/../core/buf.h:
tests/../reports/../core/results.h:
tests/../reports/../core/gm_error.h:
tests/../reports/../core/results.h:
tests/../reports/../core/gm_error.h:
tests/../core/buf.h:
tests/../core/catalog.h:
tests/../core/model.h:
tests/../core/gm_error.h:
tests/../core/results.h:
tests/../core/results.h:
tests/helpers.h:
