/* hn_guide.c: Hanabi for players (game.h, game_guide): the lobby's and
 * the Rules panel's words. No notation here: that is rules()'s. */
#include "game.h"

static const game_guide_row VARIANTS[] = {
    {"standard", "Five colours, 50 cards; a perfect game scores 25.", NULL},
    {"rainbow", "Adds a sixth, rainbow colour (60 cards, perfect at 30): no clue can name rainbow, and "
                "every colour clue also touches the rainbow cards.", NULL},
    {NULL, NULL, NULL},
};

static const game_guide_row BOTS[] = {
    {"info", "The strongest: every clue is a code telling each other player what to do (24.9 of 25 at "
             "3 to 5 players).",
     "It plays only with other info bots: its clues are a code that only they can read, so a table "
     "with a person cannot seat it."},
    {"conventions", "Plays by conventions a person learns in five minutes (play clues, chop saves) and "
                    "reads your clues the same way: the partner for people.", NULL},
    {"rules", "Plays only what the clues prove playable and saves last copies; it reads no conventions.",
     NULL},
    {"random", "Makes any legal move at random.", NULL},
    {NULL, NULL, NULL},
};

static const char *const TURN[] = {
    "You see everyone's cards but your own. On your turn you do one thing: give a clue, play a card or "
    "discard one.",
    "A clue names one colour or one number to another player and shows them every card of theirs it "
    "touches; it costs one of the 8 clue tokens.",
    "Discarding a card wins a clue token back (not when all 8 are there); you then draw.",
    "Playing a card: it fits if it is the next number of its colour's firework (a 1 starts one); a "
    "card that does not fit is discarded and costs one of 3 fuses. You then draw.",
    "Completing a firework with its 5 wins a clue token back.",
    NULL,
};

static const char *const WINNING[] = {
    "Everyone plays together: the team scores one point per card in the fireworks.",
    "The game ends at the third fuse, when every firework is complete, or shortly after the deck runs out: "
    "each player gets one more turn.",
    NULL,
};

const game_guide hn_guide = {
    .summary = "A cooperative fireworks game: you hold your cards facing away from you, so you play them "
               "from your partners' clues. Build five fireworks from 1 to 5 together.",
    .length = "2 to 5 players; a game lasts about 25 minutes (about 60 to 80 turns).",
    .variants = VARIANTS,
    .bots = BOTS,
    .turn = TURN,
    .winning = WINNING,
};
