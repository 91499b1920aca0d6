/*
 * test_openb.c — the openb node/pod CSV readers (sim/openb.c).
 *
 * Good input in its variants (column order, extra columns, CRLF, blank
 * lines, a byte order mark, quoted fields), then one test per kind of bad
 * input, each checking the line, the column, the field and the reason, and
 * the skip-and-count mode.  The real files are read when FAIRWAY_TRACES
 * (default ../shared/traces) has them; otherwise that test prints SKIP and
 * is not counted.
 */
#include <stdlib.h>

#include "harness.h"
#include "openb.h"

#define NODE_HDR "sn,cpu_milli,memory_mib,gpu,model\n"
#define POD_HDR                                                              \
	"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"  \
	"creation_time,deletion_time,scheduled_time\n"

static int nodes(const char *csv, unsigned flags, struct fw_openb_nodes *l,
		 struct fw_diag *d)
{
	memset(d, 0, sizeof *d);
	return fw_openb_parse_nodes(csv, strlen(csv), "n.csv", flags, l, d);
}

static int pods(const char *csv, unsigned flags, struct fw_openb_pods *l,
		struct fw_diag *d)
{
	memset(d, 0, sizeof *d);
	return fw_openb_parse_pods(csv, strlen(csv), "p.csv", flags, l, d);
}

TEST(nodes_good)
{
	struct fw_openb_nodes l;
	struct fw_diag d;
	ASSERT_OK(nodes(NODE_HDR "openb-node-0000,64000,262144,2,P100\n"
			"openb-node-0001,96000,393216,8,G2\n", 0, &l, &d));
	ASSERT_EQ(l.n, 2);
	ASSERT_STR_EQ(l.v[0].sn, "openb-node-0000");
	ASSERT_EQ(l.v[0].cpu_milli, 64000);
	ASSERT_EQ(l.v[0].memory_mib, 262144);
	ASSERT_EQ(l.v[1].gpu, 8);
	ASSERT_STR_EQ(l.v[1].model, "G2");
	ASSERT_EQ(l.v[1].line, 3);
	ASSERT_EQ(l.skipped, 0);
	ASSERT_STR_EQ(l.file, "n.csv");
	fw_openb_nodes_free(&l);
	ASSERT_EQ(l.n, 0);
	fw_openb_nodes_free(&l); /* twice is fine */
}

TEST(columns_by_name_crlf_blank_bom_quotes)
{
	struct fw_openb_nodes l;
	struct fw_diag d;
	ASSERT_OK(nodes("\xEF\xBB\xBFmodel,extra,gpu,sn,memory_mib,cpu_milli\r\n"
			"\r\n"
			"T4,\"x,y\",2,\"node-a\",100,2000\r\n"
			"\"V1\",\"\"\"\",1,b,5,0\r\n\r\n",
			0, &l, &d));
	ASSERT_EQ(l.n, 2);
	ASSERT_STR_EQ(l.v[0].sn, "node-a");
	ASSERT_EQ(l.v[0].cpu_milli, 2000);
	ASSERT_EQ(l.v[0].memory_mib, 100);
	ASSERT_EQ(l.v[0].line, 3);
	ASSERT_STR_EQ(l.v[1].model, "V1");
	ASSERT_EQ(l.v[1].line, 4);
	fw_openb_nodes_free(&l);
}

TEST(pods_good)
{
	struct fw_openb_pods l;
	struct fw_diag d;
	ASSERT_OK(pods(POD_HDR
		       "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,1,0\n"
		       "openb-pod-0001,6000,12288,1,460,T4|P100,LS,Running,4,5,4\n"
		       "openb-pod-0002,88000,1,0,0,,BE,Failed,0,0,0\n"
		       "openb-pod-0003,64000,1,8,1000,,BE,Running,0,0,0",
		       0, &l, &d));
	ASSERT_EQ(l.n, 4);
	ASSERT_EQ(l.v[1].gpu_milli, 460);
	ASSERT_STR_EQ(l.v[1].gpu_spec, "T4|P100");
	ASSERT_EQ(l.v[2].num_gpu, 0);
	ASSERT_EQ(l.v[3].num_gpu, 8);
	ASSERT_EQ(l.v[3].line, 5); /* last line without a newline */
	fw_openb_pods_free(&l);
}

/* One bad pod row; checks code, line, column, field and a word of the
 * reason. */
static void bad_pod(const char *row, int err, int col, const char *field,
		    const char *why)
{
	char csv[512];
	struct fw_openb_pods l;
	struct fw_diag d;
	snprintf(csv, sizeof csv, "%sok,1,1,0,0,,LS,R,0,0,0\n%s\n", POD_HDR,
		 row);
	ASSERT_EQ(pods(csv, 0, &l, &d), err);
	ASSERT_EQ(l.n, 0);
	ASSERT_STR_EQ(d.file, "p.csv");
	ASSERT_EQ(d.line, 3);
	ASSERT_EQ(d.col, col);
	ASSERT_STR_EQ(d.field, field);
	ASSERT_STR_CONTAINS(d.msg, why);
}

TEST(bad_numbers_name_line_and_column)
{
	/*          1234567890123456789 */
	bad_pod("p1,12a0,16384,1,1000,,LS,R,0,0,0", FW_EINVAL, 4, "cpu_milli",
		"\"12a0\" is not a decimal integer");
	bad_pod("p1,-5,16384,1,1000,,LS,R,0,0,0", FW_ERANGE, 4, "cpu_milli",
		"-5 is out of range 0..1000000000");
	bad_pod("p1,5,,1,1000,,LS,R,0,0,0", FW_EINVAL, 6, "memory_mib",
		"\"\" is not a decimal integer");
	bad_pod("p1,5,1,1,1001,,LS,R,0,0,0", FW_ERANGE, 10, "gpu_milli",
		"1001 is out of range 0..1000; give a value in that range");
	bad_pod("p1,x,1,1,100,,LS,R,0,0,0", FW_EINVAL, 4, "cpu_milli",
		"\"x\" is not a decimal integer; write a whole number "
		"0..1000000000 in decimal digits");
	bad_pod("p1,5,1,1,99999999999999999999,,LS,R,0,0,0", FW_ERANGE, 10,
		"gpu_milli", "out of range");
	bad_pod("p1,5,1,1.5,100,,LS,R,0,0,0", FW_EINVAL, 8, "num_gpu",
		"not a decimal integer");
	bad_pod("p1, 5,1,1,100,,LS,R,0,0,0", FW_EINVAL, 4, "cpu_milli",
		"not a decimal integer");
	bad_pod(",5,1,1,100,,LS,R,0,0,0", FW_EINVAL, 1, "name", "is empty");
	/* names and models reach JSON and CSV outputs: a quote (the --log of
	 * fairway sim run became invalid JSON), comma, space or a byte that
	 * is not ASCII is refused */
	bad_pod("\"p\"\"1\",5,1,1,100,,LS,R,0,0,0", FW_EINVAL, 1, "name",
		"\"p\"1\" has a space, quote, backslash, comma, control or non-ASCII byte");
	bad_pod("\"p,1\",5,1,1,100,,LS,R,0,0,0", FW_EINVAL, 1, "name", "has a space");
	bad_pod("p\xff,5,1,1,100,,LS,R,0,0,0", FW_EINVAL, 1, "name", "has a space");
	bad_pod("p1,5,1,1,100,\"T 4\",LS,R,0,0,0", FW_EINVAL, 14, "gpu_spec", "has a space");
}

TEST(bad_field_combinations)
{
	bad_pod("p1,5,1,2,500,,LS,R,0,0,0", FW_EINVAL, 10, "gpu_milli",
		"a multi-GPU pod takes whole GPUs (1000); give gpu_milli 1000");
	bad_pod("p1,5,1,0,500,,LS,R,0,0,0", FW_EINVAL, 10, "gpu_milli",
		"a CPU-only pod");
	bad_pod("p1,5,1,1,0,,LS,R,0,0,0", FW_EINVAL, 10, "gpu_milli",
		"a GPU pod needs");
}

TEST(bad_shape)
{
	bad_pod("p1,5,1,1,100,,LS,R,0,0", FW_EINVAL, 23, "row",
		"10 fields, but the header has 11; give each row one field per "
		"header column");
	bad_pod("p1,5,1,1,100,,LS,R,0,0,0,9", FW_EINVAL, 26, "row",
		"12 fields, but the header has 11");
	bad_pod("p1,5,1,1,100,\"T4,LS,R,0,0,0", FW_EINVAL, 14, "row",
		"quoted field is not closed on this line (multi-line fields are "
		"not supported); close the quote");
	bad_pod("p1,5,1,1,100,\"T4\"x,LS,R,0,0,0", FW_EINVAL, 18, "row",
		"characters after a closing quote");
}

TEST(bad_header)
{
	struct fw_openb_nodes l;
	struct fw_diag d;
	ASSERT_EQ(nodes("sn,cpu_milli,gpu,model\nx,1,1,T4\n", 0, &l, &d),
		  FW_EINVAL);
	ASSERT_EQ(d.line, 1);
	ASSERT_STR_EQ(d.field, "memory_mib");
	ASSERT_STR_CONTAINS(d.msg, "missing from the header");
	/* every refusal says what to do: here the columns to write */
	ASSERT_STR_CONTAINS(d.msg, "; add it: an openb node list names "
			    "sn,cpu_milli,memory_mib,gpu,model (any order");
	ASSERT_EQ(nodes("sn,cpu_milli,memory_mib,gpu,model,gpu\n", 0, &l, &d),
		  FW_EINVAL);
	ASSERT_EQ(d.col, 35);
	ASSERT_STR_CONTAINS(d.msg, "appears twice");
	ASSERT_EQ(nodes("", 0, &l, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "header");
	ASSERT_STR_EQ(d.msg, "the file is empty; an openb node list is a header line "
		      "(sn,cpu_milli,memory_mib,gpu,model) and a row per node");
	ASSERT_EQ(nodes("\n\n", FW_OPENB_SKIP_BAD, &l, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "the file is empty");
	/* a header after blank lines is named by its own line */
	ASSERT_EQ(nodes("\n\nsn,cpu_milli,memory_mib,gpu,model,gpu\n", 0, &l, &d), FW_EINVAL);
	ASSERT_EQ(d.line, 3);
	ASSERT_STR_CONTAINS(d.msg, "appears twice");
	/* a node name or model that is not plain */
	ASSERT_EQ(nodes(NODE_HDR "\"a b\",1,1,2,T4\n", 0, &l, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "sn");
	ASSERT_EQ(nodes(NODE_HDR "a,1,1,2,T4\x1b\n", 0, &l, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "model");
	/* a pod file given as the node list */
	ASSERT_EQ(nodes(POD_HDR, 0, &l, &d), FW_EINVAL);
	ASSERT_STR_EQ(d.field, "sn");
}

TEST(bad_nodes)
{
	struct fw_openb_nodes l;
	struct fw_diag d;
	ASSERT_EQ(nodes(NODE_HDR "a,1,1,2,\n", 0, &l, &d), FW_EINVAL);
	ASSERT_EQ(d.line, 2);
	ASSERT_EQ(d.col, 9);
	ASSERT_STR_EQ(d.field, "model");
	ASSERT_STR_CONTAINS(d.msg, "the node has 2 GPU(s)");
	ASSERT_EQ(nodes(NODE_HDR "a,1,1,17,T4\n", 0, &l, &d), FW_ERANGE);
	ASSERT_STR_EQ(d.field, "gpu");
	ASSERT_EQ(nodes(NODE_HDR "a,1,1,1,T4|P100\n", 0, &l, &d), FW_EINVAL);
	ASSERT_STR_CONTAINS(d.msg, "contains '|'");
	ASSERT_OK(nodes(NODE_HDR "cpu-only,1,1,0,\n", 0, &l, &d));
	ASSERT_EQ(l.v[0].gpu, 0);
	fw_openb_nodes_free(&l);
}

TEST(nul_byte_is_an_error)
{
	static const char csv[] = NODE_HDR "a,1,1,1,T4\nb,1\0,1,1,T4\n";
	struct fw_openb_nodes l;
	struct fw_diag d;
	ASSERT_EQ(fw_openb_parse_nodes(csv, sizeof csv - 1, "n.csv", 0, &l, &d),
		  FW_EINVAL);
	ASSERT_EQ(d.line, 3);
	ASSERT_EQ(d.col, 4);
	ASSERT_STR_CONTAINS(d.msg, "NUL byte");
}

TEST(skip_bad_counts_rows)
{
	struct fw_openb_pods l;
	struct fw_diag d;
	ASSERT_OK(pods(POD_HDR "a,1,1,1,100,,LS,R,0,0,0\n"
		       "b,x,1,1,100,,LS,R,0,0,0\n"
		       "c,1,1,1,100,,LS,R,0,0,0\n"
		       "d,1,1,3,100,,LS,R,0,0,0\n"
		       "e,1,1\n",
		       FW_OPENB_SKIP_BAD, &l, &d));
	ASSERT_EQ(l.n, 2);
	ASSERT_STR_EQ(l.v[1].name, "c");
	ASSERT_EQ(l.skipped, 3);
	ASSERT_EQ(l.first_bad.line, 3);
	ASSERT_EQ(l.first_bad.col, 3);
	ASSERT_STR_EQ(l.first_bad.field, "cpu_milli");
	ASSERT_EQ(d.line, 0); /* *d is written only on failure */
	fw_openb_pods_free(&l);
}

TEST(repeated_names_name_the_first_line)
{
	struct fw_openb_pods l;
	struct fw_openb_nodes nl;
	struct fw_diag d;
	char buf[512];

	/* a repeated pod name, as ITP and generic traces treat a repeated id */
	ASSERT_EQ(pods(POD_HDR "a,1,1,1,100,,LS,R,0,0,0\n"
		       "b,1,1,1,100,,LS,R,0,0,0\n"
		       "a,1,1,1,100,,LS,R,0,0,0\n", 0, &l, &d), FW_EINVAL);
	fw_openb_diag_str(&d, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "p.csv:4:1: field name: duplicate pod name \"a\": it already "
			   "appeared on line 2; give each row its own pod name, or drop "
			   "the repeated row");
	/* a repeated node name too */
	ASSERT_EQ(nodes(NODE_HDR "n1,1,1,1,T4\n\nn1,1,1,1,T4\n", 0, &nl, &d), FW_EINVAL);
	fw_openb_diag_str(&d, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "n.csv:4:1: field sn: duplicate node name \"n1\": it already "
			   "appeared on line 2; give each row its own node name, or drop "
			   "the repeated row");
	/* --skip-bad skips the repeat and counts it; a skipped row's name is
	 * not taken (c on line 5 is kept although a bad c came before) */
	ASSERT_OK(pods(POD_HDR "a,1,1,1,100,,LS,R,0,0,0\n"
		       "a,2,1,1,100,,LS,R,0,0,0\n"
		       "c,x,1,1,100,,LS,R,0,0,0\n"
		       "c,1,1,1,100,,LS,R,0,0,0\n", FW_OPENB_SKIP_BAD, &l, &d));
	ASSERT_EQ(l.n, 2);
	ASSERT_EQ(l.v[0].cpu_milli, 1);
	ASSERT_STR_EQ(l.v[1].name, "c");
	ASSERT_EQ(l.skipped, 2);
	ASSERT_EQ(l.first_bad.line, 3);
	ASSERT_STR_CONTAINS(l.first_bad.msg, "already appeared on line 2");
	fw_openb_pods_free(&l);
}

/* Many names: the set grows past its first size and still finds a repeat. */
TEST(repeated_name_found_among_many)
{
	static char csv[200000];
	struct fw_openb_pods l;
	struct fw_diag d;
	size_t k = (size_t)snprintf(csv, sizeof csv, POD_HDR);

	for (int i = 0; i < 3000; i++)
		k += (size_t)snprintf(csv + k, sizeof csv - k, "pod-%d,1,1,1,100,,LS,R,0,0,0\n", i);
	ASSERT_OK(pods(csv, 0, &l, &d));
	ASSERT_EQ(l.n, 3000);
	fw_openb_pods_free(&l);
	snprintf(csv + k, sizeof csv - k, "pod-1234,1,1,1,100,,LS,R,0,0,0\n");
	ASSERT_EQ(pods(csv, 0, &l, &d), FW_EINVAL);
	ASSERT_EQ(d.line, 3002);
	ASSERT_STR_CONTAINS(d.msg, "already appeared on line 1236");
}

TEST(diag_string)
{
	struct fw_openb_pods l;
	struct fw_diag d;
	char buf[512];
	bad_pod("p1,5,1,1,7x,,LS,R,0,0,0", FW_EINVAL, 10, "gpu_milli", "7x");
	ASSERT_EQ(pods(POD_HDR "p1,5,1,1,7x,,LS,R,0,0,0\n", 0, &l, &d),
		  FW_EINVAL);
	fw_openb_diag_str(&d, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "p.csv:2:10: field gpu_milli: \"7x\" is not a "
			   "decimal integer; write a whole number 0..1000 in decimal "
			   "digits (no sign, spaces or units)");
}

TEST(missing_file)
{
	struct fw_openb_nodes l;
	struct fw_diag d;
	ASSERT_EQ(fw_openb_read_nodes("/nonexistent/nodes.csv", 0, &l, &d),
		  FW_EIO);
	ASSERT_STR_EQ(d.file, "/nonexistent/nodes.csv");
	ASSERT_STR_CONTAINS(d.msg, "cannot open");
	ASSERT_EQ(l.n, 0);
}

static const char *traces(void)
{
	const char *t = getenv("FAIRWAY_TRACES");
	return t && *t ? t : "../shared/traces";
}

TEST(real_trace_files)
{
	char np[512], pp[512];
	struct fw_openb_nodes nl;
	struct fw_openb_pods pl;
	struct fw_diag d;
	long gpus = 0;
	snprintf(np, sizeof np, "%s/alibaba-openb/openb_node_list_gpu_node.csv",
		 traces());
	snprintf(pp, sizeof pp, "%s/alibaba-openb/openb_pod_list_default.csv",
		 traces());
	ASSERT_OK(fw_openb_read_nodes(np, 0, &nl, &d));
	ASSERT_OK(fw_openb_read_pods(pp, 0, &pl, &d));
	ASSERT_EQ(nl.n, 1213);
	ASSERT_EQ(pl.n, 8152);
	for (size_t i = 0; i < nl.n; i++)
		gpus += nl.v[i].gpu;
	ASSERT_EQ(gpus, 6212);
	ASSERT_STR_EQ(pl.v[0].name, "openb-pod-0000");
	ASSERT_EQ(pl.v[1].gpu_milli, 460);
	fw_openb_nodes_free(&nl);
	fw_openb_pods_free(&pl);
}

static int trace_present(void)
{
	char p[512];
	FILE *f;
	snprintf(p, sizeof p, "%s/alibaba-openb/openb_pod_list_default.csv",
		 traces());
	if (!(f = fopen(p, "r")))
		return 0;
	fclose(f);
	return 1;
}

int main(void)
{
	fw_test_fn fns[] = { nodes_good, columns_by_name_crlf_blank_bom_quotes,
			     pods_good, bad_numbers_name_line_and_column,
			     bad_field_combinations, bad_shape, bad_header,
			     bad_nodes, nul_byte_is_an_error,
			     skip_bad_counts_rows, repeated_names_name_the_first_line,
			     repeated_name_found_among_many, diag_string, missing_file,
			     real_trace_files };
	const char *names =
		"nodes_good, columns_by_name_crlf_blank_bom_quotes, "
		"pods_good, bad_numbers_name_line_and_column, "
		"bad_field_combinations, bad_shape, bad_header, bad_nodes, "
		"nul_byte_is_an_error, skip_bad_counts_rows, "
		"repeated_names_name_the_first_line, repeated_name_found_among_many, diag_string, "
		"missing_file, real_trace_files";
	int n = (int)(sizeof fns / sizeof fns[0]);
	if (!trace_present()) {
		printf("SKIP real_trace_files: no openb trace under %s "
		       "(set FAIRWAY_TRACES)\n", traces());
		n--; /* it is the last one */
	}
	return fw_test_main(names, fns, n);
}
