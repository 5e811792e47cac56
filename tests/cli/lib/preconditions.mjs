// preconditions.mjs: the stated preconditions of the course functions
// (the course specifications, the rulings and docs/autograder.md), checked
// on generated arguments. Written apart from the generator and the engine:
// it shares no code with them, so a generator that breaks a precondition
// cannot also hide it here. checkArgs returns the broken ones (strings).

const BO_VALUES = 'A234567890JQK';
const PZ_VALUES = '234567890JQKA';
const SUITS = 'SHDC';
const isArr = Array.isArray;

function cardOk(c, values, jokers) {
  return typeof c === 'string' && ((c.length === 2 && values.includes(c[0]) && SUITS.includes(c[1])) || (jokers && c === 'ZZ'));
}

// No card in sight more often than the decks hold it: two of each, four jokers.
function copies(cards, bad, what) {
  const n = new Map();
  for (const c of cards) n.set(c, (n.get(c) || 0) + 1);
  for (const [c, k] of n) if (k > (c === 'ZZ' ? 4 : 2)) bad.push(`${what}: ${k} copies of ${c}`);
}

// --- Comp10001-Bo -------------------------------------------------------------

const boVal = (c) => BO_VALUES.indexOf(c[0]) + 1; // A=1 .. K=13
const boRed = (c) => c[1] === 'H' || c[1] === 'D';

// A build pile that could have been built: 2 or K first, then the same
// colour, adjacent values, no wrap, never complete (jokers read as any
// value but an Ace, and a pile that can be read as completed is cleared).
function buildPileOk(pile) {
  let reads = null; // set of "v,red"
  for (let i = 0; i < pile.length; i++) {
    const c = pile[i];
    const next = new Set();
    if (c === 'ZZ') {
      if (i === 0) for (const v of [2, 13]) for (const r of [0, 1]) next.add(`${v},${r}`);
      else for (const s of reads) { const [v, r] = s.split(',').map(Number); for (const w of [v - 1, v + 1]) if (w >= 2 && w <= 13) next.add(`${w},${r}`); }
    } else {
      const v = boVal(c), r = boRed(c) ? 1 : 0;
      if (v === 1) return false;
      if (i === 0 ? (v === 2 || v === 13) : [...reads].some((s) => { const [pv, pr] = s.split(',').map(Number); return pr === r && Math.abs(pv - v) === 1; })) next.add(`${v},${r}`);
    }
    if (!next.size) return false;
    if (i > 0 && [...next].some((s) => s.startsWith('2,') || s.startsWith('13,'))) return false; // would be complete
    reads = next;
  }
  return true;
}

function boPlayOk(p, bonus) {
  if (!isArr(p) || p.length !== 3) return false;
  const [t, src, dst] = p;
  const pile2 = (x, n) => isArr(x) && x.length === 2 && Number.isInteger(x[0]) && x[0] >= 0 && x[0] < 4 && Number.isInteger(x[1]) && x[1] >= 0 && x[1] < n;
  const dstOk = isArr(dst) && dst.length === 2 && ((dst[0] === 0 && Number.isInteger(dst[1]) && dst[1] >= 0 && dst[1] < 4) || (dst[0] === 1 && pile2(dst[1], 4)));
  if (t === 3) return src === null && isArr(dst) && dst[0] === null && dst[1] === null;
  if (t === 0 || t === 2) return cardOk(src, BO_VALUES, bonus) && dstOk;
  if (t === 1) return isArr(src) && src.length === 2 && cardOk(src[0], BO_VALUES, bonus) && pile2(src[1], 4) && dstOk;
  if (bonus && t === 4) return src === null && isArr(dst) && dst[0] === 2 && Number.isInteger(dst[1]) && dst[1] >= 0 && dst[1] < 4;
  if (bonus && t === 5) return src === null && dstOk;
  return false;
}

function boTable(a, bonus, bad) {
  const { hand, stock, disc, build } = a;
  const seen = [];
  if (!isArr(hand) || hand.length > 5 || !hand.every((c) => cardOk(c, BO_VALUES, bonus))) bad.push('hand: 0-5 cards');
  else seen.push(...hand);
  if (!isArr(stock) || stock.length !== 4) bad.push('stockpiles: 4');
  else stock.forEach((s, p) => {
    if (!isArr(s) || s.length !== 2 || !Number.isInteger(s[1]) || s[1] < 0 || s[1] > 8) bad.push(`stockpile ${p}: (top, 0-8)`);
    else if ((s[1] === 0) !== (s[0] === null)) bad.push(`stockpile ${p}: a top card exactly when the count is not 0`);
    else if (s[0] !== null) { if (!cardOk(s[0], BO_VALUES, bonus)) bad.push(`stockpile ${p}: a card`); else seen.push(s[0]); }
  });
  if (!isArr(disc) || disc.length !== 4 || !disc.every((d) => isArr(d) && d.length === 4)) bad.push('discard_piles: 4 x 4');
  else disc.flat().forEach((pile, i) => {
    if (!isArr(pile) || !pile.every((c) => cardOk(c, BO_VALUES, bonus) && c[0] !== 'A')) bad.push(`discard pile ${i}: cards, no Ace`);
    else seen.push(...pile);
  });
  if (!isArr(build) || build.length !== 4) bad.push('build_piles: 4');
  else build.forEach((pile, i) => {
    if (!isArr(pile) || !pile.every((c) => cardOk(c, BO_VALUES, bonus)) || !buildPileOk(pile)) bad.push(`build pile ${i}: not a pile that could have been built: ${JSON.stringify(pile)}`);
    else seen.push(...pile);
  });
  copies(seen, bad, 'table');
}

function boHistory(history, player, bonus, holds, embargoed, stock, bad) {
  if (!isArr(history)) return bad.push('play_history: a list');
  let run = 0, lastEmbargo = null, usedMine = false;
  for (const [i, h] of history.entries()) {
    if (!isArr(h) || h.length !== 2 || !Number.isInteger(h[0]) || h[0] < 0 || h[0] > 3 || !boPlayOk(h[1], bonus)) { bad.push(`play_history[${i}]: (player, play)`); continue; }
    run = h[0] === player ? run + 1 : 0;
    if (h[1][0] === 4 && h[0] === player) usedMine = true;
    if (h[1][0] === 4 && h[1][2][1] === player) lastEmbargo = h[0];
    if (h[1][0] === 5 && h[0] === player) lastEmbargo = null;
  }
  if (run >= 5) bad.push('the player has made its 5 plays of the turn already');
  if (bonus) {
    if (holds === usedMine) bad.push(`holds_embargo ${holds}, but the history ${usedMine ? 'shows' : 'does not show'} its embargo play`);
    if (embargoed !== lastEmbargo) bad.push(`embargoed ${embargoed}, the history says ${lastEmbargo}`);
    if (embargoed !== null && stock[player][1] > 3) bad.push('an embargoed player has a stockpile of 3 cards or fewer');
  }
}

function comp10001bo(fn, variant, args, bad) {
  const bonus = variant === 'bonus';
  const card = (c, what) => cardOk(c, BO_VALUES, bonus) || bad.push(`${what}: not a card ${JSON.stringify(c)}`);
  const player = (x, what) => (Number.isInteger(x) && x >= 0 && x < 4) || bad.push(`${what}: a player 0-3`);
  if (fn === 'match_build') {
    card(args[0], 'play_card');
    if (!isArr(args[1]) || !args[1].every((c) => cardOk(c, BO_VALUES, bonus)) || !buildPileOk(args[1])) bad.push('build_pile: a valid build pile');
    else copies([args[0], ...args[1]], bad, 'cards');
  } else if (fn === 'match_discard') {
    card(args[0], 'play_card');
    if (!isArr(args[1]) || !args[1].every((c) => cardOk(c, BO_VALUES, bonus) && c[0] !== 'A')) bad.push('discard_pile: cards, no Ace');
    else copies([args[0], ...args[1]], bad, 'cards');
    player(args[2], 'player_no');
    player(args[3], 'to_player_no');
    if (args.length === 5 && typeof args[4] !== 'boolean') bad.push('from_hand: a bool');
    if (args.length < 4 || args.length > 5) bad.push('4 or 5 arguments');
  } else if (fn === 'is_valid_play') {
    if (!boPlayOk(args[0], bonus) || args[0][0] > 3) bad.push(`play: a well-formed play ${JSON.stringify(args[0])}`);
    player(args[1], 'player_no');
    boTable({ hand: args[2], stock: args[3], disc: args[4], build: args[5] }, bonus, bad);
  } else {
    const b = bonus ? 2 : 0; // comp10001bo_bonus: holds_embargo, embargoed after the hand
    player(args[0], 'player_no');
    if (bonus && typeof args[2] !== 'boolean') bad.push('holds_embargo: a bool');
    if (bonus && args[3] !== null && !(Number.isInteger(args[3]) && args[3] >= 0 && args[3] < 4 && args[3] !== args[0])) bad.push('embargoed: None or another player');
    boTable({ hand: args[1], stock: args[2 + b], disc: args[3 + b], build: args[4 + b] }, bonus, bad);
    if (!bad.length) boHistory(args[5 + b], args[0], bonus, args[2], bonus ? args[3] : null, args[2 + b], bad);
  }
}

// --- Phazed ------------------------------------------------------------------

const pzRank = (c) => PZ_VALUES.indexOf(c[0]) + 2; // 2..14 (Ace)
const pzWild = (c) => c[0] === 'A';
const pzBlack = (c) => c[1] === 'S' || c[1] === 'C';
const accVal = (c) => (pzWild(c) ? 1 : pzRank(c));
const COMPLETE = [34, 55, 68, 76, 81, 84, 86, 87, 88];
const GROUPS = { 1: ['value', 'value'], 2: ['suit'], 3: ['acc', 'acc'], 4: ['value', 'value'], 5: ['run'], 6: ['cacc', 'cacc'], 7: ['crun', 'value'] };

function pzPlayOk(p, bonus, history) {
  if (!isArr(p) || p.length !== 2) return false;
  const [t, x] = p;
  const card = (c) => cardOk(c, PZ_VALUES, bonus);
  switch (t) {
    case 1: return x === null || (history && x === 'XX') || card(x);
    case 2: case 5: return card(x);
    case 3: return isArr(x) && x.length === 2 && Number.isInteger(x[0]) && x[0] >= 1 && x[0] <= 7 && isArr(x[1]) && x[1].length >= 1 && x[1].length <= 2 && x[1].every((g) => isArr(g) && g.length > 0 && g.every(card));
    case 4: return isArr(x) && x.length === 2 && card(x[0]) && isArr(x[1]) && x[1].length === 3 && x[1].every((n) => Number.isInteger(n) && n >= 0) && x[1][0] < 4 && x[1][1] < 2;
    case 6: return bonus && Number.isInteger(x) && x >= 0 && x < 4;
    default: return false;
  }
}

// A group on the table as its phase made it (cards may have been added).
function tableGroupOk(kind, g, open) {
  if (!g.length || g.includes('ZZ')) return false;
  const nat = g.filter((c) => !pzWild(c));
  if (kind === 'acc' || kind === 'cacc') {
    const tot = g.reduce((s, c) => s + accVal(c), 0);
    if (kind === 'cacc' && new Set(g.map(pzBlack)).size !== 1) return false;
    return open ? tot >= 34 && tot <= 88 : COMPLETE.includes(tot);
  }
  if (nat.length < 2) return false;
  if (kind === 'value') return new Set(nat.map(pzRank)).size === 1;
  if (kind === 'suit') return new Set(nat.map((c) => c[1])).size === 1;
  if (g.length > 12) return false;
  if (kind === 'crun' && new Set(nat.map(pzBlack)).size !== 1) return false;
  const starts = new Set(g.map((c, i) => (pzWild(c) ? null : (((pzRank(c) - 2 - i) % 12) + 12) % 12)).filter((s) => s !== null));
  return starts.size === 1;
}

function phazedState(args, variant, bad, mustBeTurn) {
  const bonus = variant === 'bonus';
  const [pid, table, history, status, hand, discard] = args;
  if (!Number.isInteger(pid) || pid < 0 || pid > 3) return bad.push('player_id: 0-3');
  if (!isArr(table) || table.length !== 4) return bad.push('table: 4 phase plays');
  if (!isArr(status) || status.length !== 4) return bad.push('phase_status: 4');
  if (!isArr(hand) || !hand.every((c) => cardOk(c, PZ_VALUES, bonus))) return bad.push('hand: cards');
  if (discard !== null && !cardOk(discard, PZ_VALUES, bonus)) bad.push('discard: a card or None');
  if (!isArr(history)) return bad.push('turn_history: a list');
  // turns in seat order, each a (player, plays); only the last may be unfinished
  const phases = new Map(), placedThisTurn = new Set();
  let size = 10; // the asked player's hand: 10 dealt, then its plays
  for (const [i, turn] of history.entries()) {
    if (!isArr(turn) || turn.length !== 2 || !Number.isInteger(turn[0]) || turn[0] < 0 || turn[0] > 3 || !isArr(turn[1])) { bad.push(`turn_history[${i}]: (player, plays)`); continue; }
    const [who, plays] = turn;
    if (i > 0 && who !== (history[i - 1][0] + 1) % 4) bad.push(`turn_history[${i}]: player ${who} after ${history[i - 1][0]}, out of turn`);
    const last = i === history.length - 1;
    if (!plays.length) { if (!bonus) bad.push(`turn_history[${i}]: an empty turn (a Skip) outside the bonus game`); continue; }
    plays.forEach((p, k) => {
      if (!pzPlayOk(p, bonus, true)) return bad.push(`turn_history[${i}][${k}]: a play`);
      if ((k === 0) !== (p[0] <= 2)) bad.push(`turn_history[${i}]: a turn opens with its one pick-up`);
      if ((p[0] === 5 || p[0] === 6) && k !== plays.length - 1) bad.push(`turn_history[${i}]: a discard ends the turn`);
      if (p[0] === 3) {
        if (phases.has(who)) bad.push(`turn_history[${i}]: a second phase of player ${who}`);
        phases.set(who, p[1][0]);
      }
      if (p[0] === 4 && last) placedThisTurn.add(`${p[1][1][0]},${p[1][1][1]}`);
      if (who === pid) size += p[0] <= 2 ? 1 : p[0] === 3 ? -p[1][1].flat().length : -1;
    });
    const end = plays[plays.length - 1][0];
    if (!last && end !== 5 && end !== 6) bad.push(`turn_history[${i}]: a finished turn ends with a discard`);
  }
  if (size !== hand.length) bad.push(`hand: ${hand.length} cards, but 10 dealt and the history's plays leave ${size}`);
  const seen = [...hand];
  table.forEach((entry, p) => {
    if (!isArr(entry) || entry.length !== 2) return bad.push(`table[${p}]: (phase, groups)`);
    const [ph, groups] = entry;
    if (ph === null) {
      if (!isArr(groups) || groups.length) bad.push(`table[${p}]: (None, [])`);
      if (phases.has(p)) bad.push(`table[${p}]: the history shows player ${p}'s phase`);
      return;
    }
    if (phases.get(p) !== ph) bad.push(`table[${p}]: phase ${ph}, the history says ${phases.get(p)}`);
    const kinds = GROUPS[ph];
    if (!kinds || !isArr(groups) || groups.length !== kinds.length) return bad.push(`table[${p}]: the groups of phase ${ph}`);
    groups.forEach((g, k) => {
      if (!isArr(g) || !g.every((c) => cardOk(c, PZ_VALUES, bonus))) return bad.push(`table[${p}][${k}]: cards`);
      seen.push(...g);
      const open = placedThisTurn.has(`${p},${k}`);
      if (!tableGroupOk(kinds[k], g, open)) bad.push(`table[${p}] group ${k}: not a ${kinds[k]} of phase ${ph}${open ? ' (played to this turn)' : ''}: ${JSON.stringify(g)}`);
    });
  });
  status.forEach((s, p) => {
    const done = bonus ? (isArr(s) && s.length === 7 && s.every((b) => typeof b === 'boolean') ? s : null) : (Number.isInteger(s) && s >= 0 && s <= 7 ? s : null);
    if (done === null) return bad.push(`phase_status[${p}]: ${bonus ? '7 booleans' : '0-7'}`);
    const ph = table[p]?.[0];
    if (ph && (bonus ? !done[ph - 1] : done !== ph)) bad.push(`phase_status[${p}]: phase ${ph} on the table is not counted`);
  });
  if (discard !== null) seen.push(discard);
  copies(seen, bad, 'hand, table and discard');
  const lastTurn = history[history.length - 1];
  const lastPlay = lastTurn?.[1]?.[lastTurn[1].length - 1];
  if (lastPlay?.[0] === 5 && discard !== lastPlay[1]) bad.push(`discard: ${discard}, but ${lastPlay[1]} was just discarded`);
  if (lastPlay?.[0] === 6 && discard !== 'ZZ') bad.push('discard: a Skip was just played');
  if (mustBeTurn && lastTurn) {
    const ended = !lastTurn[1].length || lastPlay[0] === 5 || lastPlay[0] === 6;
    if (pid !== (ended ? (lastTurn[0] + 1) % 4 : lastTurn[0])) bad.push(`player ${pid} is asked to play out of turn`);
  }
}

function phazed(fn, variant, args, bad) {
  const bonus = variant === 'bonus';
  const cards = (g) => isArr(g) && g.every((c) => cardOk(c, PZ_VALUES, bonus));
  if (fn === 'group_type') {
    if (!cards(args[0]) || !args[0].length) bad.push('group: a list of cards');
    else copies(args[0], bad, 'group');
  } else if (fn === 'phase_type') {
    if (!isArr(args[0]) || !args[0].every((g) => cards(g) && g.length)) bad.push('phase: a list of groups of cards');
    else copies(args[0].flat(), bad, 'phase');
  } else if (fn === 'score') {
    if (!cards(args[0]) || args[0].length > 11) bad.push('hand: 0-11 cards');
    else copies(args[0], bad, 'hand');
  } else if (fn === 'is_valid_play') {
    if (!pzPlayOk(args[0], bonus, false)) bad.push(`play: a well-formed play ${JSON.stringify(args[0])}`);
    phazedState(args.slice(1), variant, bad, false);
  } else {
    phazedState(args, variant, bad, true);
  }
}

export function checkArgs(game, fn, variant, args) {
  const bad = [];
  if (game === 'comp10001bo') comp10001bo(fn, variant, args, bad);
  else if (game === 'phazed') phazed(fn, variant, args, bad);
  else bad.push(`no preconditions known for ${game}`);
  return bad;
}
