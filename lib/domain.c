/*
 * domain.c — per-cycle node state and the topology domain index.
 *
 * Build (once per cycle, O(N log N) for N nodes):
 *   1. models:  distinct GPU model names, in first-seen node order;
 *   2. usage:   per-GPU milli, CPU and memory used, from running jobs;
 *   3. order:   node indices sorted by topology path, then node index;
 *   4. domains: one per distinct path prefix per level, ids level-major so
 *               each level's domains are a contiguous id range;
 *   5. index:   per level, buckets by free whole GPUs (see cstate.h).
 *
 * Update (each placement): fw__domain_node_changed() walks the node's
 * domain chain (L+2 domains) and moves each between buckets: O(levels).
 *
 * Query: fw__domain_first() finds the first non-empty bucket >= need with
 * a word-at-a-time bitmap scan; ties inside a bucket go in list order
 * (domains enter a bucket at the tail, so initially in id order).
 * Honest note: the scan is O(maxcap/64) words per query; at 10,000 nodes x
 * 8 GPUs the root level has one domain and the rack level a few hundred
 * buckets, so this is a handful of words.
 */
#include <string.h>

#include "cstate.h"

int32_t fw__model_id(const struct fw__cstate *c, const char *name)
{
	for (int32_t i = 0; i < c->nmodels; i++)
		if (strcmp(c->models[i], name) == 0)
			return i;
	return -1;
}

static int build_models(struct fw__cstate *c)
{
	const struct fw_snapshot *s = c->s;

	/* sized for a model per node, but only the nmodels written are read,
	 * so not zeroed (64 bytes a node, each cycle) */
	c->models = fw_arena_alloc_raw(c->arena, ((size_t)s->nnodes + 1) * FW_NAME_MAX);
	if (!c->models)
		return FW_ENOMEM;
	for (int32_t i = 0; i < s->nnodes; i++) {
		const struct fw_node *n = &s->nodes[i];
		int32_t m = n->gpu_count ? fw__model_id(c, n->gpu_model) : -1;
		if (n->gpu_count && m < 0) {
			m = c->nmodels++;
			memcpy(c->models[m], n->gpu_model, FW_NAME_MAX);
		}
		c->nodes[i].model = m;
	}
	c->model_free_initial = FW_ARENA_NEW(c->arena, int64_t, (size_t)c->nmodels + 1);
	c->model_hist = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nmodels * FW__HIST + 1);
	return c->model_free_initial && c->model_hist ? FW_OK : FW_ENOMEM;
}

int32_t fw__node_whole_free(const struct fw__cstate *c, int32_t n)
{
	const struct fw_node *sn = &c->s->nodes[n];
	const struct fw__node *cn = &c->nodes[n];
	int32_t k = 0;

	if (!cn->usable)
		return 0;
	for (int g = 0; g < sn->gpu_count; g++)
		if (!(sn->bad_gpu_mask & (1u << g)) && cn->used[g] == 0)
			k++;
	return k;
}

/* Away nodes (cstate.h) are held from the start, as if reserved at their
 * away_at until their back_at. */
static int hold_away(struct fw__cstate *c)
{
	const struct fw_snapshot *s = c->s;

	c->away = NULL;
	c->naway = 0;
	for (int32_t i = 0; i < s->nnodes; i++) {
		if (!c->nodes[i].usable || s->nodes[i].away_at <= s->now)
			continue;
		if (!c->away && !(c->away = FW_ARENA_NEW(c->arena, uint8_t, (size_t)s->nnodes)))
			return FW_ENOMEM;
		c->away[i] = 1;
		c->resv_until[i] = s->nodes[i].away_at;
		c->resv_end[i] = s->nodes[i].back_at > s->now ? s->nodes[i].back_at : FW__NEVER;
		c->naway++;
	}
	return FW_OK;
}

static void apply_running(struct fw__cstate *c)
{
	const struct fw_snapshot *s = c->s;

	for (int32_t i = 0; i < s->nnodes; i++) {
		memset(c->nodes[i].used, 0, sizeof c->nodes[i].used);
		c->nodes[i].cpu_free = s->nodes[i].cpu_milli;
		c->nodes[i].mem_free = s->nodes[i].mem_mib;
		c->nodes[i].usable = s->nodes[i].schedulable && s->nodes[i].health != FW_HEALTH_UNHEALTHY &&
				     s->nodes[i].health != FW_HEALTH_DRAINING;
		c->nodes[i].returning = !c->nodes[i].usable && s->nodes[i].back_at > s->now;
		c->nodes[i].suspect = s->nodes[i].health == FW_HEALTH_SUSPECT || s->nodes[i].suspect_gpu_mask;
		c->nodes[i].lemon = s->nodes[i].lemon;
	}
	for (int32_t j = 0; j < s->njobs; j++) {
		const struct fw_job *job = &s->jobs[j];
		if (job->state != FW_JOB_RUNNING || (c->ended && c->ended[j]))
			continue;
		for (int32_t k = 0; k < job->alloc_count; k++) {
			const struct fw_task_alloc *a = &s->allocs[job->alloc_first + k];
			struct fw__node *n = &c->nodes[a->node];
			const struct fw_task_group *t = &job->groups[a->group];
			FW__FOR_EACH_GPU(g, a->gpu_mask)
				n->used[g] = (int16_t)(n->used[g] + a->gpu_milli);
			n->cpu_free -= t->cpu_milli;
			n->mem_free -= t->mem_mib;
		}
	}
	for (int32_t i = 0; i < s->nnodes; i++)
		c->nodes[i].whole_free = fw__node_whole_free(c, i);
}

/* Order nodes by path (level by level), then by index: a stable merge sort
 * on int32 indices so the result never depends on qsort's tie behaviour. */
static int path_cmp(const struct fw_snapshot *s, int32_t a, int32_t b)
{
	for (int l = 0; l < s->topology.nlevels; l++) {
		int r = strcmp(s->nodes[a].path[l], s->nodes[b].path[l]);
		if (r)
			return r;
	}
	return (a > b) - (a < b);
}

