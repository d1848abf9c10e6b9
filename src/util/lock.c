#include "util/lock.h"
#include "util/clock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* Parses "key=value" lines; missing keys stay empty. */
void lock_holder_parse(const char *text, struct lock_holder *h)
{
	const char *p = text;

	memset(h, 0, sizeof(*h));
	while (p && *p) {
		size_t n = strcspn(p, "\n");
		const char *eq = memchr(p, '=', n);

		if (eq) {
			size_t kl = (size_t)(eq - p), vl = n - kl - 1;
			char *dst = NULL;
			size_t cap = 0;

			if (kl == 4 && !strncmp(p, "host", 4)) {
				dst = h->host;
				cap = sizeof(h->host);
			} else if (kl == 3 && !strncmp(p, "job", 3)) {
				dst = h->job;
				cap = sizeof(h->job);
			} else if (kl == 7 && !strncmp(p, "started", 7)) {
				dst = h->started;
				cap = sizeof(h->started);
			} else if (kl == 3 && !strncmp(p, "pid", 3)) {
				h->pid = strtol(eq + 1, NULL, 10);
			}
			if (dst) {
				if (vl >= cap)
					vl = cap - 1;
				memcpy(dst, eq + 1, vl);
				dst[vl] = '\0';
			}
		}
		p += n;
		if (*p)
			p++;
	}
}

static void holder_read(int fd, struct lock_holder *h)
{
	char text[1024];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	text[n > 0 ? n : 0] = '\0';
	lock_holder_parse(text, h);
}

void lock_holder_str(const struct lock_holder *h, char *out, size_t cap)
{
	if (h->pid <= 0) {
		/* locked but not written: a job starting this moment, or left so */
		snprintf(out, cap, "a holder that has not written who it is (a job starting)");
		return;
	}
	snprintf(out, cap, "job %s, pid %ld on host %s, since %s", h->job[0] ? h->job : "-",
		 h->pid, h->host[0] ? h->host : "?", h->started[0] ? h->started : "?");
}

static enum cr_err holder_write(int fd, const char *path)
{
	char host[256] = "", text[1024], when[32];
	const char *job = getenv("SLURM_JOB_ID");
	time_t t = (time_t)(clock_now_us() / 1000000);
	struct tm tm;
	int n;

	if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "?");
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(text, sizeof(text), "host=%s\npid=%ld\njob=%s\nstarted=%s\n", host,
		     (long)getpid(), job && *job ? job : "-", when);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n || fsync(fd) != 0) {
		log_err("lock", "cannot write '%s': %s", path, strerror(errno));
		return CR_ERR_IO;
	}
	return CR_OK;
}

/* 1 if fd is still the file at path (not removed or replaced meanwhile). */
static int same_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* flock(LOCK_EX | LOCK_NB), tried for about 100 ms while refused: a
 * reader's look (lock_peek) holds a shared lock for a moment. */
static int flock_ex(int fd)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	int i, rc = -1;

	for (i = 0; i < 10; i++) {
		rc = flock(fd, LOCK_EX | LOCK_NB);
		if (rc == 0 || (errno != EWOULDBLOCK && errno != EAGAIN))
			return rc;
		nanosleep(&pause, NULL);
	}
	return rc;
}

void lock_peek(const char *path, int *held, struct lock_holder *h)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*held = 0;
	memset(h, 0, sizeof(*h));
	if (fd < 0)
		return;
	if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
		*held = errno == EWOULDBLOCK || errno == EAGAIN;
		if (*held)
			holder_read(fd, h);
	}
	close(fd);   /* drops the shared lock, if it was had */
}

enum cr_err lock_acquire(const char *path, struct dir_lock *l, struct lock_holder *h)
{
	int tries;

	l->fd = -1;
	snprintf(l->path, sizeof(l->path), "%s", path);
	/* A holder may remove the file between our open and our flock: then
	 * the lock we got is of a file nobody else will look at; open again. */
	for (tries = 0; tries < 10; tries++) {
		struct lock_holder prev;
		int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0) {
			log_err("lock", "cannot open '%s': %s", l->path, strerror(errno));
			return CR_ERR_IO;
		}
		if (flock_ex(fd) != 0) {
			if (errno == EWOULDBLOCK || errno == EAGAIN) {
				if (h)
					holder_read(fd, h);
				close(fd);
				return CR_ERR_STATE;
			}
			log_warn("lock", "cannot lock '%s' (%s): this filesystem gives no "
				 "flock, so a second job on this crawl is not refused", l->path,
				 strerror(errno));
			close(fd);
			return CR_OK;
		}
		if (!same_file(fd, l->path)) {
			close(fd);
			continue;
		}
		holder_read(fd, &prev);
		if (prev.pid > 0) {
			char who[512];

			lock_holder_str(&prev, who, sizeof(who));
			log_info("lock",
				 "taking over the lock '%s' from a job that is gone (%s)",
				 path, who);
		}
		if (holder_write(fd, l->path) != CR_OK) {
			close(fd);
			return CR_ERR_IO;
		}
		l->fd = fd;
		return CR_OK;
	}
	log_err("lock", "cannot lock '%s': the file keeps changing", l->path);
	return CR_ERR_IO;
}

void lock_release(struct dir_lock *l)
{
	if (!l || l->fd < 0)
		return;
	/* Removed while still locked: a job that opens it meanwhile finds it
	 * replaced (same_file) and opens again. */
	if (same_file(l->fd, l->path) && unlink(l->path) != 0)
		log_warn("lock", "cannot remove '%s': %s", l->path, strerror(errno));
	close(l->fd);
	l->fd = -1;
}

/* 1 if pid is a live process of this host. */
static int pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

enum cr_err lock_clear(const char *path, int force, struct lock_holder *h,
		       enum lock_clear_result *res)
{
	char host[256] = "";
	int fd, held;

	memset(h, 0, sizeof(*h));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT) {
			*res = LOCK_CLEAR_NONE;
			return CR_OK;
		}
		log_err("lock", "cannot open '%s': %s", path, strerror(errno));
		return CR_ERR_IO;
	}
	holder_read(fd, h);
	held = flock_ex(fd) != 0 && (errno == EWOULDBLOCK || errno == EAGAIN);
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	if (!held) {
		*res = LOCK_CLEAR_REMOVED;
		/* No flock on this filesystem: the record is all there is. */
		if (!strcmp(h->host, host) && h->pid != (long)getpid() && pid_alive(h->pid))
			*res = LOCK_CLEAR_ALIVE;
	} else if (!strcmp(h->host, host)) {
		*res = LOCK_CLEAR_ALIVE;
	} else {
		*res = force ? LOCK_CLEAR_FORCED : LOCK_CLEAR_REMOTE;
	}
	if ((*res == LOCK_CLEAR_REMOVED || *res == LOCK_CLEAR_FORCED) && unlink(path) != 0) {
		log_err("lock", "cannot remove '%s': %s", path, strerror(errno));
		close(fd);
		return CR_ERR_IO;
	}
	close(fd);
	return CR_OK;
}

enum lock_peek_result lock_look(const char *path, struct lock_holder *h)
{
	char host[256] = "";
	struct stat st;
	int fd;

	memset(h, 0, sizeof(*h));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return LOCK_PEEK_NONE;
	/* Not a file (a directory, a fifo): no job could hold it. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return LOCK_PEEK_NONE;
	}
	holder_read(fd, h);
	close(fd);
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	if (h->pid <= 0 || strcmp(h->host, host))
		return LOCK_PEEK_REMOTE;
	return pid_alive(h->pid) ? LOCK_PEEK_ALIVE : LOCK_PEEK_GONE;
}
