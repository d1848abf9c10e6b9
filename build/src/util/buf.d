build/src/util/buf.o: src/util/buf.c src/util/buf.h src/util/error.h
src/util/buf.h:
src/util/error.h:
