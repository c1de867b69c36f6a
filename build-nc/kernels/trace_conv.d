build-nc/kernels/trace_conv.o: kernels/trace_conv.c kernels/conv.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/trace.h kernels/../core/model.h \
 kernels/../core/results.h
kernels/conv.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
