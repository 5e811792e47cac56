// One numbering for the page's own words, the hints and the bots' explanations
// (issue 13), kept here so that it is one decision:
// - players, piles, groups and positions in a group count from 0, as the API's
//   plays and the engine's explanations do ("build pile 0", "player 2's group 1");
// - a Hanabi hand counts from 1, card 1 being the oldest, as the conventions
//   bot's explanations do ("I play my card 2"); the plays' JSON stays 0-based.

/** A player, pile, group or position as the page writes it. */
export const nth = (i) => i;

/** A position in a Hanabi hand as the page writes it. */
export const handCard = (i) => i + 1;
