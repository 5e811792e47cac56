// One numbering for every sentence a person reads: the page's own words, the
// hints, the refusals and the bots' explanations, kept here so that it is
// one decision:
// - piles, groups and positions in a group count from 1, as the engine's
//   sentences do ("build pile 1", "player 2's group 1 at position 3"); the
//   plays' JSON stays 0-based;
// - players are named as the table shows them: the engine's "player 2"
//   (counted from 1) becomes that seat's name (core/state.js playerWords);
// - a table's own positions (the cards of a hand) follow the same rule, in
//   the table's module.

/** A pile, group or position (0-based in the plays) as the page writes it. */
export const nth = (i) => i + 1;
