/* SPDX-License-Identifier: ISC */
/* libFuzzer target: the run-time supervisor's path resolution
 * (judge_path) on any path a command could pass, from a small tree with
 * links of every kind, for a requester that owns part of it. It only
 * resolves and judges: nothing is created or written. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "root/confine/supervise.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int rootfd = -1, treefd = -1;
static char top[] = "/tmp/wt-fuzz-judge.XXXXXX";
static const char *const links[][2] = {
	{ "..", "up" }, { "/", "root" }, { "a/b", "ab" }, { "loop", "loop" },
	{ "/proc/self/cwd", "cwd" }, { "/tmp", "tmp" }, { "../..", "upup" },
};

static void
untree(void)
{
	char p[128];
	size_t i;

	for (i = 0; i < sizeof links / sizeof links[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", top, links[i][1]);
		(void)unlink(p);
	}
	snprintf(p, sizeof p, "%s/a/b", top);
	(void)rmdir(p);
	snprintf(p, sizeof p, "%s/a", top);
	(void)rmdir(p);
	(void)rmdir(top);
}

static void
tree(void)
{
	char p[128];
	size_t i;

	if (mkdtemp(top) == NULL || atexit(untree) != 0)
		abort();
	snprintf(p, sizeof p, "%s/a", top);
	(void)mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/a/b", top);
	(void)mkdir(p, 0777);
	for (i = 0; i < sizeof links / sizeof links[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", top, links[i][1]);
		(void)symlink(links[i][0], p);
	}
	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	treefd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || treefd < 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const gid_t groups[] = { 4343 };
	const struct writer w = { .uid = 4242, .groups = groups, .ngroups = 1 };
	struct judge_ctx c = { .w = &w, .tgid = getpid(), .tid = getpid() };
	char path[PATH_MAX + 16];
	struct judged j;
	int rc;

	if (rootfd < 0)
		tree();
	if (size < 1)
		return 0;
	c.rootfd = rootfd;
	size = size - 1 < sizeof path - 1 ? size - 1 : sizeof path - 1;
	memcpy(path, data + 1, size);
	path[size] = '\0';
	rc = judge_path(&c, treefd, "/tree", path, data[0] & 0x0f, &j);
	if (rc == 0) {
		if (j.dirfd < 0 || strlen(j.name) > NAME_MAX)
			abort();
		judged_close(&j);
	} else if (rc == 1 && j.why[0] == '\0')
		abort();	/* a refusal always says why */
	return 0;
}
