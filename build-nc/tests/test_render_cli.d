build-nc/tests/test_render_cli.o: tests/test_render_cli.c \
 tests/../core/buf.h tests/../core/results.h tests/../core/gm_error.h \
 tests/helpers.h
tests/../core/buf.h:
tests/../core/results.h:
tests/../core/gm_error.h:
tests/helpers.h:
