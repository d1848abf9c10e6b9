/* The fetch's sync thread (fetch/syncer.h): batches written in order, the
 * caller's descriptors left alone, failures reported once, nothing appended
 * once a WARC file's fsync failed. */
#include "test.h"
#include "fetch/syncer.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

static char dir[] = "/tmp/mpicrawl-test-syncer.XXXXXX";

static int open_in(const char *name, int flags)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CREAT | O_CLOEXEC, 0644);
}

static size_t file_text(const char *name, char *out, size_t cap)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		return 0;
	n = fread(out, 1, cap - 1, f);
	out[n] = '\0';
	fclose(f);
	return n;
}

int main(void)
{
	struct syncer *s = NULL;
	struct buf b;
	char text[64];
	int warc, jn, ro, i;

	if (!mkdtemp(dir))
		return 1;
	CHECK(syncer_start(&s) == CR_OK && s, "start");
	warc = open_in("a.warc", O_WRONLY);
	jn = open_in("a.journal", O_WRONLY | O_APPEND);
	CHECK(!syncer_pending(s) && !syncer_busy(s), "nothing yet");
	syncer_submit(s);   /* empty: nothing */
	CHECK(syncer_wait(s) == CR_OK, "an empty batch");

	/* Three batches, one at a time: the journal grows in order. */
	for (i = 0; i < 3; i++) {
		buf_init(&b);
		buf_addc(&b, (char)('x' + i));
		CHECK(write(warc, "w", 1) == 1, "warc write");
		CHECK(syncer_add_fsync(s, warc, "a.warc") == CR_OK, "add fsync %d", i);
		CHECK(syncer_add_append(s, jn, "a.journal", &b) == CR_OK, "add append %d", i);
		CHECK(b.len == 0 && b.p == NULL, "bytes moved out %d", i);
		CHECK(syncer_pending(s), "pending %d", i);
		syncer_submit(s);
		CHECK(!syncer_pending(s), "handed over %d", i);
		CHECK(syncer_wait(s) == CR_OK && !syncer_busy(s), "batch %d", i);
	}
	CHECK(file_text("a.journal", text, sizeof(text)) == 3 && !strcmp(text, "xyz"),
	      "journal '%s'", text);
	/* The caller's descriptors are its own still. */
	CHECK(write(warc, "w", 1) == 1 && fcntl(jn, F_GETFD) >= 0, "descriptors kept");

	/* A journal that cannot be written: reported once, then clean. */
	ro = open_in("b.journal", O_RDONLY);
	buf_init(&b);
	buf_adds(&b, "entry");
	CHECK(syncer_add_append(s, ro, "b.journal", &b) == CR_OK, "add to read-only");
	syncer_submit(s);
	CHECK(syncer_wait(s) == CR_ERR_IO, "write failure reported");
	CHECK(syncer_wait(s) == CR_OK, "reported once");

	/* A WARC file whose fsync fails (a pipe cannot be): its journal
	 * entries are not appended - they would name bytes not on disk. */
	{
		int pfd[2];

		CHECK(pipe(pfd) == 0, "pipe");
		buf_init(&b);
		buf_adds(&b, "named");
		CHECK(syncer_add_append(s, jn, "a.journal", &b) == CR_OK &&
		      syncer_add_fsync(s, pfd[1], "pipe") == CR_OK, "add after a pipe");
		syncer_submit(s);
		CHECK(syncer_wait(s) == CR_ERR_IO, "fsync failure reported");
		CHECK(file_text("a.journal", text, sizeof(text)) == 3, "not appended: '%s'", text);
		close(pfd[0]);
		close(pfd[1]);
	}

	/* A descriptor that is not one: refused when added. */
	CHECK(syncer_add_fsync(s, 1000000, "nothing") == CR_ERR_IO, "bad descriptor");

	/* Left pending at stop: released, nothing written. */
	buf_init(&b);
	buf_adds(&b, "late");
	CHECK(syncer_add_append(s, jn, "a.journal", &b) == CR_OK, "add late");
	syncer_stop(&s);
	CHECK(s == NULL, "stopped");
	CHECK(file_text("a.journal", text, sizeof(text)) == 3, "nothing after stop");
	syncer_stop(&s);   /* NULL: nothing */

	close(warc);
	close(jn);
	close(ro);
	CHECK(fs_remove_tree(dir) == CR_OK, "clean up");
	TEST_DONE();
}
