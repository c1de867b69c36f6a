build-nc/kernels/trace_traversal2d.o: kernels/trace_traversal2d.c \
 kernels/traversal2d.h kernels/suite.h kernels/../core/gm_error.h \
 kernels/../core/results.h kernels/../core/gm_error.h kernels/trace.h \
 kernels/../core/model.h kernels/../core/results.h
kernels/traversal2d.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
