/*
 * api_ranges.h — the API's ranges of numbers, in one place.
 *
 * The daemon's codec (codec.c) refuses a member out of its range with a
 * 400 that names the member; the command-line client (tools/cmd_client.c)
 * checks its flags against the same ranges before it sends anything and
 * names the flag instead.  Both take the bounds from here, so they cannot
 * drift apart; tests/integration/serve_api.sh sends each value just past
 * a bound both ways and compares the ranges the two refusals state.
 *
 * Units are the wire's (codec.h): memory in MiB, durations in seconds,
 * times in Unix seconds; GPUs, CPUs and weights may be fractions.  A task's GPUs go up to FW_MAX_GPUS_PER_NODE
 * (snapshot.h): one task lives on one node.
 */
#ifndef FAIRWAY_SERVE_API_RANGES_H
#define FAIRWAY_SERVE_API_RANGES_H

#define FW_API_PRIORITY_MIN (-1000000)       /* a job's or a queue's */
#define FW_API_PRIORITY_MAX 1000000
#define FW_API_EXIT_CODE_MAX 255             /* local backend; from 0 */
#define FW_API_COUNT_MAX 100000              /* tasks of a group; from 1 */
#define FW_API_MIN_MEMBER_MAX 1000000        /* a job's minMember; from 0 (every task) */
#define FW_API_MEMORY_MAX 1000000000000LL    /* MiB; from 0 */
#define FW_API_SECS_MAX (365LL * 86400)      /* a duration; from 0 */
#define FW_API_TIME_MAX (1LL << 40)          /* a time; from 0 */
#define FW_API_HORIZON_S (3653LL * 86400)    /* a reservation's start and end: within
					      * 10 years of the daemon's clock */
#define FW_API_GPUS_MAX 1000000              /* a queue's GPUs (deserved, limit, a model's); from 0 */
#define FW_API_CPUS_MAX 10000000             /* CPUs: a task's, a queue's; from 0 */
#define FW_API_WEIGHT_MAX 1000000            /* overQuotaWeight; from 0 */
#define FW_API_GPU_FRACTION_MIN 0.001        /* a task's share of one GPU; to 1 */

#endif
