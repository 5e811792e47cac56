/* cli.h: the command-line tools over the engine. */
#ifndef CROUPIER_CLI_H
#define CROUPIER_CLI_H

int cmd_selfplay(int argc, char **argv);
int cmd_tournament(int argc, char **argv);

#endif
