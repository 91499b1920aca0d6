/*
 * bench_serve.c — load generator for `fairway serve` (docs/performance.md).
 *
 *   bench_serve URL TOKEN RATE SECONDS [THREADS]
 *
 * THREADS workers (default 8), each with one keep-alive connection
 * (libcurl), send RATE requests per second in total for SECONDS, on a
 * fixed schedule (request k of a worker is due at k * THREADS / RATE s), a
 * mix of reads and writes:
 *   30% GET /v1/jobs/{a job this worker submitted}
 *   15% GET /v1/fairshare          10% GET /v1/queues
 *   10% GET /v1/jobs?limit=50      10% GET /v1/nodes/{a node}
 *   15% POST /v1/jobs              5% DELETE /v1/jobs/{a long job it submitted}
 *    5% POST /v1/nodes/{a node}/health
 * Every request is expected to succeed (2xx); anything else is an error,
 * except, with BENCH_SERVE_GONE_OK=1 in the environment (a daemon started
 * with --backend-opt min-job-age), a 404 for one of its own jobs (GET,
 * DELETE): the daemon forgot it; counted as "gone".
 * Nodes are node-000 .. node-999, or, with BENCH_SERVE_NODES=N, the N
 * nodes of bench_serve.sh's large fleet (node-0000 .. at 10,000).  A
 * prober beside the workers sends GET /v1/health 20 times a second,
 * counted apart from the mix.
 * Prints requests, achieved rate, errors, latency p50/p99/max, and the
 * health probes' p50/p95.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

struct worker {
	int id;
	const char *url, *token;
	double rate, seconds;
	double *lat;
	long n, errors, gone, cap;
	bool gone_ok;
	int nodes, width;         /* node-%0*d names: how many, digits */
	char first_error[1024];
};

/* The health prober: every 50 ms until stop. */
struct prober {
	const char *url;
	double seconds;
	double *lat;
	long n, cap, errors;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static size_t sink(char *p, size_t sz, size_t n, void *ud)
{
	(void)p;
	(void)ud;
	return sz * n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One request of the mix: its method and URL, its body ("" for none);
 * own: it names one of the worker's own jobs. */
struct request {
	const char *method;
	bool own;
	char url[512], body[512];
};

/* POST /v1/jobs: a job of this worker's, of 1-2 tasks of 1-8 GPUs. */
static void submit_request(const struct worker *w, unsigned *seed, int r, long *submitted, struct request *q)
{
	q->method = "POST";
	snprintf(q->url, sizeof q->url, "%s/v1/jobs", w->url);
	snprintf(q->body, sizeof q->body,
		 "{\"name\":\"b%d-%ld\",\"queue\":\"%s\",\"runtime\":%d,\"tasks\":[{\"count\":%d,\"gpus\":%d}]}",
		 w->id, *submitted, (r % 2) ? "train" : "serve",
		 /* even jobs run 2-5 min (cancelled later), odd ones 5-30 s */
		 *submitted % 2 ? 5 + (int)(rand_r(seed) % 26) : 120 + (int)(rand_r(seed) % 180),
		 1 + (int)(rand_r(seed) % 2), 1 << (rand_r(seed) % 4));
	(*submitted)++;
}

/* The mix's next request, drawn from the worker's seed. */
static void next_request(const struct worker *w, unsigned *seed, long *submitted, long *cancelled,
			 struct request *q)
{
	int r = (int)(rand_r(seed) % 100);

	q->method = "GET";
	q->own = false;
	q->body[0] = '\0';
	if (*submitted == 0 || r < 15) {
		submit_request(w, seed, r, submitted, q);
	} else if (r < 20 && *cancelled < *submitted) {
		q->method = "DELETE"; /* an even (long) job, each once */
		q->own = true;
		snprintf(q->url, sizeof q->url, "%s/v1/jobs/b%d-%ld", w->url, w->id, *cancelled);
		*cancelled += 2;
	} else if (r < 25) {
		q->method = "POST";
		snprintf(q->url, sizeof q->url, "%s/v1/nodes/node-%0*d/health", w->url, w->width,
			 (int)(rand_r(seed) % (unsigned)w->nodes));
		snprintf(q->body, sizeof q->body, "{\"healthy\":true,\"reason\":\"bench\"}");
	} else if (r < 55) {
		q->own = true;
		snprintf(q->url, sizeof q->url, "%s/v1/jobs/b%d-%ld", w->url, w->id, (long)(rand_r(seed) % *submitted));
	} else if (r < 70) {
		snprintf(q->url, sizeof q->url, "%s/v1/fairshare", w->url);
	} else if (r < 80) {
		snprintf(q->url, sizeof q->url, "%s/v1/queues", w->url);
	} else if (r < 90) {
		snprintf(q->url, sizeof q->url, "%s/v1/jobs?limit=50", w->url);
	} else {
		snprintf(q->url, sizeof q->url, "%s/v1/nodes/node-%0*d", w->url, w->width,
			 (int)(rand_r(seed) % (unsigned)w->nodes));
	}
}

static void sleep_until(double due)
{
	double t = now_s();

	if (due > t) {
		struct timespec ts = { (time_t)(due - t), (long)((due - t - (double)(time_t)(due - t)) * 1e9) };
		nanosleep(&ts, NULL);
	}
}

/* Send q on the worker's connection; record its latency and whether it
 * failed (a 404 for its own job, with gone_ok: gone). */
static void send_request(struct worker *w, CURL *c, const struct request *q)
{
	curl_easy_setopt(c, CURLOPT_URL, q->url);
	if (q->body[0]) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body);
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
	} else {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, strcmp(q->method, "GET") ? q->method : NULL);
	}
	double s = now_s();
	CURLcode cc = curl_easy_perform(c);
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (w->n < w->cap)
		w->lat[w->n++] = now_s() - s;
	if (cc == CURLE_OK && status == 404 && q->own && w->gone_ok) {
		w->gone++;
	} else if (cc != CURLE_OK || status < 200 || status >= 300) {
		if (!w->errors++)
			snprintf(w->first_error, sizeof w->first_error, "%s %s -> %ld (%s)", q->method, q->url, status,
				 curl_easy_strerror(cc));
	}
}

static void *run(void *arg)
{
	struct worker *w = arg;
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	struct request q;
	char auth[512];
	long submitted = 0, cancelled = 0;
	unsigned seed = 1234u + (unsigned)w->id;
	double t0 = now_s(), period = 1.0 / w->rate;

	snprintf(auth, sizeof auth, "Authorization: Bearer %s", w->token);
	h = curl_slist_append(h, auth);
	h = curl_slist_append(h, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	for (long k = 0;; k++) {
		double due = t0 + (double)k * period;
		if (due - t0 >= w->seconds)
			break;
		sleep_until(due);
		next_request(w, &seed, &submitted, &cancelled, &q);
		send_request(w, c, &q);
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return NULL;
}

static void *probe(void *arg)
{
	struct prober *p = arg;
	CURL *c = curl_easy_init();
	char url[512];
	double t0 = now_s();

	snprintf(url, sizeof url, "%s/v1/health", p->url);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	for (long k = 0; p->n < p->cap; k++) {
		double due = t0 + (double)k * 0.05, t = now_s();
		if (due - t0 >= p->seconds)
			break;
		if (due > t)
			nanosleep(&(struct timespec){ 0, (long)((due - t) * 1e9) }, NULL);
		double s = now_s();
		long status = 0;
		CURLcode cc = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		p->lat[p->n++] = now_s() - s;
		p->errors += cc != CURLE_OK || status != 200;
	}
	curl_easy_cleanup(c);
	return NULL;
}

static int digits(int n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d < 3 ? 3 : d;
}

/* URL TOKEN RATE SECONDS [THREADS]: 0, or 2 saying what is wrong. */
static int read_args(int argc, char **argv, int *nt, double *rate, double *secs)
{
	if (argc < 5) {
		fprintf(stderr, "usage: bench_serve URL TOKEN RATE SECONDS [THREADS]\n");
		return 2;
	}
	*nt = argc > 5 ? atoi(argv[5]) : 8;
	*rate = atof(argv[3]), *secs = atof(argv[4]);
	if (*nt < 1 || *nt > 1024 || !(*rate > 0 && *rate <= 1e6) || !(*secs > 0 && *secs <= 86400)) {
		fprintf(stderr, "bench_serve: RATE in (0, 1e6], SECONDS in (0, 86400], THREADS in [1, 1024]\n");
		return 2;
	}
	return 0;
}

/* nt workers, each with its share of the rate: 0, or 1 saying which
 * did not start. */
static int start_workers(struct worker *w, pthread_t *th, int nt, char **argv, double rate, double secs,
			 bool gone_ok, int nodes)
{
	for (int i = 0; i < nt; i++) {
		w[i] = (struct worker){ .id = i, .url = argv[1], .token = argv[2], .rate = rate / nt, .seconds = secs,
					.gone_ok = gone_ok, .nodes = nodes, .width = digits(nodes - 1) };
		w[i].cap = (long)(rate / nt * secs) + 16;
		w[i].lat = malloc((size_t)w[i].cap * sizeof *w[i].lat);
		if (!w[i].lat || pthread_create(&th[i], NULL, run, &w[i]) != 0) {
			fprintf(stderr, "bench_serve: cannot start worker %d\n", i);
			return 1;
		}
	}
	return 0;
}

/* The workers' totals and latencies, once they are done (t0: the start). */
static void report_workers(const struct worker *w, pthread_t *th, int nt, double t0, bool gone_ok, long *errors)
{
	long total = 0, gone = 0;

	for (int i = 0; i < nt; i++) {
		pthread_join(th[i], NULL);
		total += w[i].n;
		*errors += w[i].errors;
		gone += w[i].gone;
	}
	double wall = now_s() - t0;
	double *all = malloc((size_t)(total + 1) * sizeof *all);
	long k = 0;
	for (int i = 0; i < nt; i++)
		for (long j = 0; j < w[i].n; j++)
			all[k++] = w[i].lat[j];
	qsort(all, (size_t)total, sizeof *all, cmp);
	printf("requests %ld in %.1f s = %.0f req/s, errors %ld\n", total, wall, total / wall, *errors);
	if (gone_ok)
		printf("gone %ld (404: a job of its own the daemon forgot, min-job-age)\n", gone);
	if (total)
		printf("latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", all[total / 2] * 1e3,
		       all[(long)(total * 0.99)] * 1e3, all[total - 1] * 1e3);
	free(all);
}

static void report_probes(struct prober *pr, pthread_t pth)
{
	pthread_join(pth, NULL);
	qsort(pr->lat, (size_t)pr->n, sizeof *pr->lat, cmp);
	if (pr->n)
		printf("GET /v1/health (%ld probes, %ld errors): p50 %.2f ms, p95 %.2f ms, max %.2f ms\n", pr->n,
		       pr->errors, pr->lat[pr->n / 2] * 1e3, pr->lat[(long)(pr->n * 0.95)] * 1e3, pr->lat[pr->n - 1] * 1e3);
}

int main(int argc, char **argv)
{
	int nt;
	double rate, secs;
	if (read_args(argc, argv, &nt, &rate, &secs) != 0)
		return 2;
	struct worker *w = calloc((size_t)nt, sizeof *w);
	pthread_t *th = calloc((size_t)nt, sizeof *th);
	long errors = 0;
	double t0 = now_s();
	bool gone_ok = getenv("BENCH_SERVE_GONE_OK") && !strcmp(getenv("BENCH_SERVE_GONE_OK"), "1");
	int nodes = getenv("BENCH_SERVE_NODES") ? atoi(getenv("BENCH_SERVE_NODES")) : 1000;
	struct prober pr = { argv[1], secs, NULL, 0, (long)(secs * 20) + 16, 0 };
	pthread_t pth;

	if (nodes < 1 || nodes > 1000000) {
		fprintf(stderr, "bench_serve: BENCH_SERVE_NODES in [1, 1000000]\n");
		return 2;
	}
	if (!w || !th || !(pr.lat = malloc((size_t)pr.cap * sizeof *pr.lat))) {
		fprintf(stderr, "bench_serve: out of memory\n");
		return 1;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (start_workers(w, th, nt, argv, rate, secs, gone_ok, nodes) != 0)
		return 1;
	if (pthread_create(&pth, NULL, probe, &pr) != 0) {
		fprintf(stderr, "bench_serve: cannot start the health prober\n");
		return 1;
	}
	report_workers(w, th, nt, t0, gone_ok, &errors);
	report_probes(&pr, pth);
	for (int i = 0; i < nt; i++)
		if (w[i].errors)
			printf("first error (worker %d): %s\n", i, w[i].first_error);
	for (int i = 0; i < nt; i++)
		free(w[i].lat);
	free(pr.lat);
	free(w);
	free(th);
	curl_global_cleanup();
	return errors ? 1 : 0;
}
