/* voice.h: a bot's line said to the player, for help mode.
 *
 * The bots' lines are in the log's voice: the play without a subject (the
 * log names the seat), then its reason ("takes 7H from the discard pile:
 * it completes its phase"). Help mode shows the same play as advice:
 * voice_to_player makes the first verb an instruction ("Take 7H ...") and
 * swaps the game's own phrases for the player's ("its phase" -> "your
 * phase"), given as {from, to} pairs. Pure: no allocation, no state.
 */
#ifndef CROUPIER_VOICE_H
#define CROUPIER_VOICE_H

#include <stddef.h>

void voice_to_player(const char *line, const char *const (*words)[2], size_t nwords, char *out, size_t n);

#endif
