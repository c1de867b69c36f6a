build-nc/tests/test_helpers.o: tests/test_helpers.c tests/helpers.h \
 tests/../core/results.h tests/../core/gm_error.h tests/../core/buf.h
tests/helpers.h:
tests/../core/results.h:
tests/../core/gm_error.h:
tests/../core/buf.h:
