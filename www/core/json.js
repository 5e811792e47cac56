// Plays compared as JSON: the page keeps no rules, so two plays are the same
// play when the server would read them the same (a hint's play and one of
// GET /legal's, a play the engine lays out in the order /legal lists it).

export const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
