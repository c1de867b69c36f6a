build-nc/kernels/trace_banks.o: kernels/trace_banks.c kernels/banks.h \
 kernels/suite.h kernels/../core/gm_error.h kernels/../core/results.h \
 kernels/../core/gm_error.h kernels/trace.h kernels/../core/model.h \
 kernels/../core/results.h
kernels/banks.h:
kernels/suite.h:
kernels/../core/gm_error.h:
kernels/../core/results.h:
kernels/../core/gm_error.h:
kernels/trace.h:
kernels/../core/model.h:
kernels/../core/results.h:
