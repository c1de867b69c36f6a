build-nc/core/catalog.o: core/catalog.c core/catalog.h
core/catalog.h:
