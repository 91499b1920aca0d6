/* test_cliword.c — one command-line word (tools/cliword.h): "--flag=value"
 * splitting, joined values, the hint for a mistyped flag, durations, and
 * the base of a --server URL. */
#include <math.h>
#include <string.h>

#include "cliword.h"
#include "harness.h"

static const char *const flags[] = { "--policies", "--tick", "--tick-rule", "--json", "--jobs",
				     "--gpus", "--cpu", "--count", "--checkpoint", NULL };

static const char *hint(const char *w)
{
	static char buf[96];
	return fw_cli_hint(w, flags, buf, sizeof buf);
}

TEST(split_eq_cuts_the_word_at_the_first_equals)
{
	char a[] = "--config=my=file.yaml", b[] = "--json", c[] = "-x=1";
	ASSERT_STR_EQ(fw_cli_split_eq(a), "my=file.yaml");
	ASSERT_STR_EQ(a, "--config");
	ASSERT(fw_cli_split_eq(b) == NULL);
	ASSERT(fw_cli_split_eq(c) == NULL); /* a short flag is not split */
}

TEST(joined_values_of_switches_and_empty_ones_are_refused)
{
	static const char *const bare[] = { "--watch", NULL };
	char why[128];
	ASSERT_EQ(fw_cli_joined_ok("--watch", NULL, bare, why, sizeof why), 0);
	ASSERT_EQ(fw_cli_joined_ok("--watch", "1", bare, why, sizeof why), 2);
	ASSERT_STR_CONTAINS(why, "--watch takes no value");
	ASSERT_EQ(fw_cli_joined_ok("--out", "", bare, why, sizeof why), 2);
	ASSERT_STR_CONTAINS(why, "give --out VALUE or --out=VALUE");
	ASSERT_EQ(fw_cli_joined_ok("--out", "x", bare, why, sizeof why), 0);
}

/* A dropped, added, changed or swapped byte is named; a word far from
 * every flag, a known flag, and a tie between two flags that begin alike
 * get no hint. */
TEST(hint_names_the_one_flag_a_typo_is_near)
{
	ASSERT_STR_EQ(hint("--polices"), " (did you mean '--policies'?)");   /* dropped */
	ASSERT_STR_EQ(hint("--policiess"), " (did you mean '--policies'?)"); /* added */
	ASSERT_STR_EQ(hint("--plocies"), " (did you mean '--policies'?)");   /* swapped */
	ASSERT_STR_EQ(hint("--tic"), " (did you mean '--tick'?)");
	ASSERT_STR_EQ(hint("--tick-rul"), " (did you mean '--tick-rule'?)");
	ASSERT_STR_EQ(hint("--checkpiont"), " (did you mean '--checkpoint'?)");
	ASSERT_STR_EQ(hint("--gpu"), " (did you mean '--gpus'?)"); /* --cpu is as near, but --gpus begins so */
	ASSERT_STR_EQ(hint("--tick"), "");                         /* known: no hint */
	ASSERT_STR_EQ(hint("--frobnicate"), "");
	ASSERT_STR_EQ(hint("--cpus"), " (did you mean '--cpu'?)"); /* --gpus as near, but --cpu begins like it */
	ASSERT_STR_EQ(hint("--tk"), "");     /* two edits from --tick: too far for a short word */
	ASSERT_STR_EQ(hint("--policyes"), " (did you mean '--policies'?)");
	ASSERT_STR_EQ(fw_cli_hint("--x", NULL, (char[8]){ 0 }, 8), "");
}

/* A word out of reach as written but within it, case aside, is named
 * ("FIFO" for fifo): capitals are the commonest slip that is no typo. */
TEST(hint_names_a_flag_written_in_capitals)
{
	static const char *const names[] = { "fairway", "fifo", "slurm", "kai", NULL };
	char buf[96];

	ASSERT_STR_EQ(hint("--JSON"), " (did you mean '--json'?)");
	ASSERT_STR_EQ(hint("--Tick-Rule"), " (did you mean '--tick-rule'?)");
	ASSERT_STR_EQ(fw_cli_hint("FIFO", names, buf, sizeof buf), " (did you mean 'fifo'?)");
	ASSERT_STR_EQ(fw_cli_hint("SLRUM", names, buf, sizeof buf), " (did you mean 'slurm'?)");
	ASSERT_STR_EQ(hint("--CPUS"), " (did you mean '--cpu'?)"); /* --cpu begins like it, case aside */
	ASSERT_STR_EQ(hint("--FROBNICATE"), "");
}

/* A flag's "--" is no letter of its name: one of 4 letters or more is
 * within 2 edits ("--sead" of fairway-health-sim's --seeds, which 1 edit
 * for a word of 6 bytes missed), and of candidates as near, the one that
 * begins the most like it is named (--seeds, not --load, 2 edits too);
 * a value (a policy's name) keeps the word's rule, and a tie of two that
 * begin alike is still a guess. */
TEST(hint_reaches_a_flag_by_its_letters_and_breaks_ties_by_its_start)
{
	static const char *const hs[] = { "--days", "--load", "--rate", "--seeds", "--silent", NULL };
	static const char *const near[] = { "--rate", "--rake", NULL };
	static const char *const names[] = { "seeds", "load", NULL };
	char buf[96];

	ASSERT_STR_EQ(fw_cli_hint("--sead", hs, buf, sizeof buf), " (did you mean '--seeds'?)");
	ASSERT_STR_EQ(fw_cli_hint("--SEAD", hs, buf, sizeof buf), " (did you mean '--seeds'?)");
	ASSERT_STR_EQ(fw_cli_hint("--sede", hs, buf, sizeof buf), " (did you mean '--seeds'?)");
	ASSERT_STR_EQ(fw_cli_hint("--ld", hs, buf, sizeof buf), "");       /* 2 letters: 1 edit, --load is 2 */
	ASSERT_STR_EQ(fw_cli_hint("--rame", near, buf, sizeof buf), ""); /* --rate and --rake: begin alike */
	ASSERT_STR_EQ(fw_cli_hint("sead", names, buf, sizeof buf), "");    /* a value: 1 edit for 6 bytes */
	ASSERT(fw_cli_nearest("--sead", hs) == NULL);                      /* the API's and YAML's rule as was */
}

TEST(hint_is_cut_to_its_buffer_and_long_words_are_out_of_reach)
{
	char small[12], word[200];
	ASSERT_STR_EQ(fw_cli_hint("--polices", flags, small, sizeof small), " (did you m");
	memset(word, 'a', sizeof word - 1);
	word[sizeof word - 1] = '\0';
	ASSERT_STR_EQ(hint(word), "");
}

TEST(durations_take_one_unit_of_s_m_h_or_d)
{
	double x = -1;

	ASSERT(fw_cli_duration("90", &x) && x == 90);
	ASSERT(fw_cli_duration("90s", &x) && x == 90);
	ASSERT(fw_cli_duration("10m", &x) && x == 600);
	ASSERT(fw_cli_duration("1.5h", &x) && x == 5400);
	ASSERT(fw_cli_duration("30d", &x) && x == 30 * 86400.0);
	x = -1;
	ASSERT(!fw_cli_duration("", &x));
	ASSERT(!fw_cli_duration("h", &x));
	ASSERT(!fw_cli_duration("5x", &x));
	ASSERT(!fw_cli_duration("5ms", &x));
	ASSERT(!fw_cli_duration("5 m", &x));
	ASSERT(!fw_cli_duration("nan", &x));
	ASSERT(!fw_cli_duration("inf", &x));
	ASSERT(x == -1); /* untouched when refused */
}

/* The config's grammar (fw_parse_duration_ms): units may follow one
 * another, as YAML's "1h30m"; a number without a unit only alone; no
 * sign; nothing finer than a millisecond. */
TEST(durations_take_the_configs_compound_forms)
{
	double x = -1;

	ASSERT(fw_cli_duration("1h30m", &x) && x == 5400);
	ASSERT(fw_cli_duration("2d12h", &x) && x == 2.5 * 86400);
	ASSERT(fw_cli_duration("1m30s", &x) && x == 90);
	ASSERT(fw_cli_duration("1h0.5m", &x) && x == 3630);
	ASSERT(fw_cli_duration("0.5", &x) && x == 0.5);
	/* a '-' and an overflow come back out of any range, for the caller to say it */
	ASSERT(fw_cli_duration("-1h30m", &x) && x == -5400);
	ASSERT(fw_cli_duration("99999999999999999999", &x) && x == HUGE_VAL);
	x = -1;
	ASSERT(!fw_cli_duration("1h30", &x));  /* a unitless number only alone */
	ASSERT(!fw_cli_duration("--5", &x));
	ASSERT(!fw_cli_duration("+5m", &x));
	ASSERT(!fw_cli_duration("1h-5m", &x));
	ASSERT(!fw_cli_duration("0.0001s", &x)); /* under a millisecond */
	ASSERT(!fw_cli_duration("1hh", &x));
	ASSERT(!fw_cli_duration("1h 30m", &x));
	ASSERT(x == -1);
}

/* Numbers are plain decimal: an exponent or hex, which strtod reads, is
 * refused rather than read as 10 or 16; so are '+', inf and nan. */
TEST(decimals_have_no_exponent_or_hex)
{
	const char *end = NULL;
	double x = -1;

	ASSERT(fw_cli_decimal("16", &x, &end) && x == 16 && *end == '\0');
	ASSERT(fw_cli_decimal("-5", &x, &end) && x == -5);
	ASSERT(fw_cli_decimal("0.5", &x, &end) && x == 0.5);
	ASSERT(fw_cli_decimal(".5", &x, &end) && x == 0.5);
	ASSERT(fw_cli_decimal("2.", &x, &end) && x == 2);
	ASSERT(fw_cli_decimal("10m", &x, &end) && x == 10 && !strcmp(end, "m"));
	ASSERT(!fw_cli_decimal("0x10", &x, &end));
	ASSERT(!fw_cli_decimal("1e1", &x, &end));
	ASSERT(!fw_cli_decimal("1E1", &x, &end));
	ASSERT(!fw_cli_decimal("+5", &x, &end));
	ASSERT(!fw_cli_decimal(" 5", &x, &end));
	ASSERT(!fw_cli_decimal("", &x, &end));
	ASSERT(!fw_cli_decimal("-", &x, &end));
	ASSERT(!fw_cli_decimal(".", &x, &end));
	ASSERT(!fw_cli_decimal("inf", &x, &end));
	ASSERT(!fw_cli_decimal("nan", &x, &end));
	ASSERT(!fw_cli_duration("0x10", &x));
	ASSERT(!fw_cli_duration("1e3", &x));
	ASSERT(!fw_cli_duration("1e1m", &x));
}

/* The base length of a --server URL, checked as the string it keeps. */
static void base_is(const char *url, const char *want)
{
	size_t n = fw_cli_server_base(url);

	ASSERT_EQ(n, strlen(want));
	ASSERT(!strncmp(url, want, n));
}

TEST(server_base_drops_trailing_slashes_and_one_v1)
{
	base_is("http://h:8642", "http://h:8642");
	base_is("http://h:8642/", "http://h:8642");
	base_is("http://h:8642//", "http://h:8642");
	base_is("http://h:8642/v1", "http://h:8642");
	base_is("http://h:8642/v1/", "http://h:8642");
	base_is("http://h:8642/fw/v1//", "http://h:8642/fw");
	base_is("http://h:8642/v1/v1", "http://h:8642/v1"); /* one only */
	base_is("http://h:8642/xv1", "http://h:8642/xv1");  /* a segment "xv1" is no "/v1" */
	base_is("http://v1", "http://v1");                  /* the host stays */
	base_is("http:///v1", "http://");                   /* the scheme's slashes stay */
	base_is("h:8642/v1", "h:8642");
	base_is("", "");
}

/* A name's nearest (a GPU model, a topology level): case is no edit, so
 * a name in another case is named, and a typo in another case is in
 * reach; the name itself, or one far off, is none. */
TEST(nearest_name_reads_case_as_no_edit)
{
	static const char *const models[] = { "H100", "A100", "H200", NULL };
	static const char *const levels[] = { "block", "rack", "nvlink", "node", NULL };

	ASSERT_STR_EQ(fw_cli_nearest_name("NVLINK", levels), "nvlink");
	ASSERT(fw_cli_nearest("NVLINK", levels) == NULL);
	ASSERT_STR_EQ(fw_cli_nearest_name("rakc", levels), "rack");
	ASSERT_STR_EQ(fw_cli_nearest_name("a10", models), "A100");
	ASSERT_STR_EQ(fw_cli_nearest_name("h10", models), "H100");
	ASSERT(fw_cli_nearest_name("h300", models) == NULL); /* H100 and H200 alike: a guess */
	ASSERT(fw_cli_nearest_name("rack", levels) == NULL);
	ASSERT(fw_cli_nearest_name("galaxy", levels) == NULL);
	ASSERT(fw_cli_nearest_name("B300", models) == NULL);
}

TEST_MAIN(split_eq_cuts_the_word_at_the_first_equals, joined_values_of_switches_and_empty_ones_are_refused,
	  hint_names_the_one_flag_a_typo_is_near, hint_names_a_flag_written_in_capitals,
	  hint_reaches_a_flag_by_its_letters_and_breaks_ties_by_its_start,
	  hint_is_cut_to_its_buffer_and_long_words_are_out_of_reach,
	  durations_take_one_unit_of_s_m_h_or_d, durations_take_the_configs_compound_forms,
	  decimals_have_no_exponent_or_hex,
	  server_base_drops_trailing_slashes_and_one_v1, nearest_name_reads_case_as_no_edit)
