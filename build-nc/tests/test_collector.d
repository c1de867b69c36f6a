build-nc/tests/test_collector.o: tests/test_collector.c
