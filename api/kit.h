/* kit.h: the autograder kit's suites written out (docs/autograder.md), for
 * `croupier cases` and GET /cases/{game}/{fn}: JSON lines, one JSON
 * document, the pytest file (cli/kit_harness.py with the suite inside), or
 * the clause counts. The cases themselves come from the engine
 * (game_case, engine/cases.c).
 */
#ifndef CROUPIER_KIT_H
#define CROUPIER_KIT_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"

/* 1 when `format` is one kit_render writes: "jsonl", "json", "pytest". */
int kit_format_known(const char *format);
/* n cases (1..GAME_CASES_MAX) of suite s of game ops drawn from seed, in
 * `format` (NULL: jsonl), or, with stats set, the clause counts as text.
 * *out is malloc'd (the caller frees it), *media_type static. 0, or
 * ERR_INTERNAL (a generator broke its contract: e->detail). */
int kit_render(const game_ops *ops, const game_suite *s, uint64_t seed, int n, const char *format,
               int stats, char **out, size_t *len, const char **media_type, game_err *e);

/* The harness, cli/kit_harness.py, as the Makefile embeds it. */
extern const unsigned char kit_harness_py[];
extern const size_t kit_harness_py_len;

#endif
