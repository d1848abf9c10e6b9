build/src/util/log.o: src/util/log.c src/util/log.h src/util/error.h
src/util/log.h:
src/util/error.h:
