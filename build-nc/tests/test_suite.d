build-nc/tests/test_suite.o: tests/test_suite.c tests/../kernels/runner.h \
 tests/../kernels/suite.h tests/../kernels/../core/gm_error.h \
 tests/../kernels/../core/results.h tests/../kernels/../core/gm_error.h
tests/../kernels/runner.h:
tests/../kernels/suite.h:
tests/../kernels/../core/gm_error.h:
tests/../kernels/../core/results.h:
tests/../kernels/../core/gm_error.h:
