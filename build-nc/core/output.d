build-nc/core/output.o: core/output.c core/output.h core/gm_error.h \
 core/buf.h
core/output.h:
core/gm_error.h:
core/buf.h:
