/*
 * lifeline.c: the end of file on a daemon's standard input that says its
 * launcher is gone, and the note that tells the launcher it is ready
 * (lifeline.h).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif

#include <event2/event.h>

#include "util/lifeline.h"
#include "util/xmalloc.h"

struct ps_lifeline {
	struct event	*ev;
	ps_lifeline_cb	*cb;
	void		*arg;
	int		 fired;
};

/* Readable: drain what came; at end of file or an error, call back once. */
static void
lifeline_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ps_lifeline *ll = arg;
	char buf[512];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (!ll->fired) {
		ll->fired = 1;
		ll->cb(ll->arg);
	}
}

/* Ask for SIGTERM when the parent dies; fail if it is gone already. */
static int
lifeline_parent(char *err, size_t errlen)
{
#if defined(HAVE_SYS_PRCTL_H) && defined(PR_SET_PDEATHSIG)
	pid_t parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) {
		snprintf(err, errlen, "cannot ask for the parent's death: %s",
		    strerror(errno));
		return -1;
	}
	if (parent == 1 || getppid() != parent) {
		snprintf(err, errlen, "the launcher is gone already");
		return -1;
	}
#endif
	return 0;
}

struct ps_lifeline *
ps_lifeline_watch(struct event_base *base, int fd, ps_lifeline_cb *cb,
    void *arg, char *err, size_t errlen)
{
	struct ps_lifeline *ll;
	struct stat st;
	int flags;

	if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode) || isatty(fd))) {
		snprintf(err, errlen, "standard input cannot be watched for "
		    "the launcher (it must be a pipe, a socket or a terminal)");
		return NULL;
	}
	if (lifeline_parent(err, errlen) != 0)
		return NULL;
	if ((flags = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "standard input: %s", strerror(errno));
		return NULL;
	}
	ll = xcalloc(1, sizeof *ll);
	ll->cb = cb;
	ll->arg = arg;
	ll->ev = event_new(base, fd, EV_READ | EV_PERSIST, lifeline_read_cb,
	    ll);
	if (ll->ev == NULL || event_add(ll->ev, NULL) != 0) {
		snprintf(err, errlen, "cannot watch standard input");
		ps_lifeline_free(ll);
		return NULL;
	}
	return ll;
}

void
ps_lifeline_free(struct ps_lifeline *ll)
{
	if (ll == NULL)
		return;
	if (ll->ev != NULL)
		event_free(ll->ev);
	free(ll);
}

int
ps_ready_check(int fd, char *err, size_t errlen)
{
	if (fd <= STDERR_FILENO) {
		snprintf(err, errlen, "descriptor %d: not above standard error",
		    fd);
		return -1;
	}
	if (fcntl(fd, F_GETFD) == -1) {
		snprintf(err, errlen, "descriptor %d: %s", fd, strerror(errno));
		return -1;
	}
	return 0;
}

int
ps_ready_note(int fd, const char *line)
{
	size_t len = strlen(line), done = 0;
	ssize_t n;
	int saved;

	while (done < len) {
		n = write(fd, line + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		done += (size_t)n;
	}
	return close(fd);
}