static void merge_sort(const struct fw_snapshot *s, int32_t *v, int32_t *tmp, int32_t n)
{
	int32_t h, i, j, k;

	if (n < 2)
		return;
	h = n / 2;
	merge_sort(s, v, tmp, h);
	merge_sort(s, v + h, tmp, n - h);
	if (path_cmp(s, v[h - 1], v[h]) <= 0)
		return; /* halves already in order: adapters usually list nodes sorted */
	for (i = 0, j = h, k = 0; i < h && j < n;)
		tmp[k++] = path_cmp(s, v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* diff[i]: the first topology level at which node order[i]'s path
 * differs from node order[i-1]'s (L when equal; 0 for the first node).
 * Node order[i] starts a new domain at level l iff diff[i] <= l. */
static void path_diffs(const struct fw__cstate *c, int8_t *diff)
{
	const struct fw_snapshot *s = c->s;
	int L = s->topology.nlevels;

	for (int32_t i = 0; i < c->nn; i++) {
		int k = 0;
		if (i > 0)
			while (k < L && !strcmp(s->nodes[c->order[i]].path[k], s->nodes[c->order[i - 1]].path[k]))
				k++;
		diff[i] = (int8_t)k;
	}
}

static int build_domains(struct fw__cstate *c)
{
	int32_t L = c->s->topology.nlevels, nn = c->nn;
	int32_t count[FW_MAX_LEVELS + 2] = { 0 }, base[FW_MAX_LEVELS + 2];
	int32_t cur[FW_MAX_LEVELS + 2];
	int8_t *diff = FW_ARENA_RAW(c->arena, int8_t, nn + 1); /* path_diffs writes each */

	if (!diff)
		return FW_ENOMEM;
	path_diffs(c, diff);
	c->ndl = L + 2;
	count[0] = 1;
	count[L + 1] = nn;
	for (int l = 0; l < L; l++)
		for (int32_t i = 0; i < nn; i++)
			count[l + 1] += diff[i] <= l;
	c->ndom = 0;
	for (int dl = 0; dl < c->ndl; dl++) {
		base[dl] = c->ndom;
		c->ndom += count[dl];
		cur[dl] = base[dl] - 1;
	}
	c->dom = FW_ARENA_RAW(c->arena, struct fw__domain, c->ndom); /* each written when fresh */
	if (!c->dom)
		return FW_ENOMEM;
	/* the root, empty, for a snapshot with no nodes (else node 0 opens it) */
	c->dom[0] = (struct fw__domain){ .level = 0, .parent = -1, .prev = -1, .next = -1 };
	for (int32_t i = 0; i < nn; i++) {
		for (int dl = 0; dl < c->ndl; dl++) {
			bool fresh = dl == 0 ? i == 0 : dl == L + 1 ? true : diff[i] <= dl - 1;
			if (fresh) /* sums and histogram from zero; links set by build_index */
				c->dom[++cur[dl]] = (struct fw__domain){
					.level = dl, .parent = dl ? cur[dl - 1] : -1, .first = i, .prev = -1, .next = -1
				};
			c->dom[cur[dl]].last = i + 1;
		}
		c->nodes[c->order[i]].dom = cur[L + 1];
	}
	for (int dl = 0; dl < c->ndl; dl++) {
		c->lvl[dl].first_dom = base[dl];
		c->lvl[dl].ndom = count[dl];
	}
	return FW_OK;
}

static void add_node_aggregates(struct fw__cstate *c, int32_t n)
{
	const struct fw_node *sn = &c->s->nodes[n];
	struct fw__node *cn = &c->nodes[n];
	int32_t good = 0;

	if (!fw__indexed(cn))
		return;
	for (int g = 0; g < sn->gpu_count; g++)
		good += !(sn->bad_gpu_mask & (1u << g));
	for (int32_t d = cn->dom; d >= 0; d = c->dom[d].parent) {
		c->dom[d].free_whole += cn->whole_free;
		c->dom[d].cap_whole += good;
		c->dom[d].hist[cn->whole_free]++;
	}
}

/* List a written record for the next reservation clone (cstate.h). */
static void changed_node(struct fw__cstate *c, int32_t n)
{
	struct fw__changes *x = c->chg;

	if (!x || x->full_node || x->node_in[n])
		return;
	if (x->nnode == x->cap_node) {
		x->full_node = true;
		return;
	}
	x->node_in[n] = 1;
	x->node[x->nnode++] = n;
}

static void changed_dom(struct fw__cstate *c, int32_t d)
{
	struct fw__changes *x = c->chg;

	if (!x || x->full_dom || d < 0 || x->dom_in[d])
		return;
	if (x->ndom == x->cap_dom) {
		x->full_dom = true;
		return;
	}
	x->dom_in[d] = 1;
	x->dom[x->ndom++] = d;
}

static void bucket_insert(struct fw__cstate *c, int32_t d)
{
	struct fw__level_index *x = &c->lvl[c->dom[d].level];
	int32_t k = c->dom[d].free_whole;

	changed_dom(c, x->tail[k]);
	c->dom[d].next = -1;
	c->dom[d].prev = x->tail[k];
	if (x->tail[k] >= 0)
		c->dom[x->tail[k]].next = d;
	else
		x->head[k] = d;
	x->tail[k] = d;
	x->bits[k >> 6] |= (uint64_t)1 << (k & 63);
}

static void bucket_remove(struct fw__cstate *c, int32_t d)
{
	struct fw__level_index *x = &c->lvl[c->dom[d].level];
	struct fw__domain *p = &c->dom[d];
	int32_t k = p->free_whole;

	changed_dom(c, p->prev);
	changed_dom(c, p->next);
	if (p->prev >= 0)
		c->dom[p->prev].next = p->next;
	else
		x->head[k] = p->next;
	if (p->next >= 0)
		c->dom[p->next].prev = p->prev;
	else
		x->tail[k] = p->prev;
	if (x->head[k] < 0)
		x->bits[k >> 6] &= ~((uint64_t)1 << (k & 63));
}

static int build_index(struct fw__cstate *c)
{
	for (int dl = 0; dl < c->ndl; dl++) {
		struct fw__level_index *x = &c->lvl[dl];
		int32_t maxcap = 0, maxfree = 0;
		for (int32_t d = x->first_dom; d < x->first_dom + x->ndom; d++) {
			if (c->dom[d].cap_whole > maxcap)
				maxcap = c->dom[d].cap_whole;
			if (c->dom[d].free_whole > maxfree)
				maxfree = c->dom[d].free_whole;
		}
		x->maxcap = maxcap;
		x->max_free_initial = maxfree;
		x->nwords = maxcap / 64 + 1;
		x->head = FW_ARENA_RAW(c->arena, int32_t, maxcap + 1); /* all -1 below */
		x->tail = FW_ARENA_RAW(c->arena, int32_t, maxcap + 1);
		x->bits = FW_ARENA_NEW(c->arena, uint64_t, x->nwords);
		if (!x->head || !x->tail || !x->bits)
			return FW_ENOMEM;
		memset(x->head, 0xff, (size_t)(maxcap + 1) * sizeof(int32_t));
		memset(x->tail, 0xff, (size_t)(maxcap + 1) * sizeof(int32_t));
		for (int32_t d = x->first_dom; d < x->first_dom + x->ndom; d++)
			bucket_insert(c, d);
	}
	return FW_OK;
}

/* What health takes away, for the HEALTH reason (allocate.c). */
static void record_health(struct fw__cstate *c, int32_t i)
{
	const struct fw_node *sn = &c->s->nodes[i];
	const struct fw__node *n = &c->nodes[i];
	int32_t bad = __builtin_popcount(sn->bad_gpu_mask & ((1u << sn->gpu_count) - 1));

	c->out_of_service += sn->health == FW_HEALTH_UNHEALTHY || sn->health == FW_HEALTH_DRAINING;
	c->suspect_back += n->returning && n->suspect;
	c->lemon_back += n->returning && n->lemon;
	if (!sn->gpu_count || !sn->schedulable)
		return;
	c->gpu_nodes++;
	if (!n->usable) {
		int32_t idle = 0;
		for (int g = 0; g < sn->gpu_count; g++)
			idle += n->used[g] == 0;
		c->unhealthy_nodes++;
		c->health_lost_free += idle;
		return;
	}
	c->health_lost_free += bad;
	c->unhealthy_nodes += bad > 0;
	if (n->suspect) {
		c->suspect_nodes++;
		c->suspect_free += n->whole_free;
	}
	c->lemon_nodes += n->lemon;
}

static void record_initial(struct fw__cstate *c)
{
	const struct fw_snapshot *s = c->s;

	memcpy(c->root_hist_initial, c->dom[0].hist, sizeof c->root_hist_initial);
	c->root_free_initial = c->dom[0].free_whole;
	c->capacity = fw_res_zero();
	c->suspect_gang = s->config.suspect_gang_gpus > 0 ? s->config.suspect_gang_gpus : 16;
	c->lemon_gang = s->config.lemon_gang_gpus > 0 ? s->config.lemon_gang_gpus : 64;
	for (int32_t i = 0; i < c->nn; i++) {
		const struct fw__node *n = &c->nodes[i];
		record_health(c, i);
		if (n->returning && n->model >= 0) /* none free now: listed for a walk's clone */
			c->model_hist[n->model * FW__HIST]++;
		if (!n->usable)
			continue;
		if (n->model >= 0) {
			c->model_free_initial[n->model] += n->whole_free;
			c->model_hist[n->model * FW__HIST + n->whole_free]++;
		}
		for (int g = 0; g < s->nodes[i].gpu_count; g++)
			if (!(s->nodes[i].bad_gpu_mask & (1u << g)))
				c->capacity.v[FW_RES_GPU] += 1000;
		c->capacity.v[FW_RES_CPU] += s->nodes[i].cpu_milli;
		c->capacity.v[FW_RES_MEM] += s->nodes[i].mem_mib;
	}
}

static void tb_insert(struct fw__cstate *c, int32_t n, int32_t k)
{
	c->tb_prev[n] = c->tb_tail[k];
	c->tb_next[n] = -1;
	if (c->tb_tail[k] >= 0)
		c->tb_next[c->tb_tail[k]] = n;
	else
		c->tb_head[k] = n;
	c->tb_tail[k] = n;
}

static void tb_remove(struct fw__cstate *c, int32_t n, int32_t k)
{
	if (c->tb_prev[n] >= 0)
		c->tb_next[c->tb_prev[n]] = c->tb_next[n];
	else
		c->tb_head[k] = c->tb_next[n];
	if (c->tb_next[n] >= 0)
		c->tb_prev[c->tb_next[n]] = c->tb_prev[n];
	else
		c->tb_tail[k] = c->tb_prev[n];
}

/* Usable suspect and lemon nodes in topology order (place.c tries them
 * first for small jobs), with their whole free GPUs, counted and listed
 * per count. */
static int build_tainted(struct fw__cstate *c)
{
	c->ntainted = 0;
	c->tainted_free = 0;
	c->tb_next = c->tb_prev = NULL;
	memset(c->tainted_hist, 0, sizeof c->tainted_hist);
	memset(c->tainted_miss, 0, sizeof c->tainted_miss);
	c->tainted_gen = 1; /* a zeroed entry never matches */
	if (!fw__any_suspect(c) && !fw__any_lemon(c))
		return FW_OK;
	c->tainted = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nn);
	c->tainted_dom = FW_ARENA_NEW(c->arena, int32_t, 4 * (size_t)c->nn);
	c->tb_next = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nn);
	c->tb_prev = FW_ARENA_NEW(c->arena, int32_t, (size_t)c->nn);
	if (!c->tainted || !c->tainted_dom || !c->tb_next || !c->tb_prev)
		return FW_ENOMEM;
	for (int k = 0; k < FW__HIST; k++)
		c->tb_head[k] = c->tb_tail[k] = -1;
	for (int32_t i = 0; i < c->nn; i++) {
		const struct fw__node *n = &c->nodes[c->order[i]];
		if (fw__indexed(n) && (n->suspect || n->lemon)) {
			c->tainted[c->ntainted++] = c->order[i];
			c->tainted_free += n->whole_free;
			c->tainted_hist[n->whole_free]++;
			tb_insert(c, c->order[i], n->whole_free);
		}
	}
	return FW_OK;
}

/* The entries past the last node of the raw per-node arrays, as they
 * read when the arrays were zeroed (a clone's spare node is too,
 * reserve.c). */
static void zero_spares(struct fw__cstate *c)
{
	memset(&c->nodes[c->nn], 0, sizeof c->nodes[0]);
	c->order[c->nn] = 0;
	c->resv_until[c->nn] = c->resv_end[c->nn] = 0;
	c->resv_job[c->nn] = 0;
}

int fw__cstate_build(struct fw__cstate *c, const struct fw_snapshot *s, struct fw_arena *a)
{
	return fw__cstate_build_ended(c, s, a, NULL);
}

int fw__cstate_build_ended(struct fw__cstate *c, const struct fw_snapshot *s, struct fw_arena *a,
			   const bool *ended)
{
	int32_t *tmp;
	int rc;

	c->s = s;
	c->ended = ended;
	c->arena = a;
	c->nn = s->nnodes;
	c->job_entry = NULL; /* no node filter until fw__filter_build */
	c->gsig = NULL;
	c->gsig_apart = NULL;
	c->ssig = NULL; /* no slices until fw__slice_build */
	c->filter_id = NULL;
	/* Per-node arrays are raw: the phases below write every node's entry,
	 * and zeroing them first was a share of every cycle's cost
	 * (docs/performance.md); zero_spares clears the entries past the end. */
	c->nodes = FW_ARENA_RAW(a, struct fw__node, s->nnodes + 1);
	c->order = FW_ARENA_RAW(a, int32_t, s->nnodes + 1);
	tmp = FW_ARENA_RAW(a, int32_t, s->nnodes + 1);
	c->lvl = FW_ARENA_NEW(a, struct fw__level_index, FW_MAX_LEVELS + 2);
	c->resv_until = FW_ARENA_RAW(a, fw_time, s->nnodes + 1);
	c->resv_end = FW_ARENA_RAW(a, fw_time, s->nnodes + 1);
	c->resv_job = FW_ARENA_RAW(a, int32_t, s->nnodes + 1);
	if (!c->nodes || !c->order || !tmp || !c->lvl || !c->resv_until || !c->resv_end || !c->resv_job)
		return FW_ENOMEM;
	zero_spares(c);
	for (int32_t i = 0; i < s->nnodes; i++) {
		c->resv_until[i] = FW__NEVER;
		c->resv_end[i] = 0;
		c->resv_job[i] = -1;
	}
	if ((rc = build_models(c)) != FW_OK)
		return rc;
	apply_running(c);
	if ((rc = hold_away(c)) != FW_OK)
		return rc;
	for (int32_t i = 0; i < s->nnodes; i++)
		c->order[i] = i;
	merge_sort(s, c->order, tmp, s->nnodes);
	if ((rc = build_domains(c)) != FW_OK)
		return rc;
	for (int32_t i = 0; i < c->nn; i++)
		add_node_aggregates(c, i);
	if ((rc = build_index(c)) != FW_OK)
		return rc;
	record_initial(c);
	return build_tainted(c);
}

void fw__domain_node_changed(struct fw__cstate *c, int32_t n, int32_t old_free)
{
	int32_t nw = c->nodes[n].whole_free;

	changed_node(c, n);
	if (nw == old_free || !c->nodes[n].usable)
		return;
	if (c->fnode_first) /* node filters: their sums and histograms */
		fw__filter_node_changed(c, n, old_free, nw);
	if (c->model_hist && c->nodes[n].model >= 0) {
		int32_t *h = &c->model_hist[c->nodes[n].model * FW__HIST];
		h[old_free]--;
		h[nw]++;
	}
	if ((c->nodes[n].suspect || c->nodes[n].lemon) && c->tb_next) {
		c->tainted_free += nw - old_free;
		c->tainted_hist[old_free]--;
		c->tainted_hist[nw]++;
		c->tainted_gen += nw > old_free;
		tb_remove(c, n, old_free);
		tb_insert(c, n, nw);
	}
	for (int32_t d = c->nodes[n].dom; d >= 0; d = c->dom[d].parent) {
		struct fw__domain *p = &c->dom[d];
		changed_dom(c, d);
		bucket_remove(c, d);
		p->hist[old_free]--;
		p->hist[nw]++;
		p->free_whole += nw - old_free;
		bucket_insert(c, d);
	}
}

static int32_t scan_up(const struct fw__level_index *x, int32_t k)
{
	if (k < 0)
		k = 0;
	if (k > x->maxcap)
		return -1;
	int32_t w = k >> 6;
	uint64_t bits = x->bits[w] & (~(uint64_t)0 << (k & 63));
	for (;;) {
		if (bits)
			return (w << 6) + __builtin_ctzll(bits);
		if (++w >= x->nwords)
			return -1;
		bits = x->bits[w];
	}
}

static int32_t scan_down(const struct fw__level_index *x, int32_t k)
{
	if (k > x->maxcap)
		k = x->maxcap;
	if (k < 0)
		return -1;
	int32_t w = k >> 6;
	int sh = 63 - (k & 63);
	uint64_t bits = (x->bits[w] << sh) >> sh;
	for (;;) {
		if (bits)
			return (w << 6) + 63 - __builtin_clzll(bits);
		if (--w < 0)
			return -1;
		bits = x->bits[w];
	}
}

int32_t fw__domain_first(const struct fw__cstate *c, int32_t dl, int32_t need, bool spread)
{
	const struct fw__level_index *x = &c->lvl[dl];
	int32_t root_free = c->dom[0].free_whole; /* no domain has more */

	if (need > root_free)
		return -1;
	int32_t k = spread ? scan_down(x, root_free) : scan_up(x, need);

	if (k < 0 || k < need)
		return -1;
	return x->head[k];
}

int32_t fw__domain_next(const struct fw__cstate *c, int32_t d, bool spread)
{
	const struct fw__domain *p = &c->dom[d];
	const struct fw__level_index *x = &c->lvl[p->level];
	int32_t k;

	if (p->next >= 0)
		return p->next;
	k = spread ? scan_down(x, p->free_whole - 1) : scan_up(x, p->free_whole + 1);
	return k < 0 ? -1 : x->head[k];
}

int64_t fw__domain_capacity(const struct fw__domain *d, int32_t g)
{
	int64_t n = 0;

	if (g <= 0)
		return INT64_MAX;
	/* k / g without a division per bucket (a hot path of placement):
	 * buckets [q*g, (q+1)*g) hold q tasks each */
	for (int q = 1, k = g; k < FW__HIST; q++)
		for (int end = k + g < FW__HIST ? k + g : FW__HIST; k < end; k++)
			n += (int64_t)d->hist[k] * q;
	return n;
}

bool fw__domain_holds(const struct fw__domain *d, int32_t g, int64_t want)
{
	int64_t n = 0;

	if (g <= 0 || want <= 0)
		return true;
	/* the same buckets [q*g, (q+1)*g) as fw__domain_capacity, fullest
	 * first: a domain with room answers after its top one or two */
	for (int q = (FW__HIST - 1) / g, k = FW__HIST - 1; q > 0; q--) {
		for (int lo = q * g; k >= lo; k--)
			n += (int64_t)d->hist[k] * q;
		if (n >= want)
			return true;
	}
	return false;
}
