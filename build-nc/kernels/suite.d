build-nc/kernels/suite.o: kernels/suite.c kernels/suite.h \
 kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/coalescing.h kernels/alignment.h \
 kernels/aos_soa.h kernels/rgb.h kernels/traversal2d.h kernels/grid3d.h \
 kernels/matvec.h kernels/matmul.h kernels/transpose.h kernels/banks.h \
 kernels/spmv.h kernels/conv.h kernels/texture.h kernels/dp.h
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/coalescing.h:
kernels/alignment.h:
kernels/aos_soa.h:
kernels/rgb.h:
kernels/traversal2d.h:
kernels/grid3d.h:
kernels/matvec.h:
kernels/matmul.h:
kernels/transpose.h:
kernels/banks.h:
kernels/spmv.h:
kernels/conv.h:
kernels/texture.h:
kernels/dp.h:
