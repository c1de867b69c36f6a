build-nc/kernels/texture.o: kernels/texture.c kernels/texture.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/../core/buf.h
kernels/texture.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/../core/buf.h:
