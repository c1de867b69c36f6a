build-nc/kernels/trace_coalescing.o: kernels/trace_coalescing.c \
 kernels/coalescing.h kernels/suite.h kernels/../core/gm_error.h \
 kernels/../core/results.h kernels/../core/gm_error.h kernels/trace.h \
 kernels/../core/model.h kernels/../core/results.h
kernels/coalescing.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
