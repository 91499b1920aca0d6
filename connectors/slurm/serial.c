/*
 * serial.c — one lock around libslurm (slurm_int.h FW__SL).
 *
 * libslurm documents none of the calls the adapter makes as thread-safe
 * (its man pages say nothing either way; Slurm's own hostlist.c keeps a
 * mutex in each hostlist and one for its multi-dimension grid, but the
 * RPC path shares the process's configuration and authentication
 * plugin), and `fairway serve --backend slurm` calls it from two threads
 * at once: the cycle thread's ping, fetch and snapshot build run without
 * the daemon's state lock (connectors/serve/cycle.c), while an API
 * thread may read Slurm whole under that lock (a queue change's check,
 * `losing` in connectors/serve/api.c).  So every libslurm call on those
 * paths, and every hostlist call, holds this one process-wide mutex for
 * that call alone: never across the adapter's own work, so a build waits
 * at most one RPC for a parse.  libslurm's state is the process's, hence
 * a lock of the process's, not of a handle.
 */
#include "slurm_int.h"

static pthread_mutex_t lib_mu = PTHREAD_MUTEX_INITIALIZER;

void fw__slurm_lib_lock(void)
{
	pthread_mutex_lock(&lib_mu);
}

void fw__slurm_lib_unlock(void)
{
	pthread_mutex_unlock(&lib_mu);
}

int fw__slurm_lib_int(int rc)
{
	pthread_mutex_unlock(&lib_mu);
	return rc;
}

void *fw__slurm_lib_ptr(void *p)
{
	pthread_mutex_unlock(&lib_mu);
	return p;
}
