/* fairway-health-sim: see sim/health_cli.c. */
#include "llmfleet.h"

int main(int argc, char **argv)
{
	return fw_health_sim_cli(argc, argv);
}
