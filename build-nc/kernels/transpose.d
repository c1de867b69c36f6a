build-nc/kernels/transpose.o: kernels/transpose.c kernels/transpose.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/../core/buf.h
kernels/transpose.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/../core/buf.h:
