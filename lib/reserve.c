/*
 * reserve.c — reservations: when and where will a blocked gang fit?
 *
 * A reservation is computed on a private copy ("clone") of the cycle's
 * node state and domain index:
 *   1. clone:    copy nodes, domains and the per-level bucket index;
 *                nodes held by an earlier reservation are unusable in the
 *                clone until the last reservation holding them is
 *                expected to end (resv_end): reservations on one node
 *                follow each other in time and never overlap;
 *   2. events:   every running job (snapshot) and every job started so far
 *                this cycle ends at its expected end time, and every
 *                earlier reservation's job at its reserved time plus its
 *                runtime; jobs with an unknown runtime never end (they
 *                hold their GPUs, or their reserved nodes, for ever unless
 *                their queue sets a default runtime); a node out of
 *                service now with a known return (fw_node.back_at: a
 *                maintenance window's end) comes back at that time; a
 *                node that leaves later (fw_node.away_at, domain.c
 *                hold_away) stays usable in the clone while no
 *                reservation holds it, and the search keeps a gang off it
 *                when [t, t + runtime) reaches into its departure
 *                (keep_away), so the gang may be reserved there before it
 *                leaves or after its return (back_at, an event too);
 *   3. walk:     release the events in time order (ties: job index) and,
 *                after each distinct time t, try to place the gang on the
 *                clone with the ordinary placement code (place.c); the
 *                first t that works is the reservation's start.
 * The nodes the clone chose are then marked in the real state with
 * resv_until = min(resv_until, t): from now on a job may use such a node
 * only if it ends by the earliest reservation's start.  A later
 * reservation on the node starts after an earlier one ends, so that
 * bound protects every reservation of the node, and fw_plan_check
 * verifies it by recomputing each reserved GPU's use at its time t and
 * by checking that the windows [t, t + runtime) of a node's reservations
 * do not overlap.  So the first N blocked jobs really get N reservations,
 * and conservative backfill reserves for every blocked job, however few
 * the nodes (earlier, a node held one reservation at a time).
 *
 * Cost: the first clone of a cycle copies the N nodes and D domains; a
 * later one only the records written since (struct fw__changes, listed
 * by fw__domain_node_changed), and a level's bucket heads by its bitmap.
 * The E end events of running jobs and of this cycle's starts are sorted
 * once per cycle (a radix sort on (end, job)); each new start is merged
 * in.  The walk is O(E * place), where a job of one task is searched
 * again only after a step that changed a node it fits on (the others
 * are as they were when it last failed: fw__place_one_fits).  All of it
 * bounded by the policy's reserve_depth (and twice that many attempts).
 * The reservations' end events are kept sorted as they are made (an
 * insertion per reservation: O(R^2) for R reservations, R <= attempts).
 * On the 100,000-job benchmark: 16 reservations in ~8 ms, of which the
 * first sort ~4 ms and all clones under 1 ms.
 */
#include <stdlib.h>
#include <string.h>

#include "cycle_int.h"

/* The clone's buffers and the change log, on the first reservation of
 * the cycle.  The nodes, domains, bucket lists and topology lists are
 * not zeroed: the first clone_sync copies them whole (x->full_*), and
 * fw__resv_clone the topology lists each time; only the spare node and
 * domain past the end are never copied. */
static int clone_alloc(struct cyc *y, struct fw__cstate *s)
{
	struct fw__changes *x = FW_ARENA_NEW(y->a, struct fw__changes, 1);

	y->cl_nodes = FW_ARENA_RAW(y->a, struct fw__node, s->nn + 1);
	y->cl_dom = FW_ARENA_RAW(y->a, struct fw__domain, s->ndom + 1);
	y->cl_lvl = FW_ARENA_NEW(y->a, struct fw__level_index, FW_MAX_LEVELS + 2);
	if (!x || !y->cl_nodes || !y->cl_dom || !y->cl_lvl)
		return FW_ENOMEM;
	memset(&y->cl_nodes[s->nn], 0, sizeof y->cl_nodes[0]);
	memset(&y->cl_dom[s->ndom], 0, sizeof y->cl_dom[0]);
	if (s->tb_next) {
		y->cl_tb_next = FW_ARENA_RAW(y->a, int32_t, (size_t)s->nn);
		y->cl_tb_prev = FW_ARENA_RAW(y->a, int32_t, (size_t)s->nn);
		if (!y->cl_tb_next || !y->cl_tb_prev)
			return FW_ENOMEM;
	}
	for (int dl = 0; dl < s->ndl; dl++) {
		size_t n = (size_t)s->lvl[dl].maxcap + 1;
		y->cl_lvl[dl].head = FW_ARENA_RAW(y->a, int32_t, n);
		y->cl_lvl[dl].tail = FW_ARENA_RAW(y->a, int32_t, n);
		y->cl_lvl[dl].bits = FW_ARENA_RAW(y->a, uint64_t, s->lvl[dl].nwords);
		if (!y->cl_lvl[dl].head || !y->cl_lvl[dl].tail || !y->cl_lvl[dl].bits)
			return FW_ENOMEM;
	}
	/* past an eighth of the nodes, copying all is as cheap; domains
	 * are listed up to half of them: a step that moves a few nodes
	 * between buckets writes their neighbours' records too, so the
	 * domain log passed an eighth on 2 of the 16 clones of a benchmark
	 * cycle (1,958 and 6,887 of 13,801 listed), and each listed record
	 * is one copy where the whole array is ~1 MB */
	x->cap_node = s->nn / 8 + 1;
	x->cap_dom = s->ndom / 2 + 1;
	x->node = FW_ARENA_RAW(y->a, int32_t, (size_t)x->cap_node);
	x->dom = FW_ARENA_RAW(y->a, int32_t, (size_t)x->cap_dom);
	x->node_in = FW_ARENA_NEW(y->a, uint8_t, (size_t)s->nn + 1);
	x->dom_in = FW_ARENA_NEW(y->a, uint8_t, (size_t)s->ndom + 1);
	if (!x->node || !x->dom || !x->node_in || !x->dom_in)
		return FW_ENOMEM;
	x->full_node = x->full_dom = true;
	s->chg = x; /* the cycle's state lists its changes from now on */
	return FW_OK;
}

/* A level's bucket heads and tails: the non-empty buckets of the clone
 * (its bitmap) emptied, the cycle's copied, then the bitmap. */
static void copy_buckets(struct fw__level_index *d, const struct fw__level_index *s, bool full)
{
	if (full) {
		memcpy(d->head, s->head, ((size_t)s->maxcap + 1) * sizeof(int32_t));
		memcpy(d->tail, s->tail, ((size_t)s->maxcap + 1) * sizeof(int32_t));
	} else {
		for (int32_t w = 0; w < s->nwords; w++) {
			for (uint64_t b = d->bits[w]; b; b &= b - 1) {
				int32_t k = (w << 6) + __builtin_ctzll(b);
				d->head[k] = d->tail[k] = -1;
			}
			for (uint64_t b = s->bits[w]; b; b &= b - 1) {
				int32_t k = (w << 6) + __builtin_ctzll(b);
				d->head[k] = s->head[k];
				d->tail[k] = s->tail[k];
			}
		}
	}
	memcpy(d->bits, s->bits, (size_t)s->nwords * sizeof(uint64_t));
}

/* Make the clone's nodes, domains and index the cycle's again: the
 * nodes all after their log overflowed (and the first time), else only
 * the ones it lists; the same for the domains and bucket heads, apart
 * (a burst of domain changes leaves the nodes listed); then empty the
 * log. */
static void clone_sync(struct fw__cstate *d, const struct fw__cstate *s, struct fw__changes *x)
{
	if (x->full_node) {
		memcpy(d->nodes, s->nodes, (size_t)s->nn * sizeof *d->nodes);
	} else {
		for (int32_t i = 0; i < x->nnode; i++)
			d->nodes[x->node[i]] = s->nodes[x->node[i]];
	}
	if (x->full_dom) {
		memcpy(d->dom, s->dom, (size_t)s->ndom * sizeof *d->dom);
	} else {
		for (int32_t i = 0; i < x->ndom; i++)
			d->dom[x->dom[i]] = s->dom[x->dom[i]];
	}
	for (int dl = 0; dl < s->ndl; dl++)
		copy_buckets(&d->lvl[dl], &s->lvl[dl], x->full_dom);
	for (int32_t i = 0; i < x->nnode; i++)
		x->node_in[x->node[i]] = 0;
	for (int32_t i = 0; i < x->ndom; i++)
		x->dom_in[x->dom[i]] = 0;
	x->nnode = x->ndom = 0;
	x->full_node = x->full_dom = false;
}

/* Copy the cycle's node state and domain index into the clone.  The
 * buffers are allocated on the first reservation and brought up to date,
 * not reallocated or copied in full, for the later ones (clone_sync). */
int fw__resv_clone(struct cyc *y, struct fw__cstate *d, struct fw__cstate *s)
{
	int rc;

	if (!s->chg && (rc = clone_alloc(y, s)) != FW_OK) /* chg: set last */
		return rc;
	*d = *s; /* after clone_alloc: d->chg too */
	d->nodes = y->cl_nodes;
	d->dom = y->cl_dom;
	for (int dl = 0; dl < s->ndl; dl++) { /* the scalars; the arrays are the clone's */
		struct fw__level_index *x = &y->cl_lvl[dl];
		int32_t *head = x->head, *tail = x->tail;
		uint64_t *bits = x->bits;
		*x = s->lvl[dl];
		x->head = head;
		x->tail = tail;
		x->bits = bits;
	}
	d->lvl = y->cl_lvl;
	if (s->fhist) { /* node filters' sums and histograms: the clone's own */
		size_t n = (size_t)s->nfilters * FW__HIST;
		if (!y->cl_fhist && !(y->cl_fhist = FW_ARENA_NEW(y->a, int32_t, n)))
			return FW_ENOMEM;
		if (!y->cl_fsum && !(y->cl_fsum = FW_ARENA_NEW(y->a, int32_t, (size_t)s->nfslots + 1)))
			return FW_ENOMEM;
		memcpy(y->cl_fhist, s->fhist, n * sizeof *s->fhist);
		memcpy(y->cl_fsum, s->fsum, (size_t)s->nfslots * sizeof *s->fsum);
		d->fhist = y->cl_fhist;
		d->fsum = y->cl_fsum;
	}
	if (s->model_hist) { /* the models' histograms: the clone's own (a few words) */
		size_t n = (size_t)s->nmodels * FW__HIST;
		if (!y->cl_mhist && !(y->cl_mhist = FW_ARENA_NEW(y->a, int32_t, n + 1)))
			return FW_ENOMEM;
		memcpy(y->cl_mhist, s->model_hist, n * sizeof *s->model_hist);
		d->model_hist = y->cl_mhist;
	}
	clone_sync(d, s, s->chg);
	if (s->tb_next) { /* the lists are the clone's own, like the index */
		d->tb_next = y->cl_tb_next;
		d->tb_prev = y->cl_tb_prev;
		memcpy(d->tb_next, s->tb_next, (size_t)s->nn * sizeof *d->tb_next);
		memcpy(d->tb_prev, s->tb_prev, (size_t)s->nn * sizeof *d->tb_prev);
	}
	for (int32_t n = 0; n < s->nn; n++) {
		if (s->resv_until[n] == FW__NEVER || !d->nodes[n].usable || (s->away && s->away[n] == 1))
			continue; /* an away node no reservation holds: keep_away */
		int32_t old = d->nodes[n].whole_free;
		d->nodes[n].whole_free = 0;
		fw__domain_node_changed(d, n, old); /* listed: undone next time */
		d->nodes[n].usable = false; /* after the index update */
	}
	return FW_OK;
}

/* (end, job) is unique, so every correct sort gives the same order: runs
 * of up to 16 by insertion, longer ones by merging sorted halves. */
static void ev_insertion_sort(struct ev *v, int32_t n)
{
	for (int32_t i = 1; i < n; i++) {
		struct ev x = v[i];
		int32_t j = i;
		for (; j > 0 && fw__ev_cmp(&x, &v[j - 1]) < 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Merge the sorted runs a[0..na) and b[0..nb) into out (a first on a
 * tie). */
static void ev_merge_into(const struct ev *a, int32_t na, const struct ev *b, int32_t nb, struct ev *out)
{
	int32_t i = 0, j = 0, k = 0;

	while (i < na && j < nb)
		out[k++] = fw__ev_cmp(&b[j], &a[i]) < 0 ? b[j++] : a[i++];
	while (i < na)
		out[k++] = a[i++];
	while (j < nb)
		out[k++] = b[j++];
}

/* The same, then the result copied back over a, which has room for
 * na + nb and may hold b right after its run. */
static void ev_merge(struct ev *a, int32_t na, const struct ev *b, int32_t nb, struct ev *out)
{
	ev_merge_into(a, na, b, nb, out);
	memcpy(a, out, (size_t)(na + nb) * sizeof *a);
}

static void ev_merge_sort(struct ev *v, struct ev *tmp, int32_t n)
{
	int32_t h = n / 2;

	if (n <= 16) {
		ev_insertion_sort(v, n);
		return;
	}
	ev_merge_sort(v, tmp, h);
	ev_merge_sort(v + h, tmp, n - h);
	ev_merge(v, h, v + h, n - h, tmp);
}

/* The radix key of e: (end - lo) * njobs + job, unique as (end, job) is
 * (jobs < njobs), and ordered as fw__ev_cmp orders them; or, for a run
 * already in job order, end - lo alone (njobs 1, jmask 0): a stable sort
 * by end keeps the jobs of one end in order. */
static inline uint64_t ev_key(const struct ev *e, fw_time lo, uint64_t njobs, uint64_t jmask)
{
	return ((uint64_t)e->end - (uint64_t)lo) * njobs + ((uint64_t)e->job & jmask);
}

/* Every pass's bucket starts from one read of v: at[p][b] is where the
 * keys whose byte p is b go.  One key per element here and one per
 * element in each pass's scatter (earlier, two per element and pass). */
static void ev_count(const struct ev *v, int32_t n, fw_time lo, uint64_t njobs, uint64_t jmask, int npass,
		     int32_t at[][257])
{
	for (int p = 0; p < npass; p++)
		memset(at[p], 0, sizeof at[p]);
	for (int32_t i = 0; i < n; i++) {
		uint64_t k = ev_key(&v[i], lo, njobs, jmask);
		for (int p = 0; p < npass; p++)
			at[p][(k >> (8 * p) & 0xff) + 1]++;
	}
	for (int p = 0; p < npass; p++)
		for (int b = 0; b < 256; b++)
			at[p][b + 1] += at[p][b];
}

/* Sort v[0..n) by (end, job), jobs < njobs.  A long run is sorted by
 * its key (ev_key), one byte a pass, least significant first (stable;
 * each pass from v to tmp or back, one copy at the end after an odd
 * number), with as many passes as the largest key needs.  The running
 * jobs come in job order, so their key is the end alone: ~3 passes over
 * the 20,000 running jobs of the benchmark (5 with the job in the key)
 * instead of 15 levels of merging.  The key is unique, or ties keep job
 * order, so the order is the merge sort's (used for short runs and when
 * the key would not fit 64 bits). */
static void ev_sort(struct ev *v, struct ev *tmp, int32_t n, int32_t njobs)
{
	fw_time lo = INT64_MAX, hi = INT64_MIN;
	uint64_t m = (uint64_t)njobs, jmask = UINT64_MAX;
	int32_t at[8][257];
	int npass = 0;
	bool by_job = true;

	for (int32_t i = 0; i < n; i++) {
		lo = v[i].end < lo ? v[i].end : lo;
		hi = v[i].end > hi ? v[i].end : hi;
		by_job = by_job && (i == 0 || v[i].job > v[i - 1].job);
	}
	if (by_job) /* the key is the end alone */
		m = 1, jmask = 0;
	if (n < 256 || ((uint64_t)hi - (uint64_t)lo) > (UINT64_MAX - m) / m) {
		ev_merge_sort(v, tmp, n);
		return;
	}
	/* the largest key, + 1 as before: passes while a byte of it is left */
	for (uint64_t max = ((uint64_t)hi - (uint64_t)lo) * m + m; max; max >>= 8)
		npass++;
	ev_count(v, n, lo, m, jmask, npass, at);
	struct ev *src = v, *dst = tmp; /* each pass from one to the other */
	for (int p = 0; p < npass; p++) {
		for (int32_t i = 0; i < n; i++)
			dst[at[p][ev_key(&src[i], lo, m, jmask) >> (8 * p) & 0xff]++] = src[i];
		struct ev *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, (size_t)n * sizeof *v);
}

/* When a running job is expected to end: at its expected end
 * (fw__job_end); once past it, still running, as long again from now as
 * it has run (the longer a job has overrun, the longer it is likely to
 * go on), but no later than its run-time limit, where the cycle ends it.
 * Not "now" for ever: a reservation on its node at now would read "in 0
 * s" cycle after cycle while the node's other GPUs, held for it, stayed
 * idle; from its expected end on, a job that ends before it backfills
 * them. */
static fw_time running_end(const struct cyc *y, const struct fw_job *job)
{
	fw_time end = fw__job_end(y, job, job->start_time), now = y->s->now, m = fw__limit(y, job);
	fw_time ran = now - job->start_time;

	if (end == FW__NEVER || end >= now)
		return end;
	end = ran < FW__NEVER - now ? now + ran : FW__NEVER;
	if (m > 0 && m < FW__NEVER - job->start_time && job->start_time + m < end)
		end = job->start_time + m;
	return end > now ? end : now + 1;
}

/* Running jobs of the snapshot, by end time: the same for every
 * reservation of the cycle, so sorted once and kept in y. */
static int running_events(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	struct ev *v, *tmp;
	int32_t n = 0;

	if (y->ev_run)
		return FW_OK;
	/* written before read: no zeroing of 24 bytes per job */
	v = FW_ARENA_RAW(y->a, struct ev, s->njobs + 1);
	tmp = FW_ARENA_RAW(y->a, struct ev, s->njobs + 1);
	if (!v || !tmp)
		return FW_ENOMEM;
	for (int32_t j = 0, ahead = 0; j < s->njobs; j++) {
		/* prefetch the records of the next running jobs (the compact
		 * summary says which: no record miss for the pending ones) */
		for (ahead = ahead > j ? ahead : j + 1; ahead < s->njobs && ahead < j + 4 * FW__AHEAD; ahead++)
			if (!y->ji[ahead].pending)
				FW__PREFETCH(&s->jobs[ahead], 0);
		if (y->ji[j].pending || (y->evicted && y->evicted[j]))
			continue;
		const struct fw_job *job = &s->jobs[j];
		fw_time end = running_end(y, job);
		if (end == FW__NEVER)
			continue;
		v[n++] = (struct ev){ .end = end, .job = j,
				      .tasks = s->allocs + job->alloc_first, .ntasks = job->alloc_count };
	}
	ev_sort(v, tmp, n, s->njobs);
	y->ev_run = v;
	y->nev_run = n;
	return FW_OK;
}

/* This cycle's starts by end time: the ones made since the last
 * reservation are sorted and merged into the sorted rest. */
static int start_events(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	int32_t n0 = y->nev_st;

	if (!y->ev_st) {
		y->ev_st = FW_ARENA_RAW(y->a, struct ev, s->njobs + 1);
		y->ev_tmp = FW_ARENA_RAW(y->a, struct ev, s->njobs + 1);
		if (!y->ev_st || !y->ev_tmp)
			return FW_ENOMEM;
	}
	for (; y->ev_seen < y->ndec; y->ev_seen++) {
		const struct fw_decision *dc = &y->dec[y->ev_seen];
		/* a drain's DRAIN decision names no job (-1) */
		if (y->ev_seen + FW__AHEAD < y->ndec && y->dec[y->ev_seen + FW__AHEAD].job >= 0)
			FW__PREFETCH(&s->jobs[y->dec[y->ev_seen + FW__AHEAD].job], 0);
		if (dc->kind != FW_DECIDE_START || fw__runtime(y, &s->jobs[dc->job]) <= 0)
			continue;
		y->ev_st[y->nev_st++] = (struct ev){ .end = fw__job_end(y, &s->jobs[dc->job], s->now),
						     .job = dc->job, .tasks = y->dec_tasks[y->ev_seen],
						     .ntasks = dc->alloc_count };
	}
	ev_sort(y->ev_st + n0, y->ev_tmp, y->nev_st - n0, s->njobs);
	if (n0 > 0 && y->nev_st > n0 && fw__ev_cmp(&y->ev_st[n0], &y->ev_st[n0 - 1]) < 0) {
		struct ev *merged = y->ev_tmp; /* the two buffers trade places: no copy back */
		ev_merge_into(y->ev_st, n0, y->ev_st + n0, y->nev_st - n0, merged);
		y->ev_tmp = y->ev_st;
		y->ev_st = merged;
	}
	return FW_OK;
}

void fw__resv_release(struct fw__cstate *c, const struct fw_job *j, const struct ev *e)
{
	for (int32_t k = 0; k < e->ntasks; k++) {
		const struct fw_task_alloc *a = &e->tasks[k];
		struct fw__node *n = &c->nodes[a->node];
		int32_t old = n->whole_free;
		FW__FOR_EACH_GPU(g, a->gpu_mask)
			n->used[g] = (int16_t)(n->used[g] - a->gpu_milli);
		n->cpu_free += j->groups[a->group].cpu_milli;
		n->mem_free += j->groups[a->group].mem_mib;
		n->whole_free = fw__node_whole_free(c, a->node);
		fw__domain_node_changed(c, a->node, old);
	}
}

/* Remember when reservation (job jx, tasks) gives its nodes back: its
 * job's expected end, in y->ev_un's time order (none if it never ends). */
static int unhold_event(struct cyc *y, int32_t jx, fw_time end, const struct fw__placement *p)
{
	int32_t attempts, k;

	if (end == FW__NEVER)
		return FW_OK;
	if (!y->ev_un) {
		fw__resv_depth(y, &attempts); /* no more reservations than attempts */
		if (!(y->ev_un = FW_ARENA_NEW(y->a, struct ev, (size_t)attempts + 1)))
			return FW_ENOMEM;
	}
	struct ev x = { .end = end, .job = jx, .tasks = p->tasks, .ntasks = p->ntasks };
	for (k = y->nev_un++; k > 0 && fw__ev_cmp(&x, &y->ev_un[k - 1]) < 0; k--)
		y->ev_un[k] = y->ev_un[k - 1];
	y->ev_un[k] = x;
	return FW_OK;
}

static int hold(struct cyc *y, int32_t jx, fw_time at, const struct fw__placement *p)
{
	struct fw_decision *d = &y->dec[y->ndec];
	fw_time end = fw__job_end(y, &y->s->jobs[jx], at);

	for (int32_t k = 0; k < p->ntasks; k++) {
		int32_t n = p->tasks[k].node;
		if (fw__away(&y->c, n))
			y->c.away[n] = 2; /* a reserved node in later clones */
		if (at < y->c.resv_until[n]) {
			y->c.resv_until[n] = at;
			y->c.resv_job[n] = jx;
		}
		if (end > y->c.resv_end[n])
			y->c.resv_end[n] = end;
	}
	memset(d, 0, sizeof *d);
	d->kind = FW_DECIDE_RESERVE;
	d->reason = FW_REASON_HAS_RESERVATION;
	d->job = jx;
	d->node = -1;
	d->at = at;
	d->alloc_count = p->ntasks;
	d->a = at;
	d->b = at - y->s->now;
	y->dec_tasks[y->ndec++] = p->tasks;
	if (y->nresv++ == 0 || at < y->first_resv_at) {
		y->first_resv_job = jx;
		y->first_resv_at = at;
	}
	return unhold_event(y, jx, end, p);
}

/* The largest usable node (now, or once back), per GPU model and over
 * all: the bound one task must fit under (computed once per cycle, with
 * model_cap). */
static int node_bounds(struct cyc *y)
{
	const struct fw__cstate *c = &y->c;
	struct fw__bounds *bd = &y->bounds;

	if (y->model_cap)
		return FW_OK;
	y->model_cap = FW_ARENA_NEW(y->a, int64_t, c->nmodels + 1);
	bd->model_node = FW_ARENA_NEW(y->a, int64_t, c->nmodels + 1);
	if (!y->model_cap || !bd->model_node)
		return FW_ENOMEM;
	for (int32_t n = 0; n < c->nn; n++) {
		const struct fw_node *sn = &y->s->nodes[n];
		if (!fw__indexed(&c->nodes[n])) /* usable, now or once back */
			continue;
		bd->cpu = sn->cpu_milli > bd->cpu ? sn->cpu_milli : bd->cpu;
		bd->mem = sn->mem_mib > bd->mem ? sn->mem_mib : bd->mem;
		if (c->nodes[n].model < 0)
			continue;
		int64_t good = 0;
		for (int g = 0; g < sn->gpu_count; g++)
			good += !(sn->bad_gpu_mask & (1u << g));
		y->model_cap[c->nodes[n].model] += good;
		if (good > bd->model_node[c->nodes[n].model])
			bd->model_node[c->nodes[n].model] = good;
		bd->gpus = good > bd->gpus ? good : bd->gpus;
	}
	return FW_OK;
}

static void never(struct fw__hopeless *h, enum fw_reason why, int64_t need, int64_t cap)
{
	h->never = true;
	h->why = why;
	h->need = need;
	h->cap = cap;
}

/* Could one task of every group land on some usable node: GPUs (of its
 * model), CPU and memory each within the largest node's?  Each bound on
 * its own: necessary, not sufficient. */
static void task_bounds(const struct cyc *y, const struct fw_job *job, struct fw__hopeless *h)
{
	const struct fw__bounds *bd = &y->bounds;

	for (int g = 0; g < job->ngroups && !h->never; g++) {
		const struct fw_task_group *t = &job->groups[g];
		int32_t m = t->gpu_model[0] ? fw__model_id(&y->c, t->gpu_model) : -1;
		int64_t gmax = !t->gpu_model[0] ? bd->gpus : m < 0 ? 0 : bd->model_node[m];
		if (t->gpus > 0 && t->gpus > gmax)
			never(h, FW_REASON_NEVER_FITS, t->gpus, gmax);
		else if (t->cpu_milli > bd->cpu)
			never(h, FW_REASON_TASK_CPU, t->cpu_milli, bd->cpu);
		else if (t->mem_mib > bd->mem)
			never(h, FW_REASON_TASK_MEM, t->mem_mib, bd->mem);
	}
}

/* Can the gang never fit, not even with every job ended?  O(1) necessary
 * conditions per group: a domain of its required level that has the
 * GPUs, enough GPUs of each model it names (its whole GPUs, plus its
 * fractional tasks' milli rounded up to GPUs: fractions share a GPU),
 * and a node that could hold one task.  Without them the walk below would search once per end time
 * and fail every time. */
int fw__resv_hopeless(struct cyc *y, const struct fw_job *job, int64_t need, struct fw__hopeless *h)
{
	const struct fw__cstate *c = &y->c;
	int32_t L = y->s->topology.nlevels;
	int rc;

	*h = (struct fw__hopeless){ false, FW_REASON_NONE, need, 0 };
	if (job->required_level != FW_LEVEL_NONE) {
		int32_t dl = job->required_level == FW_LEVEL_NODE ? L + 1 : job->required_level + 1;
		if (need > c->lvl[dl].maxcap) {
			never(h, FW_REASON_NEVER_FITS, fw_job_gpus(job), c->lvl[dl].maxcap);
			return FW_OK;
		}
	}
	if ((rc = node_bounds(y)) != FW_OK)
		return rc;
	for (int g = 0; g < job->ngroups; g++) {
		const struct fw_task_group *t = &job->groups[g];
		if (!t->gpu_model[0] || !t->gpus)
			continue;
		int32_t m = fw__model_id(c, t->gpu_model);
		int64_t want = 0, milli = 0;
		for (int k = 0; k < job->ngroups; k++) {
			const struct fw_task_group *u = &job->groups[k];
			if (!u->gpus || strcmp(u->gpu_model, t->gpu_model) != 0)
				continue;
			if (u->gpu_milli == 1000)
				want += (int64_t)u->count * u->gpus;
			else /* fractions share GPUs: their milli, in GPUs */
				milli += (int64_t)u->count * u->gpu_milli;
		}
		want += (milli + 999) / 1000;
		if (fw_job_min_tasks(job) < fw_job_tasks(job))
			want = 1; /* elastic: at least one task */
		if (m < 0 || y->model_cap[m] < want) {
			never(h, FW_REASON_NEVER_FITS, fw_job_gpus(job), m < 0 ? 0 : y->model_cap[m]);
			return FW_OK;
		}
	}
	task_bounds(y, job, h);
	return FW_OK;
}

int fw__resv_events(struct cyc *y)
{
	int rc = running_events(y);

	return rc != FW_OK ? rc : start_events(y);
}

/* ---- the walk: four event streams in time order ------------------------- */

static int ev_qcmp(const void *a, const void *b)
{
	return fw__ev_cmp(a, b);
}

/* The returning nodes and the away nodes that come back (cstate.h) by
 * back_at, then node (an event's job is its node: unique, so the order
 * is total): one event each, its task naming the node.  Once per cycle. */
static int back_events(struct cyc *y)
{
	const struct fw_snapshot *s = y->s;
	struct fw_task_alloc *at;
	int32_t n = 0;

	if (y->ev_back)
		return FW_OK;
	y->ev_back = FW_ARENA_RAW(y->a, struct ev, (size_t)s->nnodes + 1);
	at = FW_ARENA_NEW(y->a, struct fw_task_alloc, (size_t)s->nnodes + 1);
	if (!y->ev_back || !at)
		return FW_ENOMEM;
	for (int32_t i = 0; i < s->nnodes; i++) {
		if (!y->c.nodes[i].returning && !(fw__away(&y->c, i) && s->nodes[i].back_at > s->now))
			continue;
		at[n].node = i;
		y->ev_back[n] = (struct ev){ .end = s->nodes[i].back_at, .job = i, .tasks = &at[n], .ntasks = 1 };
		n++;
	}
	qsort(y->ev_back, (size_t)n, sizeof *y->ev_back, ev_qcmp);
	y->nev_back = n;
	return FW_OK;
}

int fw__walk_init(struct cyc *y, struct fw__stream st[FW__NSTREAMS])
{
	int rc = fw__resv_events(y);

	if (rc == FW_OK)
		rc = back_events(y);
	if (rc != FW_OK)
		return rc;
	if (!y->step_node) {
		y->step_node = FW_ARENA_NEW(y->a, int32_t, (size_t)y->c.nn + 1);
		y->step_stamp = FW_ARENA_NEW(y->a, int32_t, (size_t)y->c.nn + 1);
		if (!y->step_node || !y->step_stamp)
			return FW_ENOMEM;
	}
	st[0] = (struct fw__stream){ y->ev_run, y->nev_run, 0 };
	st[1] = (struct fw__stream){ y->ev_st, y->nev_st, 0 };
	st[2] = (struct fw__stream){ y->ev_un, y->nev_un, 0 };
	st[3] = (struct fw__stream){ y->ev_back, y->nev_back, 0 };
	return FW_OK;
}

fw_time fw__walk_next(const struct fw__stream st[FW__NSTREAMS])
{
	fw_time t = FW__NEVER;

	for (int k = 0; k < FW__NSTREAMS; k++)
		if (st[k].i < st[k].n && st[k].v[st[k].i].end < t)
			t = st[k].v[st[k].i].end;
	return t;
}

static void step_changed(struct cyc *y, int32_t n)
{
	if (y->step_stamp[n] != y->step) {
		y->step_stamp[n] = y->step;
		y->step_node[y->nstep_node++] = n;
	}
}

/* Node n of the clone takes work again (at the walk's time), with
 * whatever has ended on it meanwhile. */
static void back_in(struct cyc *y, struct fw__cstate *cl, int32_t n)
{
	cl->nodes[n].usable = true;
	cl->nodes[n].whole_free = fw__node_whole_free(cl, n);
	fw__domain_node_changed(cl, n, 0);
	step_changed(y, n);
}

/* A reservation's nodes were unusable in the clone (fw__resv_clone); each
 * is an ordinary node again once the last reservation holding it has
 * ended (resv_end), if it takes work by then (usable now, or back). */
static void unhold(struct cyc *y, struct fw__cstate *cl, const struct ev *x)
{
	const struct fw__cstate *real = &y->c;

	for (int32_t k = 0; k < x->ntasks; k++) {
		int32_t n = x->tasks[k].node;
		bool back = real->nodes[n].returning && y->s->nodes[n].back_at <= x->end;
		if (cl->nodes[n].usable || !(real->nodes[n].usable || back) || x->end < real->resv_end[n])
			continue;
		back_in(y, cl, n);
	}
}

/* A returning or away node is back (x names it): usable in the clone,
 * unless a reservation on it ends later: that end (unhold) brings it
 * back. */
static void node_back(struct cyc *y, struct fw__cstate *cl, const struct ev *x)
{
	int32_t n = x->tasks[0].node;

	if (!cl->nodes[n].usable && (y->c.resv_until[n] == FW__NEVER || y->c.resv_end[n] <= x->end))
		back_in(y, cl, n);
	else if (cl->nodes[n].usable && fw__away(cl, n))
		step_changed(y, n); /* kept off it by keep_away until now */
}

void fw__walk_release(struct cyc *y, struct fw__cstate *cl, struct fw__stream st[FW__NSTREAMS], fw_time t)
{
	y->step++;
	y->nstep_node = 0;
	for (int k = 0; k < FW__NSTREAMS; k++) {
		for (; st[k].i < st[k].n && st[k].v[st[k].i].end == t; st[k].i++) {
			const struct ev *x = &st[k].v[st[k].i];
			if (k == 2 || k == 3) {
				(k == 2 ? unhold : node_back)(y, cl, x);
				continue;
			}
			fw__resv_release(cl, &y->s->jobs[x->job], x);
			for (int32_t i = 0; i < x->ntasks; i++)
				step_changed(y, x->tasks[i].node);
		}
	}
}

void fw__walk_step_node(struct cyc *y, int32_t n)
{
	step_changed(y, n);
}

void fw__walk_release_one(struct cyc *y, struct fw__cstate *cl, const struct ev *x)
{
	fw__resv_release(cl, &y->s->jobs[x->job], x);
	for (int32_t i = 0; i < x->ntasks; i++)
		step_changed(y, x->tasks[i].node);
}

int64_t fw__gang_need(const struct fw_job *job)
{
	int64_t need = 0;

	for (int g = 0; g < job->ngroups && fw_job_min_tasks(job) == fw_job_tasks(job); g++)
		if (job->groups[g].gpu_milli == 1000)
			need += (int64_t)job->groups[g].gpus * job->groups[g].count;
	return need;
}

int fw__reserve(struct cyc *y, int32_t jx)
{
	const struct fw_job *job = &y->s->jobs[jx];
	struct fw__cstate clone;
	struct fw__placement p;
	struct fw__stream st[FW__NSTREAMS];
	struct fw__hopeless h;
	struct fw_pending scratch;
	int64_t need = fw__gang_need(job);
	uint64_t open;
	fw_time t;
	int rc;

	y->resv_attempts++;
	if (!fw__mlim_gate(y, jx, &open, &scratch))
		return FW_EDECLINED; /* allocate reserves for no such job; a caller's guard */
	if ((rc = fw__resv_clone(y, &clone, &y->c)) != FW_OK || (rc = fw__walk_init(y, st)) != FW_OK)
		return rc;
	if ((rc = fw__resv_hopeless(y, job, need, &h)) != FW_OK)
		return rc;
	if (h.never)
		return FW_EDECLINED;
	/* every event of one time released before the search, in (end, job)
	 * order within each stream; once a search has failed, a job of one
	 * task is searched for again only when a node the step changed can
	 * take it (nothing else changed) */
	bool one = fw_job_tasks(job) == 1 && open == fw__mlim_all(y), failed = false;
	while ((t = fw__walk_next(st)) != FW__NEVER) {
		fw__walk_release(y, &clone, st, t);
		if (clone.dom[0].free_whole < need)
			continue; /* not enough free GPUs yet: skip the search */
		struct fw__place_opts o = { .end = fw__job_end(y, job, t), .ignore_resv = true, .keep_away = true,
					    .start = t, .dry = true };
		if (one && failed && !fw__place_one_fits(&clone, jx, &o, y->step_node, y->nstep_node))
			continue;
		rc = fw__place_gated(&clone, jx, &o, open, &p); /* its open models, by what its queues hold now */
		if (rc == FW_OK)
			return hold(y, jx, t, &p);
		if (rc != FW_EDECLINED)
			return rc;
		failed = true;
	}
	return FW_EDECLINED;
}
