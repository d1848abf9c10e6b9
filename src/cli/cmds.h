/*
 * cmds.h - the subcommands of bin/mpicrawl. Each takes the arguments after
 * the subcommand name (argv[0] is the subcommand) and returns the process
 * exit code: 0 done, 1 failure at run time, 2 bad usage (after printing a
 * one-line error and the usage to stderr). main.c dispatches.
 */
#ifndef CR_CLI_CMDS_H
#define CR_CLI_CMDS_H

int cmd_crawl(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_rank(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_update(int argc, char **argv);
int cmd_readdb(int argc, char **argv);
int cmd_url(int argc, char **argv);
int cmd_robots(int argc, char **argv);
int cmd_warc(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_wacz(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_unlock(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_status(int argc, char **argv);

#endif
