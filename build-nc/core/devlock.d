build-nc/core/devlock.o: core/devlock.c core/devlock.h core/gm_error.h \
 core/buf.h
core/devlock.h:
core/gm_error.h:
core/buf.h:
