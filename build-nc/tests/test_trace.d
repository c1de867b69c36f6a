build-nc/tests/test_trace.o: tests/test_trace.c tests/../kernels/trace.h \
 tests/../kernels/suite.h tests/../kernels/../core/gm_error.h \
 tests/../kernels/../core/results.h tests/../kernels/../core/gm_error.h \
 tests/../kernels/../core/model.h tests/../kernels/../core/results.h \
 tests/../kernels/spmv.h tests/../core/catalog.h
tests/../kernels/trace.h:
tests/../kernels/suite.h:
tests/../kernels/../core/gm_error.h:
tests/../kernels/../core/results.h:
tests/../kernels/../core/gm_error.h:
tests/../kernels/../core/model.h:
tests/../kernels/../core/results.h:
tests/../kernels/spmv.h:
tests/../core/catalog.h:
