build-nc/core/results.o: core/results.c core/results.h core/gm_error.h \
 core/buf.h core/stats.h
core/results.h:
core/gm_error.h:
core/buf.h:
core/stats.h:
