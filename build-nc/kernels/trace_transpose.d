build-nc/kernels/trace_transpose.o: kernels/trace_transpose.c \
 kernels/transpose.h kernels/suite.h kernels/../core/gm_error.h \
 kernels/../core/results.h kernels/../core/gm_error.h kernels/trace.h \
 kernels/../core/model.h kernels/../core/results.h
kernels/transpose.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
