build-nc/core/gm_error.o: core/gm_error.c core/gm_error.h
core/gm_error.h:
