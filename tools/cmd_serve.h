/* cmd_serve.h — `fairway serve` and the API client commands
 * (tools/cmd_serve.c, tools/cmd_client.c). */
#ifndef FAIRWAY_CMD_SERVE_H
#define FAIRWAY_CMD_SERVE_H

int fw_cmd_serve(int argc, char **argv);
/* queues | jobs | nodes | reservations | fairshare | plan --server */
int fw_cmd_client(const char *what, int argc, char **argv);

#endif
