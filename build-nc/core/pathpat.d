build-nc/core/pathpat.o: core/pathpat.c core/pathpat.h core/gm_error.h \
 core/results.h core/buf.h
core/pathpat.h:
core/gm_error.h:
core/results.h:
core/buf.h:
