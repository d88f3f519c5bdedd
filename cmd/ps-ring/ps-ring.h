/*
 * ps-ring.h: what the files of ps-ring share: the usage and option helpers
 * of ps-ring.c, and the commands that live in files of their own.
 */
#ifndef PS_RING_CMD_H
#define PS_RING_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include "cluster/ring.h"
#include "wire/auth.h"

/* The coordinator a command asks (-C) and the secret it proves (-a). */
struct coord_target {
	const char		*addr;		/* NULL: no -C */
	char			*addr_mem;	/* addr, read from a job dir */
	struct ps_secret	 secret;
	int			 have_secret;
};

/* ps-ring.c */
noreturn void usage(int status);
void	hostport_or_usage(const char *s);
uint32_t parse_count(const char *s, const char *what, uint32_t lo,
	    uint32_t hi);
int	finish_stdout(void);
int	coord_options(int argc, char **argv, struct coord_target *t,
	    int *json, int *raw);
void	ring_get(const struct coord_target *t, const char *path,
	    struct ps_ring *r);

/*
 * client.c: exit 69 when the coordinator cannot be reached, 77 when the
 * handshake fails or the coordinator wants a secret and none was given.
 */
void	client_secret(struct coord_target *t, const char *path);
void	client_release(struct coord_target *t);
void	client_jobdir(struct coord_target *t, const char *dir);
char	*client_request(const struct coord_target *t, const char *command,
	    size_t *len);
void	client_ring(const struct coord_target *t, struct ps_ring *r);

/* status.c */
int	cmd_status(int argc, char **argv);
int	cmd_change(int argc, char **argv);
int	cmd_watch(int argc, char **argv);

/* checkpoint.c */
int	cmd_checkpoint(int argc, char **argv);

/* forget.c */
int	cmd_forget(int argc, char **argv);

/* serve.c */
int	cmd_serve(int argc, char **argv);

#endif
