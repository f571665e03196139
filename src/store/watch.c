/* SPDX-License-Identifier: ISC */
/*
 * Being told when the store changes instead of looking at fixed
 * intervals: an inotify watch on the state directory, which fires when
 * any process commits (every commit writes warrant.db-wal, a checkpoint
 * writes warrant.db). A wakeup only says "look again": readers still read
 * the store to learn what changed, and keep a slower fixed interval as
 * the fallback (no inotify, too many watches, a store on a network file
 * system that does not report other hosts' writes).
 */
#include <errno.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "store.h"

/* A non-blocking, close-on-exec descriptor that becomes readable when a
 * file in the store's directory is written, created or replaced; -1 when
 * none can be had (callers then poll). */
int
store_watch(const struct store *st)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		return -1;
	if (inotify_add_watch(fd, st->dir, IN_MODIFY | IN_CREATE | IN_MOVED_TO |
	    IN_CLOSE_WRITE | IN_ONLYDIR) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read away what the watch has queued; 1 when there was something. */
int
store_watch_drain(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int any = 0;

	if (fd < 0)
		return 0;
	while (read(fd, buf, sizeof buf) > 0)
		any = 1;
	return any;
}

/* Wait up to ms milliseconds for the store to change (the full time when
 * fd is -1); 1 when it did. */
int
store_watch_wait(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (fd < 0) {
		poll(NULL, 0, ms);
		return 0;
	}
	if (poll(&p, 1, ms) > 0)
		return store_watch_drain(fd);
	return 0;
}
