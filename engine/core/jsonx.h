/* jsonx.h: small checked readers over jansson values for decoders.
 *
 * Each returns 0 or ERR_BAD_MEMBER with e->pointer set to `ptr` (the JSON
 * pointer of the value being read, built by the caller) and a sentence that
 * says what was expected. Values are borrowed.
 */
#ifndef CROUPIER_JSONX_H
#define CROUPIER_JSONX_H

#include <jansson.h>
#include <stdint.h>

#include "err.h"
#include "rng.h"

int jx_int(const json_t *v, const char *ptr, long long lo, long long hi,
           long long *out, game_err *e);
int jx_bool(const json_t *v, const char *ptr, int *out, game_err *e);
/* Array with min..max elements. */
int jx_array(const json_t *v, const char *ptr, size_t min, size_t max,
             game_err *e);
int jx_object(const json_t *v, const char *ptr, game_err *e);
int jx_string(const json_t *v, const char *ptr, const char **out, game_err *e);
/* A required member of an object (obj already checked to be an object). */
const json_t *jx_get(const json_t *obj, const char *key);
/* Build "<base>/<i>" or "<base>/<key>" (key escaped per RFC 6901). */
void jx_ptr_idx(char *out, size_t n, const char *base, size_t i);
void jx_ptr_key(char *out, size_t n, const char *base, const char *key);
/* For checks run with a relative pointer ("" or below) that failed: put
 * "/idx[0]/idx[1]/..." (n indices) in front of e's pointer and return
 * ERR_BAD_MEMBER. So the pointer of a member is built only when the member
 * is wrong, not for every member of every request. */
int jx_fail_at(game_err *e, int n, const size_t *idx);
/* Does the JSON text s[0..n) nest arrays and objects deeper than `limit`?
 * Counted on the bytes (brackets outside strings), before parsing, so a
 * hostile text is refused before jansson builds it (jansson itself allows
 * 2048 levels, deeper than a small thread stack likes). Text that is not
 * JSON is the parser's to refuse. */
int jx_nested_deeper(const char *s, size_t n, int limit);
/* Builders for the values views, records and events are made of, on every
 * read: json_pack reads its format string and checks every key's UTF-8
 * each time (about 2k instructions a call; a third of a Five Crowns read
 * went there). jx_obj(n, key, value, ...) is an object of n members and
 * jx_arr(n, value, ...) an array of n values, in order; keys are the
 * engine's own ASCII literals (not checked); values are stolen, and any
 * NULL value makes the result NULL (as json_pack fails), every value freed.
 * jx_str is json_string of the engine's own ASCII text (NULL when s is). */
json_t *jx_obj(int n, ...);
json_t *jx_arr(int n, ...);
json_t *jx_str(const char *s);
/* Small unsigned integers as a JSON array of n integers. New ref. */
json_t *jx_u8_array(const uint8_t *v, int n);
json_t *jx_u16_array(const uint16_t *v, int n);
/* The header every stored state starts with: an object whose "game" is
 * `game` and whose "variant" is one of `variants` (NULL-terminated);
 * *variant receives its index. */
int jx_header(const json_t *j, const char *game, const char *const *variants, int *variant,
              game_err *e);
/* Refuse the first member of the object `obj` whose name is not in `known`
 * (NULL-terminated): ERR_BAD_MEMBER with the pointer "<base>/<name>" and a
 * detail listing the known names. The one check of unknown members: game
 * options, plays, stored states and api/'s request bodies all use it. */
int jx_known(const json_t *obj, const char *base, const char *const *known, game_err *e);
/* 1 to 16 hex digits (either case) -> *out; -1 when s is not that. */
int jx_hex64(const char *s, uint64_t *out);
/* RNG state as {"state":"<hex>","inc":"<hex>"}. */
json_t *jx_rng_encode(const rng *r);
int jx_rng_decode(const json_t *v, const char *ptr, rng *r, game_err *e);
/* A game's bot key (game.h: bot_key) as the member "bot_key" of a stored
 * state: 16 hex digits. A state of a release before counter-based bot
 * chance carries "bot_rng" (its bots' generator) instead: still read, and
 * checked as before, the key is then derived from it (the same key for the
 * same state, so an old origin decodes the same every time). One of the two
 * members is required; "bot_key" wins when both are there. */
json_t *jx_bot_key_encode(uint64_t key);
int jx_bot_key_decode(const json_t *state, uint64_t *key, game_err *e);

#endif
