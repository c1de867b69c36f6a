build-nc/kernels/trace_dp.o: kernels/trace_dp.c kernels/dp.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/trace.h kernels/../core/model.h \
 kernels/../core/results.h
kernels/dp.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
