build-nc/tests/test_examples.o: tests/test_examples.c \
 tests/../core/escape.h tests/../core/buf.h tests/../core/results.h \
 tests/../core/gm_error.h tests/helpers.h
tests/../core/escape.h:
tests/../core/buf.h:
tests/../core/results.h:
tests/../core/gm_error.h:
tests/helpers.h:
