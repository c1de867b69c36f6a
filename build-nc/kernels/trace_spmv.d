build-nc/kernels/trace_spmv.o: kernels/trace_spmv.c kernels/spmv.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/trace.h kernels/../core/model.h \
 kernels/../core/results.h kernels/../core/buf.h
kernels/spmv.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
kernels/../core/buf.h:
