build-nc/kernels/trace_alignment.o: kernels/trace_alignment.c \
 kernels/alignment.h kernels/suite.h kernels/../core/gm_error.h \
 kernels/../core/results.h kernels/../core/gm_error.h kernels/trace.h \
 kernels/../core/model.h kernels/../core/results.h
kernels/alignment.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
