/* fc_guide.c: Five Crowns for players (game.h, game_guide): the lobby's
 * and the Rules panel's words. No notation here: that is rules()'s. */
#include "game.h"

static const game_guide_row VARIANTS[] = {
    {"standard", "Eleven rounds with five suits and six jokers; the lobby's options open every hand to "
                 "view or call the first round's coin toss.", NULL},
    {NULL, NULL, NULL},
};

static const game_guide_row BOTS[] = {
    {"strategy", "The strongest: weighs each pick-up and discard by what it learnt from thousands of "
                 "played games and goes out as soon as it can.", NULL},
    {"greedy", "Keeps the fewest points in its hand at every step.", NULL},
    {"random", "Makes any legal play at random.", NULL},
    {NULL, NULL, NULL},
};

static const char *const TURN[] = {
    "Round 1 deals 3 cards and 3s are wild; each round deals one card more, up to 13 cards in round "
    "11, where Kings are wild. Jokers are always wild.",
    "A turn: take the top card of the draw pile or of the discard pile, then discard one card.",
    "Runs are three or more cards of one suit in order; books are three or more cards of one rank. "
    "Wild cards stand in for any card.",
    "When every card left in your hand forms runs and books, you may go out with your discard; every "
    "other player then takes one last turn.",
    NULL,
};

static const char *const WINNING[] = {
    "At the end of a round everyone's hand is laid out as well as it can be, and the cards left over "
    "count against you (wild cards 20, jokers 50); whoever went out scores 0.",
    "After eleven rounds the lowest total wins.",
    NULL,
};

const game_guide fc_guide = {
    .summary = "A rummy game of eleven rounds with five suits, where the wild card changes every round. "
               "Make runs and books and go out first.",
    .length = "2 to 7 players; a game lasts eleven rounds, about 30 to 45 minutes.",
    .variants = VARIANTS,
    .bots = BOTS,
    .turn = TURN,
    .winning = WINNING,
};
