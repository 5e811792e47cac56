// The Phazed table.

import { h } from '../core/dom.js';
import { attempt, sendPlay } from '../core/game.js';
import { same } from '../core/json.js';
import { app, pref, say, seatName, select, setPref } from '../core/state.js';
import { nth } from '../core/numbering.js';
import { nearHand } from '../core/nearhand.js';
import { placeVerdict } from '../core/verdict.js';
import { boCard, readableCodes } from './french-cards.js';
import { phasePager } from './phazed-phases.js';
import { phaseTray, trayGroupOf, trayTakesCard } from './phazed-tray.js';

// Phazed: pick up (deck or discard), then maybe lay the phase for this hand,
// place cards on groups on the table, and discard (bonus: play a Joker as Skip).
// Plays are the reference tuples as arrays: [1,null] [2,card] [3,[type,groups]]
// [4,[card,[player,group,index]]] [5,card] [6,target].

const PZ_PHASES = {
  1: { name: 'two sets of three', groups: ['set of three', 'set of three'] },
  2: { name: 'seven of one suit', groups: ['seven of one suit'] },
  3: { name: 'two 34-accumulations', groups: ['34-accumulation', '34-accumulation'] },
  4: { name: 'two sets of four', groups: ['set of four', 'set of four'] },
  5: { name: 'a run of eight', groups: ['run of eight'] },
  6: { name: 'two one-colour 34-accumulations', groups: ['one-colour accumulation', 'one-colour accumulation'] },
  7: { name: 'a one-colour run of four and a set of four', groups: ['one-colour run of four', 'set of four'] },
};
const PZ_VALUES = '234567890JQKA';
const PZ_SUITS = 'SHDC';

function pzCard(card) {
  const c = boCard(card);
  return { ...c, wild: typeof card === 'string' && card[0] === 'A', joker: card === 'ZZ', name: card === 'ZZ' ? 'joker (Skip card)' : (card && card[0] === 'A' ? `${c.name} (wild)` : c.name) };
}
function pzFace(card, extra = '') {
  const c = pzCard(card);
  return h('span', { class: `card card-${c.colour}${c.wild ? ' pz-wild' : ''}${c.joker ? ' pz-joker' : ''} ${extra}`, 'aria-hidden': 'true', dataset: { card } },
    h('span', { class: 'card-rank' }, c.joker ? 'Skip' : c.rank),
    h('span', { class: 'card-suit' }, c.joker ? '★' : c.sym),
    c.wild ? h('span', { class: 'pz-wild-mark' }, 'wild') : null);
}
function pzText(card) {
  const c = pzCard(card);
  return h('span', { class: `card-text card-${c.colour}`, title: c.name }, c.joker ? 'Skip★' : c.text);
}
const pzMiniRow = (cards) => h('span', { class: 'pz-mini-row', 'aria-hidden': 'true' }, (cards || []).map((c) => pzFace(c, 'pz-mini')));
const pzGroupsText = (groups) => (groups || []).map((g) => g.map((c) => pzCard(c).text).join(' ')).join(', then ');
const pzWho = (p, lower) => (p === app.you ? (lower ? 'you' : 'You') : seatName(p));
const pzWhose = (p) => (p === app.you ? 'your' : `${seatName(p)}'s`);

function pzSortKey(card, by) {
  if (card === 'ZZ') return 1000;
  const v = PZ_VALUES.indexOf(card[0]);
  const su = PZ_SUITS.indexOf(card[1]);
  return by === 'suit' ? (card[0] === 'A' ? 900 + su : su * 20 + v) : v * 10 + su;
}

/** Phase progress: standard counts phases done (0-7), bonus has 7 flags. */
function pzProgress(st) {
  if (Array.isArray(st)) return { done: st.filter(Boolean).length, flags: st };
  const n = +st || 0;
  return { done: n, flags: Array.from({ length: 7 }, (_, i) => i < n) };
}

function pzAccText(acc) {
  if (!acc) return '';
  return acc.complete ? `${acc.total} — complete; next ${acc.next}` : `${acc.total} of ${acc.next}, ${acc.next - acc.total} to go`;
}

/** The phase(s) a player still needs this hand, in words (shown on the board). */
function pzNeeds(s, seat, bonus) {
  const laid = ((s.table || [])[seat] || [null])[0];
  if (laid !== null && laid !== undefined) return { laid: true, text: `Laid phase ${laid} (${(PZ_PHASES[laid] || {}).name || ''}) this hand` };
  const pr = pzProgress((s.phase_status || [])[seat]);
  if (pr.done >= 7) return { laid: false, text: 'All 7 phases done' };
  if (bonus) {
    const open = pr.flags.map((f, i) => (f ? null : i + 1)).filter(Boolean);
    return { laid: false, text: `Needs one of phases ${open.join(', ')} this hand` };
  }
  const next = pr.done + 1;
  return { laid: false, text: `Needs phase ${next} this hand: ${PZ_PHASES[next].name}` };
}

const PZ_START_KEY = (id) => `croupier.phazed.start.${id}`;

/** How a hand ended, in words: {reason, penalties} of the view's
 *  hands_played or a hand_over record. The player who went out scores 0,
 *  and only they can (every card left in a hand costs points). */
function handOverWords(r) {
  if (r.reason === 'out') {
    const zero = (r.penalties || []).map((p, i) => (p === 0 ? i : -1)).filter((i) => i >= 0);
    return zero.length === 1 ? `${seatName(zero[0])} went out` : 'a player went out';
  }
  if (r.reason === 'deck-exhausted') return 'the deck ran out';
  if (r.reason === 'turn-limit') return 'the turn limit was reached';
  return 'it ended';
}


export const PZ = {
  // The keys of the table (core/keys.js presses the control a key names;
  // the Rules panel lists them).
  hotkeys: [
    { key: 'D', what: 'pick up from the deck', keys: ['d'], target: () => 'pz-deck' },
    { key: 'T', what: 'take the top of the discard pile (or, with a card picked, discard it there)', keys: ['t'], target: () => 'pz-discard' },
    { key: '1 to 9, 0', what: 'pick the card in that place of your hand (0: the tenth)', keys: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0'], target: (k) => `pz-hand-card-${k === '0' ? 9 : +k - 1}` },
    { key: 'X', what: 'discard the card you picked', keys: ['x'], target: () => 'pz-discard-button' },
  ],
  title: 'Phazed',
  // the server takes back a phase laid or a card placed before the discard
  takesBack: true,
  defaultPlayers: 4,

  /** GET /plays gives the current hand's turn history ([seat, [plays]]); make log records of it.
   *  The record numbers continue from where this hand began (remembered by render). */
  historyRecords(plays) {
    if (!plays.length || !Array.isArray(plays[0])) return plays;
    const s = app.state || {};
    let start = null;
    try {
      const m = JSON.parse(sessionStorage.getItem(PZ_START_KEY(app.id)) || 'null');
      if (m && m.hand === s.hand_number) start = m.start;
    } catch { start = null; }
    const out = [];
    plays.forEach(([seat, list], t) => {
      (list || []).forEach((play, i) => {
        const k = out.length;
        const last = i === list.length - 1;
        const ended = last && (t < plays.length - 1 || play[0] === 5 || play[0] === 6);
        out.push({ n: start !== null ? start + k : `h${s.hand_number}.${k}`, seat, play, turn_ending: ended });
      });
    });
    return out;
  },

  /** Card codes in the bots' explanations in words: "0H" -> "10♥", "ZZ" -> "Skip (joker)". */
  explainText(text) {
    return readableCodes(text, 'Skip (joker)');
  },

  describePlayNodes(play, seat, rec) {
    if (!Array.isArray(play)) return [JSON.stringify(play)];
    const [t, x] = play;
    switch (t) {
      case 1: return ['drew from the deck', x && x !== 'XX' ? [' (', pzText(x), ')'] : ''];
      case 2: return ['took ', pzText(x), ' from the discard pile'];
      case 3: {
        const [type, groups] = x || [];
        return [h('strong', {}, `played phase ${type}`), ': ', (groups || []).map((g, i) => [i ? ', then ' : '', g.map((c, j) => [j ? ' ' : '', pzText(c)])])];
      }
      case 4: {
        const [card, [p, g, i]] = x;
        return ['placed ', pzText(card), ` on ${p === seat ? 'own' : `${pzWhose(p)}`} group ${nth(g)} at position ${nth(i)}`];
      }
      case 5: return ['discarded ', pzText(x)];
      case 6: return ['played a Skip on ', pzWho(x, true)];
      default: return [JSON.stringify(play)];
    }
  },

  describePlay(play, seat, opts = {}) {
    if (opts.forHint && Array.isArray(play)) {
      const [t, x] = play;
      if (t === 1) return 'draw from the deck';
      if (t === 2) return `take the ${pzCard(x).name} from the discard pile`;
      if (t === 3) return `play phase ${x[0]}: ${pzGroupsText(x[1])}`;
      if (t === 4) return `place the ${pzCard(x[0]).name} on ${pzWhose(x[1][0])} group ${nth(x[1][1])}`;
      if (t === 5) return `discard the ${pzCard(x).name}`;
      if (t === 6) return `play a Skip on ${seatName(x)}`;
    }
    return h('span', {}, PZ.describePlayNodes(play, seat)).textContent;
  },

  logExtra(rec) {
    const parts = [];
    if (Array.isArray(rec.skipped) && rec.skipped.length) {
      parts.push(h('span', { class: 'log-why', 'data-testid': 'log-skipped' }, `Skipped: ${rec.skipped.map((p) => pzWho(p, true)).join(', ')}`));
    }
    const ho = rec.hand_over;
    if (ho) {
      const pen = (ho.penalties || []).map((p, i) => `${seatName(i)} +${p}`).join(' · ');
      parts.push(h('span', { class: 'log-round-end', 'data-testid': 'log-hand-end' }, `Hand ${ho.hand} over: ${handOverWords(ho)}. ${pen}`));
    }
    return parts.length ? parts : null;
  },

  statusExtra(s) {
    const parts = [`hand ${s.hand_number}/${s.max_hands || 20}`];
    if (!s.over && s.turn_phase) parts.push(s.turn_phase === 'pick-up' ? 'pick up a card' : 'play or discard');
    return parts.join(' · ');
  },

  resultText(s) {
    const ws = Array.isArray(s.winners) ? s.winners : (s.winner !== null && s.winner !== undefined ? [s.winner] : []);
    const totals = (s.scores || []).map((p, i) => `${seatName(i)} ${p}`).join(', ');
    if (!ws.length) return `Game over (${totals}).`;
    const names = ws.map((w) => (w === app.you ? 'you' : seatName(w)));
    return `Game over: ${names.join(' and ')} won${ws.length > 1 ? ' (tie)' : ''}. Penalty points: ${totals}.`;
  },

  summaryColumns(s) {
    return Array.isArray(s.phase_status) ? [['Phases done', (p) => s.phase_status[p]]] : [];
  },

  summaryRounds(s) {
    if (!Array.isArray(s.hands_played)) return null;
    return { unit: 'Hand', rows: s.hands_played.map((r) => ({ label: `Hand ${r.hand}`, points: r.penalties || [], note: handOverWords(r) })) };
  },

  render(a) {
    const s = a.state;
    const you = a.you === null || a.you === undefined ? null : a.you;
    const playing = a.myTurn;
    const legal = playing ? a.legal : [];
    const n = s.players || (s.hand_sizes || []).length;
    const hint = a.hint && Array.isArray(a.hint.play) ? a.hint.play : null;
    const hand = s.hand || [];
    const sel = typeof a.selection === 'string' && a.selection.startsWith('pz:') ? +a.selection.slice(3) : null;
    const selCard = sel !== null ? hand[sel] : null;
    const bonus = s.variant === 'bonus' || app.variant === 'bonus';
    const pickUp = s.turn_phase === 'pick-up';

    // Remember where this hand's records begin, so a reload can number the history.
    const nums = [...a.log.keys()].filter((k) => typeof k === 'number');
    if (nums.length && Array.isArray(s.turn_history)) {
      const len = s.turn_history.reduce((t, [, l]) => t + (l || []).length, 0);
      try { sessionStorage.setItem(PZ_START_KEY(a.id), JSON.stringify({ hand: s.hand_number, start: Math.max(...nums) - len + 1 })); } catch { /* ignore */ }
    }

    const placesFor = (card) => legal.filter((p) => p[0] === 4 && p[1][0] === card);
    const discardOf = (card) => legal.find((p) => p[0] === 5 && p[1] === card);
    const cardHasPlay = (card) => !!discardOf(card) || placesFor(card).length > 0;
    const fail = (msg) => say(msg, 'error');
    const guard = () => {
      if (a.busy) return false;
      if (!playing) { fail(s.over ? 'The game is over.' : 'It is not your turn.'); return false; }
      return true;
    };

    // --- hand, dealer, per-player progress and scores
    const progressPips = (seat) => {
      const pr = pzProgress((s.phase_status || [])[seat]);
      const label = bonus
        ? `Phases done: ${pr.flags.map((f, i) => (f ? i + 1 : null)).filter(Boolean).join(', ') || 'none'} (${pr.done} of 7)`
        : `Phase ${pr.done} of 7 done${pr.done < 7 ? `; this hand: phase ${pr.done + ((s.table || [])[seat] && s.table[seat][0] !== null ? 0 : 1)}` : ''}`;
      return h('span', { class: 'pz-pips', role: 'img', 'aria-label': label, title: label, 'data-testid': `pz-progress-${seat}` },
        pr.flags.map((f, i) => h('span', { class: `pz-pip${f ? ' on' : ''}`, 'aria-hidden': 'true' }, bonus ? i + 1 : '')),
        h('span', { class: 'pz-pip-text', 'aria-hidden': 'true' }, bonus ? `${pr.done}/7` : `phase ${pr.done} of 7`));
    };
    const info = h('section', { class: 'pz-info', 'aria-label': 'Hand and scores' },
      h('p', { class: 'pz-hand-no', 'data-testid': 'pz-hand-number' }, `Hand ${s.hand_number} of ${s.max_hands || 20}`,
        h('span', { class: 'pz-sub' }, ` · dealer ${seatName(s.dealer)}`)),
      h('div', { class: 'pz-table-wrap' }, h('table', { class: 'pz-scores', 'data-testid': 'pz-scores' },
        h('caption', { class: 'visually-hidden' }, 'Players: phases done, cards in hand, penalty points (lower is better)'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Phases'), h('th', { scope: 'col' }, 'Cards'), h('th', { scope: 'col' }, 'Points'))),
        h('tbody', {}, Array.from({ length: n }, (_, i) => h('tr', { class: `${i === you ? 'you' : ''}${s.current === i && !s.over ? ' current' : ''}` },
          h('th', { scope: 'row' }, seatName(i), s.current === i && !s.over ? h('span', { class: 'visually-hidden' }, ' (to play)') : null),
          h('td', {}, progressPips(i)),
          h('td', { 'data-testid': `pz-hand-size-${i}` }, (s.hand_sizes || [])[i] ?? ''),
          h('td', { 'data-testid': `pz-score-${i}` }, (s.scores || [])[i] ?? 0)))))));

    // --- deck and discard
    const canDeck = legal.some((p) => p[0] === 1);
    const canTake = legal.find((p) => p[0] === 2);
    const discardTarget = selCard !== null && !!discardOf(selCard);
    const deckHint = hint && hint[0] === 1;
    const discHint = hint && (hint[0] === 2 || hint[0] === 5);
    const deckBtn = h('button', {
      type: 'button', class: `pile pz-pile${canDeck ? ' playable target' : ''}${deckHint ? ' hinted' : ''}`, 'data-testid': 'pz-deck',
      'aria-disabled': playing ? null : 'true',
      'aria-label': `Deck, face down, ${s.deck_size} cards${canDeck ? ': draw its top card' : ''}${deckHint ? ', hint: draw here' : ''}`,
      onclick: () => {
        if (!guard()) return;
        attempt([1, null], 'pz-deck'); // legal or not, the server judges
      },
    }, s.deck_size ? h('span', { class: 'card pz-back', 'aria-hidden': 'true' }) : h('span', { class: 'card card-empty' }, 'empty'),
    h('span', { class: 'count', 'aria-hidden': 'true' }, s.deck_size));
    const discBtn = h('button', {
      type: 'button', class: `pile pz-pile${canTake || discardTarget ? ' playable target' : ''}${discHint ? ' hinted' : ''}`, 'data-testid': 'pz-discard',
      'aria-disabled': playing ? null : 'true',
      'aria-label': `Discard pile: ${s.discard ? `${pzCard(s.discard).name} on top` : 'empty'}, ${(s.discard_pile || []).length} cards` +
        `${canTake ? ': take the top card' : ''}${discardTarget ? `: discard your ${pzCard(selCard).name} here` : ''}${discHint ? ', hint' : ''}`,
      onclick: () => {
        if (!guard()) return;
        // Legal or not, the server judges (its verdict shows by the pile).
        if (selCard !== null) { attempt(discardOf(selCard) || [5, selCard], 'pz-discard'); return; }
        if (canTake) { attempt(canTake, 'pz-discard'); return; }
        if (pickUp && s.discard) { attempt([2, s.discard], 'pz-discard'); return; }
        fail('To discard, first choose a card in your hand.');
      },
    }, s.discard ? pzFace(s.discard) : h('span', { class: 'card card-empty' }, 'empty'),
    h('span', { class: 'count', 'aria-hidden': 'true' }, (s.discard_pile || []).length || ''));
    const piles = h('section', { class: 'pz-piles', 'aria-label': 'Deck and discard pile', 'data-area': 'actions' },
      h('div', { class: 'pz-pile-wrap' }, h('span', { class: 'pile-caption' }, 'Deck'), deckBtn),
      h('div', { class: 'pz-pile-wrap' }, h('span', { class: 'pile-caption' }, 'Discard'), discBtn),
      (s.discard_pile || []).length > 1 ? h('details', { class: 'pz-pile-list', 'data-testid': 'pz-discard-list' },
        h('summary', {}, `Discard pile (${s.discard_pile.length}, top last)`),
        h('p', { class: 'pz-mini-wrap', 'aria-label': s.discard_pile.map((c) => pzCard(c).name).join(', ') }, pzMiniRow(s.discard_pile))) : null);

    // --- groups on the table (a player's laid phase)
    const tableArea = (seat) => {
      const [type, groups] = (s.table || [])[seat] || [null, []];
      if (type === null || type === undefined || !(groups || []).length) {
        return h('p', { class: 'pz-no-phase', 'data-testid': `pz-table-${seat}` }, 'No phase laid this hand.');
      }
      const info0 = PZ_PHASES[type] || { name: `phase ${type}`, groups: [] };
      return h('div', { class: 'pz-groups', 'data-testid': `pz-table-${seat}` },
        h('p', { class: 'pz-phase-label', 'data-testid': `pz-phase-label-${seat}` }, `Phase ${type}: ${info0.name}`),
        groups.map((g, gi) => {
          const kind = info0.groups[gi] || 'group';
          const acc = ((s.accumulations || [])[seat] || [])[gi];
          const places = selCard !== null ? placesFor(selCard).filter((p) => p[1][1][0] === seat && p[1][1][1] === gi) : [];
          const idx = places.map((p) => p[1][1][2]);
          const endPlay = places.length ? places[idx.indexOf(Math.max(...idx))] : null;
          const startPlay = places.length > 1 ? places[idx.indexOf(Math.min(...idx))] : null;
          const hinted = hint && hint[0] === 4 && hint[1][1][0] === seat && hint[1][1][1] === gi;
          const label = `${pzWhose(seat)} group ${nth(gi)}, ${kind}: ${g.map((c) => pzCard(c).name).join(', ')}` +
            `${acc ? `; total ${pzAccText(acc)}` : ''}${endPlay ? `: place your ${pzCard(selCard).name} here` : ''}${hinted ? ', hint: place here' : ''}`;
          return h('div', { class: 'pz-group-wrap' },
            h('span', { class: 'pz-group-kind', 'aria-hidden': 'true' }, `Group ${nth(gi)} · ${kind}`,
              acc ? h('span', { class: 'pz-acc', 'data-testid': `pz-acc-${seat}-${gi}` }, ` · ${pzAccText(acc)}`) : null),
            h('button', {
              type: 'button', class: `pile pz-group${endPlay ? ' target' : ''}${hinted ? ' hinted' : ''}`, 'data-testid': `pz-group-${seat}-${gi}`,
              'aria-disabled': selCard !== null && playing ? null : 'true', 'aria-label': label,
              onclick: () => {
                if (!guard()) return;
                if (selCard === null) { fail('To place a card here, first choose a card in your hand.'); return; }
                // Legal or not, the server judges (its verdict shows by the group).
                attempt(endPlay || [4, [selCard, [seat, gi, g.length]]], `pz-group-${seat}-${gi}`);
              },
            }, h('span', { class: 'pz-group-cards' }, g.map((c) => pzFace(c, 'pz-small')))),
            startPlay ? h('span', { class: 'pz-ends' },
              h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': `pz-place-start-${seat}-${gi}`, onclick: () => sendPlay(startPlay) }, '◀ at start'),
              h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': `pz-place-end-${seat}-${gi}`, onclick: () => sendPlay(endPlay) }, 'at end ▶')) : null);
        }));
    };

    const playerArea = (seat) => {
      const isYou = seat === you;
      const isCurrent = s.current === seat && !s.over;
      const ws = Array.isArray(s.winners) ? s.winners : (s.winner !== null && s.winner !== undefined ? [s.winner] : []);
      const header = h('h3', { class: 'player-name' },
        h('span', {}, seatName(seat)),
        isCurrent ? h('span', { class: 'badge badge-turn' }, s.turn_phase === 'pick-up' ? 'to pick up' : 'to play') : null,
        s.dealer === seat ? h('span', { class: 'badge' }, 'dealer') : null,
        (s.skips_pending || [])[seat] ? h('span', { class: 'badge badge-skip', 'data-testid': `pz-skip-pending-${seat}` }, 'skips next turn') : null,
        s.over && ws.includes(seat) ? h('span', { class: 'badge badge-win' }, 'winner') : null);
      const meta = h('p', { class: 'player-meta' }, `${(s.hand_sizes || [])[seat] ?? 0} card${(s.hand_sizes || [])[seat] === 1 ? '' : 's'} in hand · ${(s.scores || [])[seat] ?? 0} points`);
      const needs = pzNeeds(s, seat, bonus);
      const needsEl = h('p', { class: `pz-needs${needs.laid ? ' laid' : ''}`, 'data-testid': `pz-needs-${seat}` }, needs.text);
      const parts = [header, needsEl, meta, tableArea(seat)];
      const shown = Array.isArray(s.hands) && Array.isArray(s.hands[seat]) ? s.hands[seat] : null;
      if (!isYou && shown) {
        // the view shows this hand (a finished game, a replay of one, an open table)
        parts.splice(3, 0, h('div', { class: 'pz-shown-hand', 'data-testid': `pz-hand-${seat}`, 'aria-label': `${seatName(seat)}'s hand: ${shown.map((c) => pzCard(c).name).join(', ') || 'empty'}` },
          shown.map((c) => pzFace(c, 'pz-small'))));
      } else if (!isYou) {
        parts.splice(3, 0, h('div', { class: 'pz-backs', 'aria-hidden': 'true' }, Array.from({ length: Math.min(12, (s.hand_sizes || [])[seat] || 0) }, () => h('span', { class: 'card pz-back pz-tiny' }))));
      }
      return h('section', {
        class: `player pz-player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}`, 'data-testid': `player-${seat}`, 'data-area': isYou ? 'you' : null,
        'aria-label': isYou ? 'Your area' : `${seatName(seat)}'s area`,
      }, parts);
    };

    // --- your hand
    const sortBy = pref('phazed.sort', 'dealt');
    const order = hand.map((c, i) => i);
    if (sortBy !== 'dealt') order.sort((x, y) => pzSortKey(hand[x], sortBy) - pzSortKey(hand[y], sortBy) || x - y);
    const hintCard = hint && (hint[0] === 5 ? hint[1] : hint[0] === 4 ? hint[1][0] : hint[0] === 6 ? 'ZZ' : null);
    // the "lay a phase" tray (phazed-tray.js): once picked up, while the phase is not down
    const laidNow = you !== null && ((s.table || [])[you] || [null])[0];
    const trayOn = playing && !pickUp && you !== null && (laidNow === null || laidNow === undefined);
    let hintShown = false;
    const handEl = h('div', { class: 'hand pz-hand', role: 'group', 'aria-label': 'Your hand', 'data-testid': 'pz-hand' }, order.map((i) => {
      const card = hand[i];
      const ok = playing && !pickUp && cardHasPlay(card);
      const isHint = !hintShown && hintCard === card;
      if (isHint) hintShown = true;
      const words = [];
      const inGroup = trayOn ? trayGroupOf(a, i) : -1;
      if (sel === i) words.push('selected');
      if (inGroup >= 0) words.push(`in group ${nth(inGroup)} of your phase: choose it to take it back`);
      if (isHint) words.push('hint: play this card');
      return h('button', {
        type: 'button', class: `hand-card${sel === i ? ' selected' : ''}${ok && sel === null ? ' playable' : ''}${isHint ? ' hinted' : ''}${inGroup >= 0 ? ' pz-in-tray' : ''}`,
        'data-testid': `pz-hand-card-${i}`, 'aria-pressed': String(sel === i), 'aria-disabled': playing ? null : 'true',
        'aria-label': `${pzCard(card).name}${words.length ? `, ${words.join(', ')}` : ''}`,
        onclick: () => {
          if (!guard()) return;
          // into (or back out of) the tray's chosen group
          if (trayOn && trayTakesCard(a, i)) return;
          // Any card may be chosen; the server judges where it goes.
          select(`pz:${i}`, { keepHint: true });
        },
      }, pzFace(card));
    }));
    const sortBtns = h('div', { class: 'pz-sort', role: 'group', 'aria-label': 'Sort your hand' },
      h('span', { class: 'pz-sort-label', 'aria-hidden': 'true' }, 'Sort:'),
      [['dealt', 'as dealt'], ['value', 'by value'], ['suit', 'by suit']].map(([k, t]) => h('button', {
        type: 'button', class: `btn btn-secondary btn-small${sortBy === k ? ' on' : ''}`, 'data-testid': `pz-sort-${k}`, 'aria-pressed': String(sortBy === k),
        onclick: () => setPref('phazed.sort', k),
      }, t)));

    // --- actions: phases, discard the selected card, skips
    // a hand can hold thousands of phase plays: phazed-phases.js pages them
    const phasePlays = legal.filter((p) => p[0] === 3);
    const phaseTotal = playing ? Math.max(phasePlays.length, (a.legalTotal ?? legal.length) - (legal.length - phasePlays.length)) : 0;
    const phaseButton = (p, testid) => {
      const isHint = hint && same(hint, p); // the hint's phase play is exactly one of /legal's
      return h('button', {
        type: 'button', class: `btn btn-primary pz-phase-btn${isHint ? ' hinted' : ''}`, 'data-testid': testid,
        'aria-label': `Play phase ${p[1][0]}: ${p[1][1].map((g) => g.map((c) => pzCard(c).name).join(', ')).join('; and ')}${isHint ? ' (hint)' : ''}`,
        onclick: () => { if (guard()) sendPlay(p); },
      }, h('span', { class: 'pz-phase-title' }, `Play phase ${p[1][0]}`), p[1][1].map((g) => pzMiniRow(g)));
    };
    const phaseList = phaseTotal ? phasePager(a, legal, phasePlays, phaseTotal, hint, phaseButton) : null;
    const tray = trayOn ? phaseTray(a, {
      hand, status: (s.phase_status || [])[you], bonus, sel, hint, guard, face: (c) => pzFace(c, 'pz-small'), name: (c) => pzCard(c).name,
    }) : null;
    const selDiscard = selCard !== null ? discardOf(selCard) : null;
    const skipPlays = legal.filter((p) => p[0] === 6);
    const actions = playing ? h('div', { class: 'pz-actions', 'data-testid': 'pz-actions', 'data-area': 'actions' },
      selCard !== null ? h('button', {
        type: 'button', class: `btn btn-primary${hint && hint[0] === 5 && hint[1] === selCard ? ' hinted' : ''}`, 'data-testid': 'pz-discard-button',
        'aria-label': `Discard your ${pzCard(selCard).name} and end your turn`, onclick: () => { if (guard()) attempt(selDiscard || [5, selCard], `pz-hand-card-${sel}`); },
      }, 'Discard ', pzText(selCard)) : null,
      skipPlays.map((p) => h('button', {
        type: 'button', class: `btn btn-secondary${hint && same(hint, p) ? ' hinted' : ''}`, 'data-testid': `pz-skip-${p[1]}`,
        'aria-label': `Play a Skip card on ${seatName(p[1])}${hint && same(hint, p) ? ' (hint)' : ''}`, onclick: () => { if (guard()) sendPlay(p); },
      }, `Skip ${seatName(p[1])}`))) : null;

    if (actions && !actions.childElementCount) actions.removeAttribute('data-area'); // nothing to do there now
    const youArea = you === null ? null : (() => {
      const area = playerArea(you);
      area.append(
        h('div', { class: 'pz-hand-head' }, h('h4', { class: 'area-title' }, 'Your hand'), sortBtns),
        ...[handEl, actions, tray, phaseList, nearHand(a)].filter(Boolean));
      return area;
    })();

    // --- finished hands
    const hp = s.hands_played || [];
    const handsTable = hp.length ? h('section', { class: 'pz-hands', 'data-testid': 'pz-hands-played', 'aria-labelledby': 'pz-hands-title' },
      h('h3', { class: 'area-title', id: 'pz-hands-title' }, 'Finished hands (penalty points)'),
      h('div', { class: 'pz-table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Hand'), Array.from({ length: n }, (_, i) => h('th', { scope: 'col' }, seatName(i))))),
        h('tbody', {}, hp.map((r) => h('tr', {}, h('th', { scope: 'row' }, `Hand ${r.hand}: ${handOverWords(r)}`), (r.penalties || []).map((p) => h('td', {}, p)))))))) : null;

    const seats = [];
    for (let i = 1; i <= n; i++) seats.push(you === null ? i - 1 : (you + i) % n);
    const others = seats.filter((x) => x !== you);
    let helpText = s.over ? '' : 'Waiting for the other players.';
    if (playing) {
      if (pickUp) helpText = 'Pick up: click the deck or the discard pile.';
      else if (selCard !== null) helpText = `Your ${pzCard(selCard).name}: click a highlighted group to place it, or the discard pile (or "Discard") to end your turn. Escape cancels.`;
      else helpText = `${tray ? 'Lay your phase: put cards of your hand into its groups below, then "Lay phase". Or choose' : 'Choose'} a card in your hand to place on a group or to discard.`;
    }
    return placeVerdict(h('div', { class: 'pz-board' },
      info,
      h('div', { class: 'opponents pz-opponents' }, others.map(playerArea)),
      piles,
      youArea,
      h('p', { class: 'help', 'data-testid': 'play-help' }, helpText),
      handsTable), a.verdict);
  },

  /** What a move touched (core/board.js marks it): the deck or the discard
   *  pile, the phase laid, the group a card was placed on, the player skipped. */
  moveMarks(rec) {
    const [t, x] = Array.isArray(rec.play) ? rec.play : [];
    if (t === 1) return ['pz-deck'];
    if (t === 2 || t === 5) return ['pz-discard'];
    if (t === 3) return [`pz-table-${rec.seat}`];
    if (t === 4 && Array.isArray(x) && Array.isArray(x[1])) return [`pz-group-${x[1][0]}-${x[1][1]}`];
    if (t === 6) return [`player-${x}`, 'pz-discard'];
    return [];
  },
};
