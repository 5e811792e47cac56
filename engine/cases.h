/* cases.h: what the games' case generators (bo_cases.c, pz_cases.c)
 * share with engine/cases.c, the suites' driver (docs/autograder.md).
 *
 * A generator draws cards "in sight" from the game's decks: it counts the
 * copies it has used of each card code, so no draw shows a card more often
 * than the decks hold it. Every game keeps that count in its own generator
 * state; the draw itself is here.
 */
#ifndef CROUPIER_CASES_H
#define CROUPIER_CASES_H

#include <stdint.h>

#include "core/rng.h"

/* A random card code among 1..n that wanted(want, code) accepts (the
 * caller's filter says also whether a copy is left, from used[]); the
 * code's used[] count goes up by one. 0 (and no draw from r) when no code
 * is accepted. n <= 255; used holds n + 1 counts. */
int case_draw(rng *r, uint8_t *used, int n, int (*wanted)(const void *want, int code), const void *want);

#endif
