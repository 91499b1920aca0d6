/*
 * sacct2fairway.c — `fairway-sacct2fairway SACCT_FILE OUT.csv|-`: convert Slurm
 * `sacct --parsable2` output to fairway's generic trace CSV.  All logic is
 * in sim/sacct.c (fw_sacct_convert_cli), which `fairway trace
 * sacct2fairway` calls too.
 */
#include "trace.h"

int main(int argc, char **argv)
{
	return fw_sacct_convert_cli(argc, argv);
}
