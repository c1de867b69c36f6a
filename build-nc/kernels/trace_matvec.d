build-nc/kernels/trace_matvec.o: kernels/trace_matvec.c kernels/matvec.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/trace.h kernels/../core/model.h \
 kernels/../core/results.h
kernels/matvec.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
