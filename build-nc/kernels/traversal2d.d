build-nc/kernels/traversal2d.o: kernels/traversal2d.c \
 kernels/traversal2d.h kernels/suite.h kernels/../core/gm_error.h \
 kernels/../core/results.h kernels/../core/gm_error.h \
 kernels/../core/buf.h
kernels/traversal2d.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/../core/buf.h:
