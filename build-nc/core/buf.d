build-nc/core/buf.o: core/buf.c core/buf.h
core/buf.h:
