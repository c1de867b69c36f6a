build-nc/core/escape.o: core/escape.c core/escape.h core/buf.h
core/escape.h:
core/buf.h:
