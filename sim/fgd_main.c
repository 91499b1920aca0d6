/*
 * fgd_main.c — the standalone `fairway-fgd` executable.  All of it is
 * fw_fgd_cli() (sim/fgd_cli.c), so that `fairway sim fgd` can call the same
 * function with the same arguments.
 */
#include "fgd.h"

int main(int argc, char **argv)
{
	return fw_fgd_cli(argc, argv);
}
