build-nc/kernels/matmul.o: kernels/matmul.c kernels/matmul.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/../core/buf.h
kernels/matmul.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/../core/buf.h:
