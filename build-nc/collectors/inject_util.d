build-nc/collectors/inject_util.o: collectors/inject_util.c \
 collectors/inject.h collectors/../core/results.h \
 collectors/../core/gm_error.h collectors/../core/buf.h \
 collectors/../core/catalog.h
collectors/inject.h:
collectors/../core/results.h:
collectors/../core/gm_error.h:
collectors/../core/buf.h:
collectors/../core/catalog.h:
