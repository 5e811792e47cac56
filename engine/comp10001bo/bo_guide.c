/* bo_guide.c: Comp10001-Bo for players (game.h, game_guide): the lobby's
 * and the Rules panel's words. No notation here: that is rules()'s. */
#include "game.h"

static const game_guide_row VARIANTS[] = {
    {"standard", "Two decks of 104 cards; every play follows the colour and value rules.", NULL},
    {"bonus", "Adds four jokers, wild for any value but an Ace, and gives each player one embargo card "
              "that holds an opponent to stockpile plays until they clear it.", NULL},
    {NULL, NULL, NULL},
};

static const game_guide_row BOTS[] = {
    {"planner", "The strongest: plans its whole turn for stockpile progress and ends it with the discard "
                "that helps the other players least.", NULL},
    {"standard", "Plans its turn for stockpile progress but pays little attention to what it leaves for "
                 "the others.", NULL},
    {"random", "Makes any legal play at random: the easiest to beat.", NULL},
    {NULL, NULL, NULL},
};

static const char *const TURN[] = {
    "Each player has a stockpile of 8 cards (only its top card shows), a hand of up to 5 cards and four "
    "discard piles of their own; the four build piles in the middle are shared.",
    "At the start of your turn you draw up to 5 cards, and again whenever your hand runs out during it.",
    "A build pile starts with a 2 or a King and goes up or down one value at a time in one colour; a 2, "
    "King or Ace on top completes it and it goes back into the draw pile.",
    "Your discard piles take cards of alternating colours, one value apart (King and 2 are neighbours), "
    "never an Ace; only you start them, and a card from your hand onto one ends your turn.",
    "You make up to five plays a turn; while any play is possible you must make one.",
    NULL,
};

static const char *const WINNING[] = {
    "The first player to empty their stockpile wins.",
    "The game ends with no winner when the draw pile is empty and nobody can play, or after 20 turns each.",
    NULL,
};

const game_guide bo_guide = {
    .summary = "A race to empty your stockpile onto shared build piles, a Skip-Bo variant from a first-year "
               "programming course. Plan each turn's five plays and feed your opponents nothing.",
    .length = "4 players; a game lasts up to 20 turns each, usually 10 to 15 minutes.",
    .variants = VARIANTS,
    .bots = BOTS,
    .turn = TURN,
    .winning = WINNING,
};
