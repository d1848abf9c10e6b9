/*
 * test_config.c - the job configuration (config/config.h): the defaults,
 * config_set_kv over a table of good and bad settings (unknown key, out of
 * range, not a number, bool spelling, too long), config_load of files with
 * comments, blank lines and spaces around '=' and of files with a bad line,
 * config_write read back by config_load; and every key of the table is
 * documented in docs/CONFIG.md as `key`, with the same default.
 */
#include "config/config.h"
#include "scope/scope.h"
#include "test.h"
#include "util/buf.h"
#include "util/fs.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static char tmp_dir[256];

static int write_file(const char *name, const char *text, char *path, size_t cap)
{
	int fd, ok;

	snprintf(path, cap, "%s/%s", tmp_dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	return close(fd) == 0 && ok ? 0 : -1;
}

static void test_defaults(void)
{
	struct config c;
	size_t i, n = 0;
	const char *name, *def, *doc;

	memset(&c, 0x5a, sizeof(c));
	config_defaults(&c);
	CHECK(c.delay_ms == 1000, "politeness.delay_ms default %ld", c.delay_ms);
	CHECK(c.max_in_flight == 1, "politeness.max_in_flight default %ld", c.max_in_flight);
	CHECK(c.allow_private == 0, "fetch.allow_private default %d", c.allow_private);
	CHECK_STR(c.robots_agent, "mpicrawl");
	CHECK(c.partitions == 16, "partition.count default %ld", c.partitions);
	CHECK(c.partition_by == PARTITION_BY_HOST, "partition.by default");
	CHECK(c.partitions_set == 0, "partition.count not set explicitly");
	CHECK(c.max_depth == 0 && c.max_retries == 3, "crawl defaults");
	CHECK_STR(c.dns_servers, "");

	/* Every key has a name, a default and a doc, and its default applies. */
	for (i = 0;; i++) {
		struct config d;

		name = def = doc = NULL;
		config_key(i, &name, &def, &doc);
		if (!name)
			break;
		n++;
		CHECK(def && doc && *doc && strchr(name, '.'), "key %zu '%s' complete", i, name);
		config_defaults(&d);
		CHECK(def && config_set(&d, name, def) == CR_OK, "%s: default '%s' parses",
		      name, def ? def : "(null)");
		d.partitions_set = d.dedup_signature_set = d.partition_by_set = 0;
		CHECK(!memcmp(&c, &d, sizeof(c)) || !def,
		      "%s: setting the default changes nothing", name);
	}
	CHECK(n >= 30, "%zu keys", n);
	config_key(n + 1, &name, &def, &doc);
	CHECK(name == NULL, "past the end of the table");
	config_key((size_t)-1, &name, &def, &doc);
	CHECK(name == NULL, "far past the end of the table");
}

/* What a good setting must change: one field, read back as a string. */
static void field(const struct config *c, const char *key, char *out, size_t cap)
{
	if (!strcmp(key, "politeness.delay_ms"))
		snprintf(out, cap, "%ld", c->delay_ms);
	else if (!strcmp(key, "politeness.max_in_flight"))
		snprintf(out, cap, "%ld", c->max_in_flight);
	else if (!strcmp(key, "fetch.allow_private"))
		snprintf(out, cap, "%d", c->allow_private);
	else if (!strcmp(key, "robots.agent"))
		snprintf(out, cap, "%s", c->robots_agent);
	else if (!strcmp(key, "http.user_agent"))
		snprintf(out, cap, "%s", c->user_agent);
	else if (!strcmp(key, "dns.servers"))
		snprintf(out, cap, "%s", c->dns_servers);
	else if (!strcmp(key, "partition.count"))
		snprintf(out, cap, "%ld/%d", c->partitions, c->partitions_set);
	else if (!strcmp(key, "partition.by"))
		snprintf(out, cap, "%d", c->partition_by);
	else if (!strcmp(key, "fetch.max_body_bytes"))
		snprintf(out, cap, "%ld", c->max_body_bytes);
	else if (!strcmp(key, "store.zstd_level"))
		snprintf(out, cap, "%ld", c->zstd_level);
	else
		snprintf(out, cap, "?");
}

static void test_set(void)
{
	static const char agent63[] =
		"robots.agent=abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk";
	static const char agent64[] =
		"robots.agent=abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl";
	static const struct {
		const char *kv;
		const char *key;    /* the field that must change (good settings) */
		const char *want;   /* its value afterwards; NULL: a bad setting */
	} cases[] = {
		{ "politeness.delay_ms=250", "politeness.delay_ms", "250" },
		{ "  politeness.delay_ms   =   0  ", "politeness.delay_ms", "0" },
		{ "politeness.delay_ms=3600000", "politeness.delay_ms", "3600000" },
		{ "politeness.max_in_flight=64", "politeness.max_in_flight", "64" },
		{ "fetch.allow_private=true", "fetch.allow_private", "1" },
		{ "fetch.allow_private=yes", "fetch.allow_private", "1" },
		{ "fetch.allow_private=1", "fetch.allow_private", "1" },
		{ "fetch.allow_private=false", "fetch.allow_private", "0" },
		{ "fetch.allow_private=no", "fetch.allow_private", "0" },
		{ "fetch.allow_private=0", "fetch.allow_private", "0" },
		{ "robots.agent=mybot", "robots.agent", "mybot" },
		{ agent63, "robots.agent",
		  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk" },
		{ "http.user_agent=mybot/1.0 (+https://x.example/?a=b)", "http.user_agent",
		  "mybot/1.0 (+https://x.example/?a=b)" },
		{ "dns.servers=127.0.0.1:5353,10.0.0.1", "dns.servers", "127.0.0.1:5353,10.0.0.1" },
		{ "dns.servers=", "dns.servers", "" },
		{ "partition.count=8", "partition.count", "8/1" },
		{ "partition.count=65536", "partition.count", "65536/1" },
		{ "partition.by=domain", "partition.by", "1" },
		{ "partition.by=host", "partition.by", "0" },
		{ "fetch.max_body_bytes=1024", "fetch.max_body_bytes", "1024" },
		{ "store.zstd_level=19", "store.zstd_level", "19" },

		{ "nosuch.key=1", NULL, NULL },
		{ "politeness.delay=1", NULL, NULL },
		{ "Politeness.delay_ms=1", NULL, NULL },
		{ "=1", NULL, NULL },
		{ "politeness.delay_ms", NULL, NULL },
		{ "", NULL, NULL },
		{ "politeness.delay_ms=", NULL, NULL },
		{ "politeness.delay_ms=-1", NULL, NULL },
		{ "politeness.delay_ms=3600001", NULL, NULL },
		{ "politeness.delay_ms=abc", NULL, NULL },
		{ "politeness.delay_ms=12abc", NULL, NULL },
		{ "politeness.delay_ms=1.5", NULL, NULL },
		{ "politeness.delay_ms=1 000", NULL, NULL },
		{ "politeness.delay_ms=0x10", NULL, NULL },
		{ "politeness.delay_ms=99999999999999999999999", NULL, NULL },
		{ "politeness.max_in_flight=0", NULL, NULL },
		{ "politeness.max_in_flight=65", NULL, NULL },
		{ "fetch.allow_private=maybe", NULL, NULL },
		{ "fetch.allow_private=tru", NULL, NULL },
		{ "fetch.allow_private=2", NULL, NULL },
		{ "fetch.allow_private=", NULL, NULL },
		{ "fetch.allow_private=true false", NULL, NULL },
		{ agent64, NULL, NULL },
		{ "partition.count=0", NULL, NULL },
		{ "partition.count=65537", NULL, NULL },
		{ "partition.by=country", NULL, NULL },
		{ "partition.by=", NULL, NULL },
		{ "fetch.max_body_bytes=1023", NULL, NULL },
		{ "store.zstd_level=20", NULL, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c, before;
		char got[512];
		enum cr_err e;

		config_defaults(&c);
		/* Start away from the defaults so that a no-op cannot pass. */
		c.delay_ms = 12345;
		c.max_in_flight = 9;
		c.allow_private = cases[i].want && !strcmp(cases[i].want, "1") ? 0 : 1;
		snprintf(c.robots_agent, sizeof(c.robots_agent), "before");
		snprintf(c.dns_servers, sizeof(c.dns_servers), "9.9.9.9");
		c.partition_by = cases[i].want && !strcmp(cases[i].want, "1") ? 0 : 1;
		before = c;
		e = config_set_kv(&c, cases[i].kv);
		if (cases[i].want) {
			CHECK(e == CR_OK, "'%s': %s", cases[i].kv, error_str(e));
			field(&c, cases[i].key, got, sizeof(got));
			CHECK(!strcmp(got, cases[i].want), "'%s': %s is '%s', want '%s'",
			      cases[i].kv, cases[i].key, got, cases[i].want);
		} else {
			CHECK(e == CR_ERR_ARG, "'%s' refused: %s", cases[i].kv, error_str(e));
			/* A refused value changes no field. */
			c.partitions_set = before.partitions_set;
			CHECK(!memcmp(&c, &before, sizeof(c)), "'%s': config unchanged",
			      cases[i].kv);
		}
	}
	/* A number that may also be the word auto (generate.round_s). */
	{
		struct config c;
		char out[65536];

		config_defaults(&c);
		CHECK(c.round_s == -1, "generate.round_s defaults to auto (-1): %ld", c.round_s);
		CHECK(config_set(&c, "generate.round_s", "30") == CR_OK && c.round_s == 30,
		      "generate.round_s=30");
		CHECK(config_set(&c, "generate.round_s", "0") == CR_OK && c.round_s == 0,
		      "generate.round_s=0");
		CHECK(config_set(&c, "generate.round_s", "-1") == CR_ERR_ARG && c.round_s == 0,
		      "generate.round_s=-1 refused: auto is said in words");
		CHECK(config_set(&c, "generate.round_s", "Auto") == CR_ERR_ARG,
		      "generate.round_s=Auto refused");
		CHECK(config_set(&c, "politeness.delay_ms", "auto") == CR_ERR_ARG,
		      "auto only where a key takes it");
		CHECK(config_set(&c, "generate.round_s", "auto") == CR_OK && c.round_s == -1,
		      "generate.round_s=auto");
		config_write(&c, out, sizeof(out));
		CHECK(strstr(out, "generate.round_s = auto\n") != NULL, "written back as auto");
	}
	/* config_set takes key and value apart, untrimmed. */
	{
		struct config c;

		config_defaults(&c);
		CHECK(config_set(&c, "politeness.delay_ms", "77") == CR_OK && c.delay_ms == 77,
		      "config_set");
		CHECK(config_set(&c, "politeness.delay_ms", " 78 ") == CR_ERR_ARG ||
			      c.delay_ms == 78, "config_set with spaces: refused or applied");
		CHECK(config_set(&c, "nosuch", "1") == CR_ERR_ARG, "config_set unknown key");
	}
	/* A setting longer than the line buffer. */
	{
		struct config c;
		char *big = malloc(4096);

		if (big) {
			memset(big, 'a', 4095);
			big[4095] = '\0';
			memcpy(big, "dns.servers=", 12);
			config_defaults(&c);
			CHECK(config_set_kv(&c, big) == CR_ERR_ARG, "a 4 KB setting");
			free(big);
		}
	}
}

static void test_load(void)
{
	static const struct {
		const char *name;
		const char *text;
		enum cr_err want;
	} cases[] = {
		{ "good.conf",
		  "# a job\n"
		  "\n"
		  "politeness.delay_ms = 50\n"
		  "   # indented comment\n"
		  "\t politeness.max_in_flight=2   \n"
		  "fetch.allow_private   =true # trailing comment\n"
		  "robots.agent= mybot\r\n"
		  "partition.count =16\n"
		  "\n\n"
		  "partition.by = domain",   /* no final newline */
		  CR_OK },
		{ "empty.conf", "", CR_OK },
		{ "comments.conf", "# only\n#comments\n\n   \n", CR_OK },
		{ "unknown.conf", "politeness.delay_ms = 50\nnosuch.key = 1\n", CR_ERR_ARG },
		{ "noeq.conf", "politeness.delay_ms 50\n", CR_ERR_ARG },
		{ "range.conf", "# x\npoliteness.max_in_flight = 1000\n", CR_ERR_ARG },
		{ "bool.conf", "fetch.allow_private = ja\n", CR_ERR_ARG },
		{ "word.conf", "politeness.delay_ms\n", CR_ERR_ARG },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		char path[512];
		enum cr_err e;

		CHECK(write_file(cases[i].name, cases[i].text, path, sizeof(path)) == 0,
		      "write %s", cases[i].name);
		config_defaults(&c);
		e = config_load(&c, path);
		CHECK(e == cases[i].want, "%s: %s, want %s", cases[i].name, error_str(e),
		      error_str(cases[i].want));
		if (i == 0 && e == CR_OK) {
			CHECK(c.delay_ms == 50 && c.max_in_flight == 2 && c.allow_private == 1 &&
				      c.partitions == 16 && c.partitions_set == 1 &&
				      c.partition_by == PARTITION_BY_DOMAIN,
			      "good.conf values");
			CHECK_STR(c.robots_agent, "mybot");
			CHECK(c.timeout_s == 60, "keys not in the file keep their defaults");
		}
		if (i == 1 && e == CR_OK) {
			struct config d;

			config_defaults(&d);
			CHECK(!memcmp(&c, &d, sizeof(c)), "an empty file changes nothing");
		}
	}
	{
		struct config c;
		char path[512];

		config_defaults(&c);
		snprintf(path, sizeof(path), "%s/missing.conf", tmp_dir);
		CHECK(config_load(&c, path) == CR_ERR_ARG, "missing file");
		CHECK(write_file("nul.conf", "a", path, sizeof(path)) == 0, "write nul.conf");
		{
			int fd = open(path, O_WRONLY | O_APPEND);

			if (fd >= 0) {
				CHECK(write(fd, "\0b=1\n", 5) == 5, "append NUL");
				close(fd);
			}
		}
		CHECK(config_load(&c, path) == CR_ERR_ARG, "a file with a NUL byte");
	}
	{
		/* A rules file named by a job file is found beside the job file. */
		struct config c;
		char path[512], want[600];

		config_defaults(&c);
		CHECK(write_file("r.rules", "+http://(test,\n-.\n", path, sizeof(path)) == 0,
		      "write r.rules");
		CHECK(write_file("rel.conf", "scope.rules = r.rules\nscope.mode = any\n", path,
				 sizeof(path)) == 0, "write rel.conf");
		CHECK(config_load(&c, path) == CR_OK, "a relative rules file loads");
		snprintf(want, sizeof(want), "%s/r.rules", tmp_dir);
		CHECK(!strcmp(c.scope_rules, want) && c.scope_mode == 2, "resolved to '%s'",
		      c.scope_rules);
		CHECK(write_file("bad.rules", "+ok\n+(a|b\n", path, sizeof(path)) == 0, "bad");
		CHECK(config_set(&c, "scope.rules", path) == CR_ERR_ARG, "a bad rules file");
		CHECK(config_set(&c, "scope.mode", "site") == CR_ERR_ARG, "a bad scope.mode");
	}
}

/* config_write's output, loaded again, gives the same config. */
static void test_write(void)
{
	struct config c, d;
	char out[16384], path[512];

	config_defaults(&c);
	CHECK(config_set_kv(&c, "politeness.delay_ms=5") == CR_OK &&
		      config_set_kv(&c, "fetch.allow_private=true") == CR_OK &&
		      config_set_kv(&c, "partition.by=domain") == CR_OK &&
		      config_set_kv(&c, "dns.servers=127.0.0.1:53") == CR_OK &&
		      config_set_kv(&c, "robots.agent=x") == CR_OK,
	      "settings for config_write");
	config_write(&c, out, sizeof(out));
	CHECK(strstr(out, "politeness.delay_ms = 5\n") != NULL, "delay written");
	CHECK(strstr(out, "fetch.allow_private = true\n") != NULL, "bool written");
	CHECK(strstr(out, "partition.by = domain\n") != NULL, "enum written");
	CHECK(write_file("written.conf", out, path, sizeof(path)) == 0, "write back");
	config_defaults(&d);
	CHECK(config_load(&d, path) == CR_OK, "load config_write output");
	d.partitions_set = c.partitions_set;
	d.dedup_signature_set = c.dedup_signature_set;
	CHECK(!memcmp(&c, &d, sizeof(c)), "config_write round trip");
}

/* docs/CONFIG.md lists every key as `key`, with the default of the table. */
static void test_docs(void)
{
	static const char *const paths[] = { "docs/CONFIG.md", "../docs/CONFIG.md",
					     "../../docs/CONFIG.md" };
	struct buf b;
	size_t i;
	int found = 0;

	buf_init(&b);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && !found; i++) {
		buf_reset(&b);
		found = fs_read_all(paths[i], 1 << 20, &b) == CR_OK;
	}
	CHECK(found, "docs/CONFIG.md exists (run from the repository root)");
	if (found) {
		const char *text = buf_cstr(&b);
		const char *name, *def, *doc;

		for (i = 0;; i++) {
			char quoted[128], row[256];
			const char *at;

			config_key(i, &name, &def, &doc);
			if (!name)
				break;
			snprintf(quoted, sizeof(quoted), "`%s`", name);
			at = strstr(text, quoted);
			CHECK(at != NULL, "docs/CONFIG.md documents `%s`", name);
			/* Table rows read "| `key` | default | meaning |". */
			snprintf(row, sizeof(row), "| `%s` | %s |", name, *def ? def : "(empty)");
			CHECK(strstr(text, row) != NULL, "docs/CONFIG.md: `%s` default '%s'",
			      name, def);
		}
	}
	buf_release(&b);
}

/* The read-back cap follows what the fetcher may store: a 200 MB body
 * (fetch.max_body_bytes) is read, not refused. */
static void test_max_block(void)
{
	struct config c;

	config_defaults(&c);
	CHECK(config_warc_block_max(&c) == 64u << 20, "default: 64 MiB, %zu", config_warc_block_max(&c));
	c.max_body_bytes = 200000000;
	CHECK(config_warc_block_max(&c) > 200000000 + (size_t)c.max_header_bytes,
	      "200 MB bodies: %zu", config_warc_block_max(&c));
}

int main(void)
{
	scope_register_checks();
	test_max_block();
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/mpicrawl-config-XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_defaults();
	test_set();
	test_load();
	test_write();
	test_docs();
	CHECK(fs_remove_tree(tmp_dir) == CR_OK, "remove temp dir");
	TEST_DONE();
}
