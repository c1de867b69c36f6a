build-nc/kernels/coalescing.o: kernels/coalescing.c kernels/coalescing.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/../core/buf.h
kernels/coalescing.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/../core/buf.h:
