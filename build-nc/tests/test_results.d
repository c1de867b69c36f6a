build-nc/tests/test_results.o: tests/test_results.c \
 tests/../core/results.h tests/../core/gm_error.h tests/../core/buf.h \
 tests/helpers.h
tests/../core/results.h:
tests/../core/gm_error.h:
tests/../core/buf.h:
tests/helpers.h:
