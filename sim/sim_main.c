/*
 * sim_main.c — the `fairway-sim` executable.  Everything lives in
 * fw_sim_cli (des.h) so that `fairway sim run` can call the same code.
 */
#include "des.h"

int main(int argc, char **argv)
{
	return fw_sim_cli(argc, argv);
}
