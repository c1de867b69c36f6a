build-nc/core/fmt.o: core/fmt.c core/fmt.h core/buf.h core/results.h \
 core/gm_error.h
core/fmt.h:
core/buf.h:
core/results.h:
core/gm_error.h:
