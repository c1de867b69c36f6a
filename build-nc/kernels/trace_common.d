build-nc/kernels/trace_common.o: kernels/trace_common.c kernels/trace.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/../core/model.h \
 kernels/../core/results.h kernels/../core/buf.h
kernels/trace.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/../core/model.h:
kernels/../core/results.h:
kernels/../core/buf.h:
