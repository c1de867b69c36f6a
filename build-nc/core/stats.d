build-nc/core/stats.o: core/stats.c core/stats.h core/buf.h
core/stats.h:
core/buf.h:
