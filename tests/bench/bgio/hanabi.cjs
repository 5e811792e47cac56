// hanabi.cjs: Hanabi for two to five players written as a boardgame.io 0.50
// game, the anchor's side of BENCH=bgio (tests/bench/bgio.mjs). The rules
// are the standard game's as croupier plays them (docs/rules/hanabi.md):
// 50 cards, hands of five (four from four players), eight clue tokens,
// three strikes, a clue names a colour or a number of the cards it touches
// (at least one), the game ends at three strikes, at 25 or a round after
// the deck ran out. A seat sees every hand but its own (playerView), and no
// one sees the deck's order. Written for the bench from boardgame.io's
// documented game interface (setup, moves, turn.minMoves/maxMoves, endIf,
// playerView, INVALID_MOVE); nothing here is served.
const { INVALID_MOVE } = require('boardgame.io/core');

const COLORS = ['R', 'Y', 'G', 'B', 'W'];
const COUNTS = [3, 2, 2, 2, 1];

function draw(G, p) {
  if (G.deck.length > 0) {
    G.hands[p].push({ card: G.deck.pop(), color: null, number: null });
    if (G.deck.length === 0) G.lastTurns = G.hands.length;
  }
}

function afterMove(G) {
  if (G.lastTurns !== null && G.deck.length === 0) G.lastTurns--;
}

const Hanabi = {
  name: 'hanabi',
  minPlayers: 2,
  maxPlayers: 5,
  seed: 'croupier-bench',
  setup: ({ ctx, random }) => {
    const deck = [];
    for (const c of COLORS) COUNTS.forEach((k, i) => { for (let j = 0; j < k; j++) deck.push(`${c}${i + 1}`); });
    const G = {
      deck: random.Shuffle(deck), hands: [], fireworks: Object.fromEntries(COLORS.map((c) => [c, 0])),
      discards: [], hints: 8, strikes: 0, lastTurns: null,
    };
    const size = ctx.numPlayers <= 3 ? 5 : 4;
    for (let p = 0; p < ctx.numPlayers; p++) {
      G.hands.push([]);
      for (let k = 0; k < size; k++) draw(G, p);
    }
    G.lastTurns = null;
    return G;
  },
  // client: false: every move runs on the server only (a seat's view hides
  // its own cards and the deck, so its client could not run one ahead)
  moves: {
    play: { client: false, move: ({ G, playerID }, i) => {
      const p = Number(playerID), hand = G.hands[p];
      if (!Number.isInteger(i) || i < 0 || i >= hand.length) return INVALID_MOVE;
      const [{ card }] = hand.splice(i, 1);
      const c = card[0], n = Number(card[1]);
      if (G.fireworks[c] + 1 === n) {
        G.fireworks[c] = n;
        if (n === 5 && G.hints < 8) G.hints++;
      } else {
        G.strikes++;
        G.discards.push(card);
      }
      draw(G, p);
      afterMove(G);
      return undefined;
    } },
    discard: { client: false, move: ({ G, playerID }, i) => {
      const p = Number(playerID), hand = G.hands[p];
      if (G.hints >= 8 || !Number.isInteger(i) || i < 0 || i >= hand.length) return INVALID_MOVE;
      const [{ card }] = hand.splice(i, 1);
      G.discards.push(card);
      G.hints++;
      draw(G, p);
      afterMove(G);
      return undefined;
    } },
    hint: { client: false, move: ({ G, playerID }, target, clue) => {
      const hand = G.hands[target];
      if (G.hints <= 0 || target === Number(playerID) || !hand || !clue) return INVALID_MOVE;
      const touched = hand.filter((h) => (clue.color ? h.card[0] === clue.color : Number(h.card[1]) === clue.number));
      if (touched.length === 0) return INVALID_MOVE;
      for (const h of touched) {
        if (clue.color) h.color = clue.color;
        else h.number = clue.number;
      }
      G.hints--;
      afterMove(G);
      return undefined;
    } },
  },
  turn: { minMoves: 1, maxMoves: 1 },
  endIf: ({ G }) => {
    const score = Object.values(G.fireworks).reduce((a, b) => a + b, 0);
    if (G.strikes >= 3 || score === 25 || G.lastTurns === 0) return { score: G.strikes >= 3 ? 0 : score };
    return undefined;
  },
  // a seat never sees its own cards nor the deck's order
  playerView: ({ G, playerID }) => ({
    ...G,
    deck: G.deck.length,
    hands: G.hands.map((h, p) => (String(p) === String(playerID) ? h.map((x) => ({ ...x, card: null })) : h)),
  }),
};

module.exports = { Hanabi };
