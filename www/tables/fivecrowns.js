// The Five Crowns table.

import { ApiError, api } from '../core/api.js';
import { attempt } from '../core/game.js';
import { byId, h } from '../core/dom.js';
import { app, say, sayError, seatName, select, setTable } from '../core/state.js';
import { nearHand } from '../core/nearhand.js';
import { readable } from '../core/log.js';
import { placeVerdict } from '../core/verdict.js';

// Five Crowns: draw (draw pile or discard pile), then discard, maybe going out.

const FC_SUITS = {
  S: { sym: '♠', name: 'spades' },
  C: { sym: '♣', name: 'clubs' },
  D: { sym: '♦', name: 'diamonds' },
  H: { sym: '♥', name: 'hearts' },
  T: { sym: 'ψ', name: 'tridents' },
};
const FC_RANKS = { X: ['10', '10'], J: ['J', 'jack'], Q: ['Q', 'queen'], K: ['K', 'king'] };
const FC_RANK_PLURAL = { 3: '3s', 4: '4s', 5: '5s', 6: '6s', 7: '7s', 8: '8s', 9: '9s', X: '10s', J: 'jacks', Q: 'queens', K: 'kings' };

// The view being drawn (a replayed or played back position has its own
// round, so its own wild rank); the live one otherwise (the log's words).
let drawing = null;

function fcCard(card) {
  const view = drawing || app.state;
  const wild = view && view.wild_rank;
  if (typeof card !== 'string') return { rank: '?', sym: '', name: 'unknown card', suit: 'none', text: '?' };
  if (/^J[123]$/.test(card)) return { rank: '★', sym: '', name: 'joker', suit: 'joker', text: 'Joker', joker: true };
  const m = /^(10|[3-9XJQK])([SCDHT])$/.exec(card);
  if (!m) return { rank: '?', sym: '', name: card, suit: 'none', text: card };
  const r = m[1] === '10' ? 'X' : m[1];
  const [rank, rankName] = FC_RANKS[r] || [r, r];
  const suit = FC_SUITS[m[2]];
  return { rank, sym: suit.sym, name: `${rankName} of ${suit.name}`, suit: m[2], text: `${rank}${suit.sym}`, wild: r === wild };
}
const fcName = (card) => { const c = fcCard(card); return c.wild ? `${c.name} (wild)` : c.name; };

export function fcFace(card, extra = '') {
  const c = fcCard(card);
  const cls = `card fc-card fc-${c.suit}${c.wild ? ' fc-wild' : ''}${c.joker ? ' fc-joker' : ''} ${extra}`;
  return h('span', { class: cls, 'aria-hidden': 'true', dataset: { card } },
    h('span', { class: 'card-rank' }, c.rank),
    c.joker ? h('span', { class: 'fc-joker-word' }, 'Joker') : h('span', { class: 'card-suit' }, c.sym),
    c.wild ? h('span', { class: 'fc-wild-mark' }, 'wild') : null);
}
const fcBack = (extra = '') => h('span', { class: `card fc-back ${extra}`, 'aria-hidden': 'true' });

function fcCardText(card) {
  const c = fcCard(card);
  return h('span', { class: `card-text fc-text fc-${c.suit}${c.wild || c.joker ? ' fc-text-wild' : ''}`, title: fcName(card) }, c.text);
}

/** Runs and books as small card groups. */
function fcArrangement(arr, testid) {
  if (!arr) return null;
  const group = (kind, cards, i) => h('li', { class: `fc-group fc-${kind}`, 'data-testid': `${testid}-${kind}-${i}`, 'aria-label': `${kind === 'run' ? 'Run' : 'Book'}: ${cards.map(fcName).join(', ')}` },
    h('span', { class: 'fc-group-kind', 'aria-hidden': 'true' }, kind), h('span', { class: 'fc-mini-row', 'aria-hidden': 'true' }, cards.map((c) => fcFace(c, 'fc-mini'))));
  const runs = (arr.runs || []).map((g, i) => group('run', g, i));
  const books = (arr.books || []).map((g, i) => group('book', g, i));
  const left = arr.left || [];
  return h('div', { class: 'fc-arrangement', 'data-testid': testid },
    runs.length || books.length ? h('ul', { class: 'fc-groups' }, runs, books) : h('p', { class: 'fc-none' }, 'No run or book yet.'),
    h('p', { class: 'fc-left', 'aria-label': left.length ? `Left over: ${left.map(fcName).join(', ')}, ${arr.points} points` : 'Nothing left over: 0 points' },
      h('span', { 'aria-hidden': 'true' }, left.length ? ['Left over: ', h('span', { class: 'fc-mini-row' }, left.map((c) => fcFace(c, 'fc-mini'))), ` = ${arr.points} points`] : 'Nothing left over: 0 points')));
}

/** Why the server would refuse to save this game as a Five Crowns text file
 *  (GET /export?format=fivecrowns-text, engine/fivecrowns/fc_text.c and
 *  api/h_games.c h_export), or null when it can. */
function fcSaveRefusal(a) {
  const s = a.state || {};
  if (a.you === null || a.you === undefined) return 'Only a player at this table can save it.';
  if (s.over) return 'The game is over: there is nothing left to save.';
  if ((s.players || (s.scores || []).length) !== 2) return 'The save file holds 2-player games only.';
  if (s.went_out !== null && s.went_out !== undefined) return `${seatName(s.went_out)} has gone out: save after this round's last turns.`;
  if (s.phase === 'discard') return 'Save before drawing: finish this turn by discarding first.';
  return null;
}

const FC_SUIT_ORDER = 'SCDHT';
const FC_RANK_ORDER = '3456789XJQK';
/** Sort key: suit, then rank; wild cards (this round's wild rank, jokers) last. */
function fcSortKey(card) {
  const c = fcCard(card);
  if (c.joker) return 2000 + +card[1];
  const r = /^10/.test(card) ? 'X' : card[0];
  const k = FC_SUIT_ORDER.indexOf(card[card.length - 1]) * 20 + FC_RANK_ORDER.indexOf(r);
  return c.wild ? 1000 + k : k;
}

/** The hand as groups of indices: the arranger's runs and books when the page
 *  has them (the help mode's /hint carries `arrangement`; the view does not),
 *  then the rest sorted by suit and rank, wild cards last. */
function fcHandGroups(hand, arr) {
  const left = hand.map((c, i) => i);
  const groups = [];
  if (arr) {
    const take = (cards, kind) => {
      const idx = [];
      for (const c of cards) {
        const j = left.findIndex((i) => hand[i] === c);
        if (j < 0) return false;
        idx.push(left.splice(j, 1)[0]);
      }
      groups.push({ kind, idx });
      return true;
    };
    const ok = (arr.runs || []).every((g) => take(g, 'run')) && (arr.books || []).every((g) => take(g, 'book'));
    if (!ok) return fcHandGroups(hand, null);
  }
  left.sort((x, y) => fcSortKey(hand[x]) - fcSortKey(hand[y]) || x - y);
  if (left.length) groups.push({ kind: groups.length ? 'left' : 'sorted', idx: left });
  return groups;
}

/** The arranger's runs and books for our hand. The view carries none; the
 *  help mode's GET /hint does (`arrangement`): asked quietly once per version
 *  on our turn (its advice is shown only when the player presses Hint), kept
 *  in the table's state (app.table.fcArrangement: {key, arr}). Until it is
 *  here, the last one known stands (fcHandGroups drops it if it no longer fits). */
let asked = null; // the version last asked for
function fcHandArrangement(a) {
  if (a.hint && a.hint.arrangement) return a.hint.arrangement;
  const key = `${a.id}:${a.version}`;
  const kept = a.table.fcArrangement;
  if (a.myTurn && (!kept || kept.key !== key) && asked !== key) {
    asked = key;
    api('GET', `/games/${encodeURIComponent(a.id)}/hint`, { token: a.token }).then(({ data }) => {
      if (data && data.arrangement && app.id === a.id && app.version === a.version) setTable('fcArrangement', { key, arr: data.arrangement });
    }).catch(() => { /* the sorted hand stands */ });
  }
  return kept ? kept.arr : null;
}

