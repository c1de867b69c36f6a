build-nc/tests/test_collector.o: tests/test_collector.c \
 tests/../collectors/gmc_internal.h tests/../collectors/gm_collector.h
tests/../collectors/gmc_internal.h:
tests/../collectors/gm_collector.h:
