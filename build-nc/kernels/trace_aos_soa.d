build-nc/kernels/trace_aos_soa.o: kernels/trace_aos_soa.c \
 kernels/aos_soa.h kernels/suite.h kernels/../core/gm_error.h \
 kernels/../core/results.h kernels/../core/gm_error.h kernels/trace.h \
 kernels/../core/model.h kernels/../core/results.h
kernels/aos_soa.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
