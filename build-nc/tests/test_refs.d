build-nc/tests/test_refs.o: tests/test_refs.c \
 tests/../kernels/coalescing.h tests/../kernels/suite.h \
 tests/../kernels/../core/gm_error.h tests/../kernels/../core/results.h \
 tests/../kernels/../core/gm_error.h tests/../kernels/alignment.h \
 tests/../kernels/aos_soa.h tests/../kernels/rgb.h \
 tests/../kernels/traversal2d.h tests/../kernels/grid3d.h \
 tests/../kernels/matvec.h tests/../kernels/matmul.h \
 tests/../kernels/transpose.h tests/../kernels/banks.h \
 tests/../kernels/spmv.h tests/../kernels/conv.h \
 tests/../kernels/texture.h tests/../kernels/dp.h
tests/../kernels/coalescing.h:
tests/../kernels/suite.h:
tests/../kernels/../core/gm_error.h:
tests/../kernels/../core/results.h:
tests/../kernels/../core/gm_error.h:
tests/../kernels/alignment.h:
tests/../kernels/aos_soa.h:
tests/../kernels/rgb.h:
tests/../kernels/traversal2d.h:
tests/../kernels/grid3d.h:
tests/../kernels/matvec.h:
tests/../kernels/matmul.h:
tests/../kernels/transpose.h:
tests/../kernels/banks.h:
tests/../kernels/spmv.h:
tests/../kernels/conv.h:
tests/../kernels/texture.h:
tests/../kernels/dp.h:
