/*
 * fdlimit.h: the number of file descriptors a daemon may hold.  A server
 * that takes up to -c connections needs that many descriptors and a few
 * more; the usual soft limit (1024) is below the default -c, the hard
 * limit usually far above.
 */
#ifndef PS_FDLIMIT_H
#define PS_FDLIMIT_H

/*
 * Raise the soft RLIMIT_NOFILE towards want, up to the hard limit, if it
 * is lower; return the soft limit in force afterwards (or want when the
 * limit cannot be read: nothing better is known).
 */
long	ps_fd_limit_raise(long want);

#endif
