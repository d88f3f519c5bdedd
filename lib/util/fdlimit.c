/*
 * fdlimit.c: raising the soft limit on open files (fdlimit.h).
 */
#include "config.h"

#include <sys/resource.h>

#include "util/fdlimit.h"

long
ps_fd_limit_raise(long want)
{
	struct rlimit rl;

	if (want <= 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return want;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)want) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ||
		    rl.rlim_max >= (rlim_t)want ? (rlim_t)want : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			return want;
	}
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)want ?
	    want : (long)rl.rlim_cur;
}
