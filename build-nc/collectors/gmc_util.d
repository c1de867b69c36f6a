build-nc/collectors/gmc_util.o: collectors/gmc_util.c \
 collectors/gmc_internal.h collectors/gm_collector.h
collectors/gmc_internal.h:
collectors/gm_collector.h:
