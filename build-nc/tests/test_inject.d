build-nc/tests/test_inject.o: tests/test_inject.c \
 tests/../collectors/inject.h tests/../collectors/../core/results.h \
 tests/../collectors/../core/gm_error.h tests/../core/buf.h \
 tests/../core/catalog.h tests/../core/results.h tests/helpers.h
tests/../collectors/inject.h:
tests/../collectors/../core/results.h:
tests/../collectors/../core/gm_error.h:
tests/../core/buf.h:
tests/../core/catalog.h:
tests/../core/results.h:
tests/helpers.h:
