build-nc/core/model.o: core/model.c core/model.h core/gm_error.h \
 core/results.h core/buf.h core/catalog.h
core/model.h:
core/gm_error.h:
core/results.h:
core/buf.h:
core/catalog.h:
