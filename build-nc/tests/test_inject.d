build-nc/tests/test_inject.o: tests/test_inject.c