async function fcSave() {
  try {
    const res = await fetch(`/games/${encodeURIComponent(app.id)}/export?format=fivecrowns-text`, {
      cache: 'no-store', headers: app.token ? { Authorization: `Bearer ${app.token}` } : {},
    });
    const text = await res.text();
    if (!res.ok) {
      let p = null;
      try { p = JSON.parse(text); } catch { p = null; }
      throw new ApiError(res.status, p, res.statusText);
    }
    const cd = res.headers.get('Content-Disposition') || '';
    const m = /filename="?([^";]+)"?/.exec(cd);
    const name = m ? m[1] : `fivecrowns-${app.id}.txt`;
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const link = h('a', { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    say(`Saved as ${name}. Use "Resume from file" under New game to continue it later.`);
  } catch (err) {
    sayError(err, 'Could not save the game');
  }
}

export const FC = {
  // The keys of the table (core/keys.js presses the control a key names;
  // the Rules panel lists them).
  hotkeys: [
    { key: 'D', what: 'draw from the draw pile', keys: ['d'], target: () => 'fc-draw-pile' },
    { key: 'T', what: 'take the top of the discard pile', keys: ['t'], target: () => 'fc-discard-pile' },
    { key: '1 to 9, 0', what: 'discard the card in that place of your hand (0: the tenth)', keys: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0'], target: (k) => `fc-hand-card-${k === '0' ? 9 : +k - 1}` },
  ],
  title: 'Five Crowns',
  defaultPlayers: 2,

  formOptions() {
    return [
      h('div', { class: 'field' },
        h('label', { for: 'ng-opt-call' }, 'Call the coin toss (who starts round 1)'),
        h('select', { id: 'ng-opt-call', 'data-testid': 'new-game-call' },
          h('option', { value: 'heads' }, 'Heads'),
          h('option', { value: 'tails' }, 'Tails'),
          h('option', { value: '' }, 'No call: let the deal decide'))),
      h('div', { class: 'field field-check' },
        h('input', { id: 'ng-opt-open', type: 'checkbox', 'data-testid': 'new-game-open' }),
        h('label', { for: 'ng-opt-open' }, 'The course program\'s open table: every hand and the draw pile on view, for testing and teaching (the game itself hides them)')),
    ];
  },
  readOptions() {
    const o = {};
    const call = byId('ng-opt-call');
    const open = byId('ng-opt-open');
    if (call && call.value) o.call = call.value;
    if (open) o.open = open.checked;
    return o;
  },

  describePlayNodes(play, seat, rec) {
    if (!play || typeof play !== 'object') return [JSON.stringify(play)];
    if (play.draw === 'draw') return ['drew from the draw pile', rec && rec.card && (seat === app.you || (app.state && app.state.open)) ? [' (', fcCardText(rec.card), ')'] : ''];
    if (play.draw === 'discard') return rec && rec.card ? ['took ', fcCardText(rec.card), ' from the discard pile'] : ['took the top of the discard pile'];
    if (play.discard) return ['discarded ', fcCardText(play.discard), play.go_out ? h('strong', {}, ' and went out') : ''];
    return [JSON.stringify(play)];
  },

  describePlay(play, seat, opts = {}) {
    if (opts.forHint && play) {
      if (play.draw === 'draw') return 'draw from the draw pile';
      if (play.draw === 'discard') return `take the ${fcName(app.state.discard_top)} from the discard pile`;
      if (play.discard) return `discard the ${fcName(play.discard)}${play.go_out ? ' and go out' : ''}`;
    }
    return h('span', {}, FC.describePlayNodes(play, seat)).textContent;
  },

  logExtra(rec) {
    const re = rec.round_end;
    if (!re) return null;
    const pts = (re.points || []).map((p, i) => `${seatName(i)} ${p}`).join(' · ');
    const how = re.ended === 'out' && re.went_out !== null && re.went_out !== undefined ? `${seatName(re.went_out)} went out`
      : re.ended === 'called-off' ? 'called off, nobody went out' : '';
    return h('span', { class: 'log-round-end', 'data-testid': 'log-round-end' }, `Round ${re.round} over${how ? `: ${how}` : ''}. ${pts}`);
  },

  statusExtra(s) {
    const parts = [`round ${s.round}/${s.rounds_total || 11}`, `wild ${FC_RANK_PLURAL[s.wild_rank] || s.wild_rank}`];
    if (!s.over && s.phase) parts.push(s.phase === 'draw' ? 'draw a card' : 'discard a card');
    if (s.went_out !== null && s.went_out !== undefined && !s.over) parts.push(`${seatName(s.went_out)} went out: last turns`);
    return parts.join(' · ');
  },

  resultText(s) {
    const totals = (s.scores || []).map((p, i) => `${seatName(i)} ${p}`).join(', ');
    if (s.winner !== null && s.winner !== undefined) {
      return `${s.winner === app.you ? 'Game over: you won' : `Game over: ${seatName(s.winner)} won`} with the lowest score (${totals}).`;
    }
    return `Game over: a tie (${totals}).`;
  },

  summaryRounds(s) {
    if (!Array.isArray(s.rounds)) return null;
    return {
      unit: 'Round',
      rows: s.rounds.map((r) => ({
        label: `Round ${r.round}`, points: r.points || [],
        note: r.went_out !== null && r.went_out !== undefined ? `${seatName(r.went_out)} went out`
          : r.ended === 'called-off' ? 'called off (nobody went out)' : '',
      })),
    };
  },

  /** Play again with the table's options (open hands, the coin-toss call). */
  dealOptions(s) {
    const o = {};
    if (typeof s.open === 'boolean') o.open = s.open;
    if (s.toss && s.toss.call) o.call = s.toss.call;
    return o;
  },

  render(a) {
    drawing = a.state;
    try {
      return fcTable(a);
    } finally {
      drawing = null;
    }
  },

  /** What a move touched (core/board.js marks it): the pile drawn from, the
   *  discard pile discarded to. */
  moveMarks(rec) {
    const play = rec.play || {};
    if (play.draw === 'draw') return ['fc-draw-pile'];
    if (play.draw === 'discard' || play.discard) return ['fc-discard-pile'];
    return [];
  },

  /** Save is not a play, but it belongs with the controls. */
  extraPlays(a) {
    if (!a.id || a.mode !== 'live') return [];
    const why = fcSaveRefusal(a);
    // Offered only where the server can save; otherwise disabled, with the reason beside it.
    return [h('button', {
      type: 'button', class: 'btn btn-secondary', 'data-testid': 'fc-save', onclick: fcSave, disabled: !!why,
      'aria-label': 'Save the game to a file', 'aria-describedby': why ? 'fc-save-why' : null,
    }, 'Save'), why ? h('span', { class: 'fc-save-why', id: 'fc-save-why', 'data-testid': 'fc-save-why' }, why) : null].filter(Boolean);
  },
};

/** The whole table for context `a` (core/board.js). */
function fcTable(a) {
  const s = a.state;
  const you = a.you === null || a.you === undefined ? null : a.you;
  const playing = a.myTurn;
  const legal = playing ? a.legal : [];
  const n = s.players || (s.scores || []).length;
  const goOut = a.selection === 'go_out';
  const canDraw = (src) => legal.some((p) => p.draw === src);
  const canGoOut = legal.some((p) => p.discard && p.go_out);
  const hintPlay = a.hint && a.hint.play;

  // --- round, wild, scores
  const toss = s.toss && s.round === 1
    ? h('p', { class: 'fc-toss', 'data-testid': 'fc-toss' },
      s.toss.call ? `Coin toss: ${you === 0 ? 'you' : seatName(0)} called ${s.toss.call}, it came up ${s.toss.result}` : `Coin toss: ${s.toss.result}`,
      s.starter !== null && s.starter !== undefined ? ` — ${seatName(s.starter)} started.` : '.')
    : null;
  const info = h('section', { class: 'fc-info', 'aria-label': 'Round and scores' },
    h('p', { class: 'fc-round', 'data-testid': 'fc-round' }, `Round ${s.round} of ${s.rounds_total || 11}`,
      h('span', { class: 'fc-sub' }, ` · ${s.cards_dealt} cards each`)),
    h('p', { class: 'fc-wildinfo', 'data-testid': 'fc-wild' }, 'Wild: ', h('strong', {}, FC_RANK_PLURAL[s.wild_rank] || s.wild_rank), ' and jokers'),
    h('table', { class: 'fc-scores', 'data-testid': 'fc-scores' },
      h('caption', { class: 'visually-hidden' }, 'Scores so far (lowest wins)'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Score'))),
      h('tbody', {}, (s.scores || []).map((p, i) => h('tr', { class: i === you ? 'you' : '' },
        h('th', { scope: 'row' }, seatName(i)), h('td', { 'data-testid': `fc-score-${i}` }, p))))),
    toss,
    h('p', { class: 'fc-legend', 'aria-hidden': 'true' }, 'Suits: ',
      Object.entries(FC_SUITS).map(([k, v]) => h('span', { class: `fc-text fc-${k}` }, `${v.sym} ${v.name} `)),
      h('span', { class: 'fc-text fc-joker' }, '★ joker')));

  // --- piles
  const drawHinted = hintPlay && hintPlay.draw === 'draw';
  const discHinted = hintPlay && hintPlay.draw === 'discard';
  const pileClick = (src) => () => {
    if (a.busy) return;
    if (!playing) { say(s.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
    // Legal or not, the server judges (its verdict shows by the pile).
    attempt({ draw: src }, src === 'draw' ? 'fc-draw-pile' : 'fc-discard-pile');
  };
  const drawBtn = h('button', {
    type: 'button', class: `pile fc-pile${canDraw('draw') ? ' playable target' : ''}${drawHinted ? ' hinted' : ''}`, 'data-testid': 'fc-draw-pile',
    'aria-disabled': playing ? null : 'true',
    'aria-label': `Draw pile, face down, ${s.draw_count} cards${canDraw('draw') ? ': draw its top card' : ''}${drawHinted ? ', hint: draw here' : ''}`,
    onclick: pileClick('draw'),
  }, s.draw_count ? fcBack() : h('span', { class: 'card card-empty' }, 'empty'), h('span', { class: 'count', 'aria-hidden': 'true' }, s.draw_count));
  const discBtn = h('button', {
    type: 'button', class: `pile fc-pile${canDraw('discard') ? ' playable target' : ''}${discHinted ? ' hinted' : ''}`, 'data-testid': 'fc-discard-pile',
    'aria-disabled': playing ? null : 'true',
    'aria-label': `Discard pile: ${s.discard_top ? `${fcName(s.discard_top)} on top` : 'empty'}, ${s.discard_count} cards${canDraw('discard') ? ': take the top card' : ''}${discHinted ? ', hint: take this card' : ''}`,
    onclick: pileClick('discard'),
  }, s.discard_top ? fcFace(s.discard_top) : h('span', { class: 'card card-empty' }, 'empty'), h('span', { class: 'count', 'aria-hidden': 'true' }, s.discard_count));
  const pileList = (cards, testid, summary) => Array.isArray(cards)
    ? h('details', { class: 'fc-pile-list', 'data-testid': testid },
      h('summary', {}, summary),
      h('p', { class: 'fc-mini-row fc-wrap' }, cards.map((c) => fcFace(c, 'fc-mini'))))
    : null;
  const piles = h('section', { class: 'fc-piles', 'aria-label': 'Draw and discard piles', 'data-area': 'actions' },
    h('div', { class: 'fc-pile-wrap' }, h('span', { class: 'pile-caption' }, 'Draw pile'), drawBtn),
    h('div', { class: 'fc-pile-wrap' }, h('span', { class: 'pile-caption' }, 'Discard pile'), discBtn),
    h('div', { class: 'fc-pile-lists' },
      pileList(s.draw_pile, 'fc-draw-pile-list', `Draw pile (${s.draw_count}, top first) — on view, but play as if you could not see it`),
      pileList(s.discard_pile, 'fc-discard-pile-list', `Discard pile (${s.discard_count}, top first)`)));

  // --- a player's area
  const playerArea = (seat) => {
    const isYou = seat === you;
    const cards = isYou ? (s.hand || []) : ((s.hands || [])[seat] || null);
    const size = (s.hand_sizes || [])[seat] || 0;
    const isCurrent = s.current === seat && !s.over;
    const header = h('h3', { class: 'player-name' },
      h('span', {}, seatName(seat)),
      isCurrent ? h('span', { class: 'badge badge-turn' }, s.phase === 'discard' ? 'to discard' : 'to draw') : null,
      s.went_out === seat ? h('span', { class: 'badge badge-win' }, 'went out') : null,
      s.over && s.winner === seat ? h('span', { class: 'badge badge-win' }, 'winner') : null,
      h('span', { class: 'fc-seat-score' }, `score ${(s.scores || [])[seat] ?? 0}`));
    let hand;
    if (isYou) {
      const discarding = playing && s.phase === 'discard';
      const groups = fcHandGroups(cards, fcHandArrangement(a));
      const cardBtn = (i) => {
        const card = cards[i];
        const plain = legal.find((p) => p.discard === card && !p.go_out);
        const out = legal.find((p) => p.discard === card && p.go_out);
        const play = goOut ? out : (plain || out);
        const ok = discarding && !!play;
        const isHint = hintPlay && hintPlay.discard === card && cards.indexOf(card) === i;
        return h('button', {
          type: 'button', class: `hand-card${ok ? ' playable' : ''}${ok && goOut ? ' target' : ''}${isHint ? ' hinted' : ''}`, 'data-testid': `fc-hand-card-${i}`,
          'aria-disabled': playing ? null : 'true',
          'aria-label': `${fcName(card)}${ok ? (play.go_out ? ': discard it and go out' : ': discard it') : ''}${isHint ? ', hint: discard this card' : ''}`,
          onclick: () => {
            if (a.busy) return;
            if (!playing) { say(s.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
            // Legal or not, the server judges (its verdict shows by the card).
            attempt(play || (goOut ? { discard: card, go_out: true } : { discard: card }), `fc-hand-card-${i}`);
          },
        }, fcFace(card));
      };
      const groupWords = { run: 'Run', book: 'Book', left: 'Not in a run or book', sorted: 'Sorted by suit and rank, wild cards last' };
      hand = h('div', { class: 'hand fc-hand fc-grouped', role: 'group', 'aria-label': 'Your hand', 'data-testid': 'fc-hand' },
        groups.map((g, gi) => h('div', { class: `fc-hand-group fc-hand-${g.kind}`, role: 'group', 'aria-label': groupWords[g.kind], 'data-testid': `fc-hand-group-${gi}`, dataset: { kind: g.kind } },
          groups.length > 1 || g.kind !== 'sorted' ? h('span', { class: 'fc-hand-group-kind', 'aria-hidden': 'true' }, g.kind === 'left' ? 'rest' : g.kind) : null,
          g.idx.map(cardBtn))));
    } else if (cards) {
      hand = h('div', { class: 'hand fc-hand fc-open', role: 'group', 'aria-label': `${seatName(seat)}'s hand (open table): ${cards.map(fcName).join(', ')}`, 'data-testid': `fc-hand-${seat}` },
        cards.map((card) => fcFace(card)));
    } else {
      hand = h('div', { class: 'hand fc-hand fc-closed', role: 'img', 'aria-label': `${seatName(seat)}'s hand: ${size} cards, face down`, 'data-testid': `fc-hand-${seat}` },
        Array.from({ length: size }, () => fcBack()));
    }
    const extras = [];
    if (isYou && playing && s.phase === 'discard') {
      extras.push(h('div', { class: 'fc-go-out-row', 'data-area': 'actions' },
        h('button', {
          type: 'button', class: `btn ${goOut ? 'btn-primary' : 'btn-secondary'}`, 'data-testid': 'fc-go-out',
          'aria-pressed': String(goOut), // always offered: the server judges a claim to go out
          onclick: () => select('go_out', { keepHint: true }),
        }, goOut ? 'Going out: pick the card to discard' : 'Go out'),
        h('span', { class: 'fc-note' }, canGoOut
          ? (goOut ? 'The highlighted cards let the rest of your hand form runs and books.' : 'You can go out: press "Go out", then pick the card to discard.')
          : (goOut ? 'No discard lets you go out now; pick a card and the table will say why.' : 'Going out needs the cards left after your discard to form runs and books.'))));
    }
    return h('section', {
      class: `player fc-player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}`, 'data-testid': `player-${seat}`, 'data-area': isYou ? 'you' : null,
      'aria-label': isYou ? 'Your area' : `${seatName(seat)}'s area`,
    }, header, hand, ...extras, isYou ? nearHand(a) : null);
  };

  // --- help mode advice: the instruction in bold, then the engine's reason
  // (its line says the instruction too: "Take the 7 of hearts from the
  // discard pile: it completes ...")
  const reason = (t) => { const said = readable(t || ''); const i = said.indexOf(': '); return i < 0 ? said : said.slice(i + 2).replace(/^./, (c) => c.toUpperCase()); };
  let advice = null;
  if (a.hint && a.hint.arrangement) {
    const hnt = a.hint;
    advice = h('section', { class: 'fc-advice', 'data-testid': 'fc-advice', 'aria-labelledby': 'fc-advice-title' },
      h('h3', { class: 'area-title', id: 'fc-advice-title' }, `Help${hnt.strategy ? ` · advice of the ${hnt.strategy} bot` : ''}`),
      hnt.draw ? h('p', { 'data-testid': 'fc-advice-draw' }, h('strong', {}, hnt.draw.source === 'discard' ? 'Take the discard. ' : 'Draw from the draw pile. '), reason(hnt.draw.why)) : null,
      hnt.discard ? h('p', { 'data-testid': 'fc-advice-discard' }, h('strong', {}, 'Discard ', fcCardText(hnt.discard.card), '. '), reason(hnt.discard.why)) : null,
      h('p', { class: 'fc-advice-why' }, readable(hnt.arrangement.why)),
      fcArrangement(hnt.arrangement, 'fc-advice-arrangement'),
      // Before the draw nobody goes out: the advice says what comes after it, with no verdict of its own.
      h('p', { 'data-testid': 'fc-advice-go-out' }, hnt.draw ? null : h('strong', {}, hnt.go_out ? 'Go out. ' : 'Do not go out yet. '), readable(hnt.go_out_why || '')));
  }

  // --- finished rounds
  const rounds = s.rounds || [];
  const roundsTable = rounds.length ? h('section', { class: 'fc-rounds', 'data-testid': 'fc-rounds', 'aria-labelledby': 'fc-rounds-title' },
    h('h3', { class: 'area-title', id: 'fc-rounds-title' }, 'Finished rounds (points scored)'),
    h('div', { class: 'fc-table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Round'), Array.from({ length: n }, (_, i) => h('th', { scope: 'col' }, seatName(i))))),
      h('tbody', {}, rounds.map((r) => h('tr', { 'data-testid': `fc-round-${r.round}` },
        h('th', { scope: 'row' }, `${r.round} (wild ${FC_RANK_PLURAL['3456789XJQK'[r.round - 1]] || ''})`),
        (r.points || []).map((p, i) => h('td', {}, p, r.went_out === i ? h('span', { class: 'badge badge-win' }, 'out') : null))))))),
    h('details', { class: 'fc-layouts', 'data-testid': 'fc-last-layouts' },
      h('summary', {}, `How the hands were laid out in round ${rounds[rounds.length - 1].round}`),
      ((rounds[rounds.length - 1].layouts) || []).map((l, i) => h('div', { class: 'fc-layout' },
        h('h4', {}, `${seatName(i)}: ${l.points} points`), fcArrangement(l, `fc-layout-${i}`))))) : null;

  const order = [];
  for (let i = 1; i <= n; i++) order.push(you === null ? i - 1 : (you + i) % n);
  const others = order.filter((x) => x !== you);
  const help = h('p', { class: 'help', 'data-testid': 'play-help' },
    playing ? (s.phase === 'draw' ? 'Draw: click the draw pile or the discard pile.'
      : (goOut ? 'Pick the card to discard as you go out (Escape cancels).' : 'Discard: click a card in your hand.'))
      : (s.over ? '' : 'Waiting for the other players.'));
  return placeVerdict(h('div', { class: 'fc-table' },
    info,
    h('div', { class: 'opponents fc-opponents' }, others.map(playerArea)),
    piles,
    you === null ? null : playerArea(you),
    help,
    advice,
    roundsTable), a.verdict);
}
