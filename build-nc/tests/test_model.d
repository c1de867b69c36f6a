build-nc/tests/test_model.o: tests/test_model.c tests/../core/catalog.h \
 tests/../core/model.h tests/../core/gm_error.h tests/../core/results.h \
 tests/../core/results.h
tests/../core/catalog.h:
tests/../core/model.h:
tests/../core/gm_error.h:
tests/../core/results.h:
tests/../core/results.h:
