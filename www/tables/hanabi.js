// The Hanabi table, at hanab.live's level: notes on cards (hanabi-notes.js),
// the cards the latest clue touched marked (hanabi-track.js), empathy
// (hanabi-empathy.js), every hand to spectators at a table that allows it,
// hypotheticals in the replay of a finished game (hanabi-hypo.js), colour
// letters, negative information as pips, a colour-blind setting and the hand
// direction (hanabi-cards.js), pace, efficiency and critical cards
// (hanabi-stats.js) and hanab.live's keys (hanabi-keys.js).
//
// Hanabi (cooperative): you see everyone's cards but your own. Your own cards
// show what the hints said about them. In words, cards are numbered from 1,
// card 1 the leftmost: the oldest, as the conventions bot's explanations
// count them, or with hanab.live's direction the newest; the plays' JSON
// indexes stay 0-based, oldest first. Players count from 0, as in the API and
// every explanation.
//
// One drawing, three uses: the live table (HB.render), a replayed position
// (the same, read-only) and a hypothetical (hanabi-hypo.js), each handing
// hbTable() a context: the view, who acts, the legal plays, what a click does.

import { byId, h } from '../core/dom.js';
import { attempt } from '../core/game.js';
import { rulesDoc } from '../core/help.js';
import { same } from '../core/json.js';
import { placeVerdict } from '../core/verdict.js';
import { nearHand } from '../core/nearhand.js';
import { app, say, seatName, select } from '../core/state.js';
import {
  HB_COLOURS, HB_ORDER, handCard, hbCard, hbCardText, hbColourBlindToggle, hbColours, hbDirectionToggle, hbDiscardPile, hbFace,
  hbKnowledgeText, hbKnown, hbLetter, hbMarks, hbNewestLeft, hbPlay, hbRenumber, hbShown, hbSlotIndex, hbTouches,
} from './hanabi-cards.js';
import { hbCardIds, hbHandLength, hbLatestClue } from './hanabi-track.js';
import { hbEditNote, hbNoteLine, hbNotes } from './hanabi-notes.js';
import { hbEmpathyButton, hbEmpathyOn, hbMayBeLine } from './hanabi-empathy.js';
import { hbReplayTools } from './hanabi-hypo.js';
import { hbInstallKeys, hbKeyPanel, hbKeyState } from './hanabi-keys.js';
import { hbCritical, hbKnownCard, hbStats } from './hanabi-stats.js';

/** The drawing's context from core's (core/board.js): the live table, a
 *  replayed position or one played back (both read-only). */
function liveContext(a) {
  return {
    s: a.state,
    you: a.you === null || a.you === undefined ? null : a.you,
    playing: a.myTurn,
    legal: a.myTurn ? a.legal.map(hbPlay) : [],
    sel: a.selection,
    hint: a.hint ? hbPlay(a.hint.play) : null,
    busy: a.busy,
    gameId: a.id,
    records: a.log,
    mode: a.mode === 'live' ? 'live' : 'replay',
    table: a.table,
    select,
    act: attempt,
    say,
    near: () => nearHand(a),
    conventions: a.mode === 'live' ? conventionsHelp(a) : null,
  };
}

export const HB = {
  // The keys of the table (core/keys.js presses the control a key names;
  // the Rules panel lists them).
  hotkeys: [
    {
      key: '1 to 5', what: 'pick your card 1 to 5', keys: ['1', '2', '3', '4', '5'],
      target: (k, a) => `hb-card-${a.you}-${hbSlotIndex(+k, (((a.state && a.state.hands) || [])[a.you] || []).length)}`,
    },
    { key: 'P', what: 'play the card you picked', keys: ['p'], target: () => 'hb-play' },
    { key: 'D', what: 'discard the card you picked', keys: ['d'], target: () => 'hb-discard' },
    { key: 'C', what: 'clue the colour of the teammate\'s card you picked', keys: ['c'], target: () => 'hb-hint-color' },
    { key: 'N', what: 'clue the number of the teammate\'s card you picked', keys: ['n'], target: () => 'hb-hint-number' },
    // hanab.live's keys (hanabi-keys.js listens for them; listed here for the Rules panel).
    { key: 'A or +, then 1-5', what: 'play the card in that place (hanab.live)', keys: [], target: () => null },
    { key: 'D or -, then 1-5', what: 'discard the card in that place, when no card of yours is picked (hanab.live)', keys: [], target: () => null },
    { key: ';', what: 'choose the teammate to clue, again for the next (Tab too, once one is chosen)', keys: [], target: () => null },
    { key: '1-5 (teammate chosen)', what: 'a number clue', keys: [], target: () => null },
    { key: 'Q W E R T Y', what: 'a colour clue, the table\'s colours in order (red, yellow, blue, green, white)', keys: [], target: () => null },
    { key: 'Ctrl+Enter', what: 'give the clue chosen', keys: [], target: () => null },
  ],
  title: 'Hanabi',
  defaultPlayers: 3,

  formOptions() {
    return [h('div', { class: 'field' },
      h('label', { for: 'ng-opt-end' }, 'End of the game'),
      h('select', { id: 'ng-opt-end', 'data-testid': 'new-game-end' },
        h('option', { value: 'seed' }, 'As the rules say: after the deck runs out, everyone plays once more'),
        h('option', { value: 'standard' }, 'hanab.live: one round after the last card is drawn')))];
  },
  readOptions() {
    const end = byId('ng-opt-end');
    return end && end.value !== 'seed' ? { end: end.value } : {};
  },

  // The engines' words count a hand from the oldest card: in the page's
  // numbering when the newest is on the left (hbRenumber).
  explainText(text, move) {
    if (!move) return text;
    const players = (app.state && app.state.players) || 0;
    const lenOf = (who) => {
      if (move.now) return (((app.state && app.state.hands) || [])[who] || []).length;
      return typeof move.n === 'number' && players ? hbHandLength(move.records || app.log, who, move.n, players) : 0;
    };
    return hbRenumber(text, move.seat, lenOf);
  },

  describePlayNodes(play0, seat, rec) {
    const play = hbPlay(play0);
    const you = app.you;
    // The hand's size when the move was made (cards count from the newest when it is on the left).
    const players = (app.state && app.state.players) || 0;
    const lenOf = (who) => (rec && typeof rec.n === 'number' && players ? hbHandLength(app.log, who, rec.n, players) : 0);
    const pos = (i) => `card ${handCard(i, lenOf(seat))}`;
    switch (play.type) {
      case 'hint': {
        const clue = play.color !== undefined && play.color !== null ? play.color : play.number;
        const who = play.target === you ? 'you' : seatName(play.target);
        const touched = rec && Array.isArray(rec.touched) ? ` (${rec.touched.length === 1 ? 'card' : 'cards'} ${rec.touched.map((i) => handCard(i, lenOf(play.target))).join(', ')})` : '';
        return [`hinted ${who} about ${play.target === you ? 'your' : 'their'} `,
          typeof clue === 'number' ? `${clue}s` : h('span', { class: `hb-word hb-${clue}` }, HB_COLOURS[clue] || clue), touched];
      }
      case 'play':
      case 'discard': {
        const verb = play.type === 'play' ? 'played' : 'discarded';
        const nodes = [`${verb} ${pos(play.card)}`];
        if (rec && rec.card) {
          nodes.push(': ', hbCardText(rec.card));
          if (play.type === 'play') nodes.push(rec.correct ? ' ✓ onto the fireworks' : ' ✗ misplayed — an error');
        }
        if (rec && rec.drew) nodes.push(rec.drew === '??' ? '; drew a card' : ['; drew ', hbCardText(rec.drew)]);
        return nodes;
      }
      default: return [JSON.stringify(play0)];
    }
  },

  describePlay(play0, seat, opts = {}) {
    const play = hbPlay(play0);
    if (opts.forHint) {
      const len = (((app.state && app.state.hands) || [])[app.you] || []).length;
      if (play.type === 'play') return `play your card ${handCard(play.card, len)}`;
      if (play.type === 'discard') return `discard your card ${handCard(play.card, len)}`;
      if (play.type === 'hint') {
        const clue = play.color !== undefined && play.color !== null ? HB_COLOURS[play.color] : `${play.number}s`;
        return `tell ${seatName(play.target)} about their ${clue}`;
      }
    }
    return h('span', {}, HB.describePlayNodes(play, seat)).textContent;
  },

  statusExtra(s) {
    const parts = [];
    if (s.turn !== undefined) parts.push(`turn ${s.turn}`);
    parts.push(`score ${s.score}/${s.max_score}`);
    if (s.final_turns_left !== null && s.final_turns_left !== undefined && !s.over) parts.push(`final round: ${s.final_turns_left} turn${s.final_turns_left === 1 ? '' : 's'} left`);
    return parts.join(' · ');
  },

  resultText(s) {
    const score = `Score ${s.score} of ${s.max_score}.`;
    switch (s.result) {
      case 'errors': return `Game over: the third error ended the show. ${score}`;
      case 'deck-out': return `Game over: the deck ran out and everyone had a last turn. ${score}`;
      case 'all-fives': return `Game over: every firework is complete! ${score}`;
      default: return `Game over. ${score}`;
    }
  },

  /** What each player held at the end (every card, once the game is over):
   *  the summary's and a replay's last position (core/summary.js). */
  finalHands(s) {
    if (!Array.isArray(s.hands) || !s.hands.every(Array.isArray)) return null;
    const cards = (hand) => hand.map((slot) => (slot && typeof slot === 'object' ? slot.card : slot));
    if (!s.hands.some((hand) => cards(hand).some((c) => c && c !== '??'))) return null;
    return h('div', { class: 'summary-hands', 'data-testid': 'final-hands' },
      h('h4', {}, 'What each player held at the end'),
      h('ul', {}, s.hands.map((hand, p) => h('li', { 'data-testid': `final-hand-${p}` },
        h('span', { class: 'log-who' }, seatName(p)), ': ',
        cards(hand).map((c, i) => [i ? ' ' : '', h('span', { class: `card-text final-card final-${String(c)[0]}` }, c || '??')])))));
  },

  /** Play again with the game's options. */
  dealOptions(s) {
    return s.options && typeof s.options === 'object' && !Array.isArray(s.options) ? { ...s.options } : {};
  },

  render(a) {
    hbInstallKeys();
    const ctx = liveContext(a);
    return ctx.mode === 'live' ? placeVerdict(hbTable(ctx), a.verdict) : hbTable(ctx);
  },

  /** What a move touched (core/board.js marks it): the card played, on the
   *  fireworks or the discard pile, and the one drawn in its place; the
   *  cards a clue touched. */
  moveMarks(rec, a) {
    const play = hbPlay(rec.play);
    if (play.type === 'hint') return (Array.isArray(rec.touched) ? rec.touched : []).map((i) => `hb-card-${play.target}-${i}`);
    if (play.type !== 'play' && play.type !== 'discard') return [];
    const c = hbCard(rec.card);
    const places = [];
    if (play.type === 'play' && rec.correct && !c.hidden) places.push(`hb-firework-${c.colour}`);
    else places.push(c.hidden ? 'hb-discard-pile' : `hb-discard-${c.colour}`);
    const hand = ((a.state && a.state.hands) || [])[rec.seat] || [];
    if (rec.drew && hand.length) places.push(`hb-card-${rec.seat}-${hand.length - 1}`);
    return places;
  },

  /** Tools under a replayed position: hypotheticals (hanabi-hypo.js). */
  replayTools(rp) {
    return hbReplayTools(rp, hbTable);
  },
};

/** Pace and efficiency, as hanab.live shows them (hanabi-stats.js). */
function statsArea(s, colours, records) {
  const st = hbStats(s, colours, records);
  const two = (x) => (x === null || !Number.isFinite(x) ? '—' : x.toFixed(2));
  const paceWords = { zero: 'no discard is safe', high: 'discards are risky', medium: 'discard with care', low: '' };
  return [
    h('p', {
      class: `hb-token hb-pace hb-pace-${st.risk}`, 'data-testid': 'hb-pace', 'data-pace': st.pace === null ? '' : String(st.pace),
      title: `Pace: the discards left before the max score (${st.maxScore}) is out of reach: score + cards in the deck + players − max score.${paceWords[st.risk] ? ` Now ${paceWords[st.risk]}.` : ''}`,
    }, `Pace ${st.pace === null ? '—' : st.pace}`),
    h('p', {
      class: 'hb-token hb-eff', 'data-testid': 'hb-efficiency', 'data-efficiency': st.efficiency === null ? '' : st.efficiency.toFixed(2),
      title: `Efficiency: cards gotten (played or clued, ${st.gotten}) per clue spent (${st.lost === null ? '—' : st.lost}). `
        + `Needed from here: ${two(st.future)} (${Math.max(st.maxScore - st.gotten, 0)} cards to get with ${st.usable === null ? '—' : st.usable} clues).`,
    }, `Efficiency ${two(st.efficiency)}`, h('span', { class: 'hb-eff-need', 'data-testid': 'hb-efficiency-needed' }, ` | needed ${two(st.future)}`)),
  ];
}

/** The tokens, the deck and the score. */
function tokensArea(s, colours, records) {
  const dots = (k, max, cls) => h('span', { class: 'hb-dots', 'aria-hidden': 'true' },
    Array.from({ length: max }, (_, i) => h('span', { class: `hb-dot ${cls}${i < k ? ' on' : ''}` })));
  const maxHints = s.max_hints || 8;
  const maxErrors = s.max_errors || 3;
  const finalLeft = s.final_turns_left;
  return h('section', { class: 'hb-tokens', 'aria-label': 'Tokens and deck' },
    h('p', { class: 'hb-token', 'data-testid': 'hb-hints' }, h('span', { class: 'hb-token-label' }, `Hints ${s.hints}/${maxHints}`), dots(s.hints, maxHints, 'hint')),
    h('p', { class: 'hb-token', 'data-testid': 'hb-errors' }, h('span', { class: 'hb-token-label' }, `Errors ${s.errors}/${maxErrors}`), dots(s.errors, maxErrors, 'error')),
    h('p', { class: 'hb-token', 'data-testid': 'hb-deck' }, `Deck ${s.deck} card${s.deck === 1 ? '' : 's'}`),
    h('p', { class: 'hb-token', 'data-testid': 'hb-score' }, `Score ${s.score}/${s.max_score}`),
    statsArea(s, colours, records),
    finalLeft !== null && finalLeft !== undefined && !s.over
      ? h('p', { class: 'hb-token hb-final', 'data-testid': 'hb-final' }, `Final round: ${finalLeft} turn${finalLeft === 1 ? '' : 's'} left`) : null);
}

function fireworksArea(s, colours) {
  return h('section', { class: 'hb-fireworks', 'aria-labelledby': 'hb-fw-title' },
    h('h3', { class: 'area-title', id: 'hb-fw-title' }, 'Fireworks'),
    h('ul', { class: 'hb-piles' }, colours.map((c) => {
      const k = (s.fireworks || {})[c] || 0;
      return h('li', { class: 'hb-pile', 'data-testid': `hb-firework-${c}` },
        k ? hbShown(`${c}${k}`)
          : h('span', { class: `card card-empty hb-empty hb-${c}-line`, 'aria-hidden': 'true' }, `${hbLetter(c)} ${HB_COLOURS[c]}`),
        h('span', { class: 'visually-hidden' }, `${HB_COLOURS[c]}: ${k ? `up to ${k}` : 'nothing yet'}`));
    })));
}

/** What a spectator is shown, said once above the hands. */
function watchingNote(s) {
  const seen = (s.hands || []).some((hand) => (hand || []).some((slot) => !hbCard(slot && slot.card).hidden));
  return h('p', { class: 'hb-watching', 'data-testid': 'hb-watching' }, seen
    ? 'You are watching: every hand is shown (spectators at this table see all hands).'
    : 'You are watching: spectators at this table see no hand cards, only what the hints said.');
}

/** Draw a Hanabi table for `ctx` (see liveContext). */
function hbTable(ctx) {
  const { s, you, playing, legal, sel, hint } = ctx;
  const has = (p) => legal.some((q) => same(q, p));
  const n = s.players || (s.hands || []).length;
  const colours = hbColours(s);
  const ids = hbCardIds(s, ctx.records);
  const latest = ids ? hbLatestClue(s, ctx.records) : null;
  const notes = ctx.mode === 'hypo' ? {} : hbNotes(ctx.gameId, ctx.table);
  const cardId = (seat, i) => (ids && ids[seat] ? ids[seat][i] : null);
  const keyTarget = ctx.mode === 'live' && playing ? hbKeyState(ctx.table).target : null;
  // A clue chosen by the keys and not given yet: the cards it would touch are
  // previewed (as the clue buttons preview theirs on hover and focus).
  const keyClue = keyTarget !== null ? hbKeyState(ctx.table).clue : null;
  const previewed = (seat, card) => !!keyClue && keyTarget === seat && !!card && hbTouches(card, keyClue.number ?? keyClue.color);
  const lenOf = (seat) => ((s.hands || [])[seat] || []).length;
  const whoseCard = (seat, i) => (seat === you && ctx.mode !== 'hypo' ? `your card ${handCard(i, lenOf(seat))}` : `${seatName(seat)}'s card ${handCard(i, lenOf(seat))}`);
  const editNote = (seat, i) => {
    if (ctx.mode === 'hypo' || !cardId(seat, i)) return;
    hbEditNote(ctx.gameId, cardId(seat, i), whoseCard(seat, i), { refocus: `hb-card-${seat}-${i}` });
  };

  // Which cards the recommended play is about.
  const hinted = (seat, i, card) => {
    if (!hint) return false;
    if (hint.type === 'play' || hint.type === 'discard') return seat === you && hint.card === i;
    if (hint.type === 'hint' && hint.target === seat) return hbTouches(card, hint.color !== undefined && hint.color !== null ? hint.color : hint.number);
    return false;
  };
  // (picking a card the hint is about keeps the hint marked: its action
  // button is then marked too, in the panel)
  const clickCard = (key, ok, why, keepHint) => () => {
    if (ctx.busy) return;
    if (playing && !ok) ctx.say(why, 'warning'); // still choosable: the server judges the play
    ctx.select(key, { keepHint });
  };

  // --- one player's hand
  const playerArea = (seat) => {
    const isYou = seat === you;
    const hand = (s.hands || [])[seat] || [];
    const isCurrent = s.current === seat && !s.over;
    const canHintThem = !isYou && legal.some((p) => p.type === 'hint' && p.target === seat);
    const empathy = hbEmpathyOn(ctx.table, ctx.gameId, seat);
    // A line for notes under the cards once this hand has one (its room kept).
    const noted = hand.some((slot, i) => cardId(seat, i) && notes[cardId(seat, i)]);
    const cards = hand.map((slot, i) => {
      const key = isYou ? `own:${i}` : `p:${seat}:${i}`;
      const c = hbCard(slot.card);
      const ok = isYou ? legal.some((p) => (p.type === 'play' || p.type === 'discard') && p.card === i) : canHintThem;
      const why = isYou ? 'That card cannot be played or discarded now.' : (s.hints === 0 ? 'No hint tokens left: play or discard instead.' : 'No hint to that player is possible now.');
      const id = cardId(seat, i);
      const note = id ? notes[id] || '' : '';
      const isLatest = !!(latest && latest.target === seat && id && latest.ids.has(id));
      // Critical: the last copy of a card still needed, on a card this reader
      // sees or one of theirs the clues told in full (hanabi-stats.js).
      const critical = hbCritical(s, colours, isYou ? hbKnownCard(slot) : slot.card);
      const words = [];
      if (critical) words.push('critical: the last copy');
      if (sel === key) words.push('selected');
      if (hinted(seat, i, slot.card)) words.push('hint: this card');
      if (isLatest) words.push('touched by the latest clue');
      if (note) words.push(`note: ${note}`);
      const label = isYou && c.hidden
        ? `Your card ${handCard(i, hand.length)}${i === 0 ? ' (oldest)' : ''}${i === hand.length - 1 && i > 0 ? ' (newest)' : ''}: ${hbKnowledgeText(slot)}`
        : `${whoseCard(seat, i)}: ${c.name}; ${isYou ? 'known' : 'they know'}: ${hbKnowledgeText(slot)}`;
      return h('button', {
        type: 'button',
        class: `hand-card hb-slot${sel === key ? ' selected' : ''}${ok && !sel ? ' playable' : ''}${hinted(seat, i, slot.card) ? ' hinted' : ''}${previewed(seat, slot.card) ? ' hb-preview' : ''}${isLatest ? ' hb-latest' : ''}${critical ? ' hb-crit' : ''}${playing ? '' : ' hb-idle'}`,
        // Out of turn a card is still chosen (for its note); only a replay's are inert.
        'data-testid': `hb-card-${seat}-${i}`, 'aria-pressed': String(sel === key), 'aria-disabled': ctx.mode === 'replay' ? 'true' : null,
        'aria-label': label + (words.length ? `, ${words.join(', ')}` : ''),
        onclick: clickCard(key, ok, why, hinted(seat, i, slot.card)),
        oncontextmenu: (ev) => { if (ctx.mode === 'hypo' || !id) return; ev.preventDefault(); editNote(seat, i); },
      },
      h('span', { class: 'hb-pos', 'aria-hidden': 'true' }, handCard(i, hand.length),
        isLatest ? h('span', { class: 'hb-latest-mark', 'data-testid': 'hb-latest' }, '▼ clue') : null,
        critical ? h('span', { class: 'hb-critical', 'data-testid': 'hb-critical', title: 'Critical: the last copy of a card still needed' }, '!') : null),
      empathy && !isYou ? hbKnown(slot) : hbFace(slot, { own: isYou }),
      hbMarks(slot),
      empathy ? hbMayBeLine(s, seat, slot, `hb-maybe-${seat}-${i}`) : null,
      noted ? hbNoteLine(note, `hb-note-${seat}-${i}`) : null);
    });
    const ownHidden = isYou && hand.some((slot) => hbCard(slot.card).hidden);
    const header = h('h3', { class: 'player-name' },
      h('span', {}, seatName(seat), ownHidden ? h('span', { class: 'hb-hidden-note' }, ' — your cards are hidden from you') : null),
      isCurrent ? h('span', { class: 'badge badge-turn' }, 'to play') : null,
      s.first === seat ? h('span', { class: 'badge' }, 'started') : null,
      hbEmpathyButton(ctx.table, ctx.gameId, seat, isYou && ownHidden ? 'What you may hold' : 'What they know'));
    return h('section', {
      class: `player hb-player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}${empathy ? ' hb-empathy-on' : ''}${keyTarget === seat ? ' hb-key-target' : ''}`,
      'data-testid': `player-${seat}`, 'data-area': isYou ? 'you' : null,
      'aria-label': isYou ? 'Your hand' : `${seatName(seat)}'s hand`,
    }, header, h('div', {
      class: 'hand hb-hand', role: 'group', 'data-testid': `hb-hand-${seat}`,
      'aria-label': `${isYou ? 'Your cards' : `${seatName(seat)}'s cards`}, ${hbNewestLeft() ? 'newest' : 'oldest'} first`,
    }, hbNewestLeft() ? cards.slice().reverse() : cards));
  };

  const order = [];
  for (let i = 1; i <= n; i++) order.push(you === null ? i - 1 : (you + i) % n);
  const others = order.filter((x) => x !== you);
  const waiting = s.over ? '' : (ctx.mode === 'live' ? 'Waiting for the other players. ' : '');
  const help = h('p', { class: 'help', 'data-testid': 'play-help' },
    playing ? (sel ? 'Choose what to do with the selected card (Escape cancels).'
      : 'Choose one of your cards to play or discard it, or another player\'s card to give them a hint.')
      : `${waiting}${ctx.mode === 'hypo' ? '' : 'Click a card (or right-click it) to write a note on it.'}`);
  return h('div', { class: `hb-table hb-mode-${ctx.mode}` },
    h('div', { class: 'hb-center' }, tokensArea(s, colours, ctx.records), fireworksArea(s, colours), hbDiscardPile(s, colours)),
    you === null ? watchingNote(s) : null,
    h('div', { class: 'opponents hb-opponents' }, others.map(playerArea)),
    you === null ? null : playerArea(you),
    h('div', { class: 'hb-actions-slot', 'data-area': 'actions' }, actionsFor(ctx, has, editNote, cardId)
      || (ctx.mode === 'live' && playing ? hbKeyPanel(s, ctx.table, you) : null)),
    help,
    you !== null && ctx.near ? ctx.near() : null,
    h('div', { class: 'hb-foot' }, hbColourBlindToggle(), hbDirectionToggle(), ctx.conventions || null));
}

/** The panel of the selected card: play or discard it (yours), hint its
 *  owner (another's), and its note. */
function actionsFor(ctx, has, editNote, cardId) {
  const { s, you, playing, sel } = ctx;
  if (!sel) return null;
  const m = /^own:(\d+)$/.exec(sel);
  const o = /^p:(\d+):(\d+)$/.exec(sel);
  if (!m && !o) return null;
  const seat = m ? you : +o[1];
  const i = m ? +m[1] : +o[2];
  const slot = ((s.hands || [])[seat] || [])[i];
  if (!slot) return null;
  // Every action stays clickable; the legal ones are highlighted. The
  // verdict of a refused one shows by the card it was about.
  const anchor = `hb-card-${seat}-${i}`;
  // the recommended play's own button is marked (.hinted), as its cards are
  const isHint = (play) => !!ctx.hint && ['type', 'card', 'target', 'color', 'number'].every((k) => (ctx.hint[k] ?? null) === (play[k] ?? null));
  const btn = (testid, text, play, extra = {}) => h('button', {
    type: 'button', class: `btn ${has(play) ? 'btn-primary' : 'btn-secondary'}${isHint(play) ? ' hinted' : ''}`, 'data-testid': testid,
    onclick: () => ctx.act(play, anchor), ...extra,
    ...(isHint(play) ? { 'aria-label': `${extra['aria-label'] || text} (the hint)` } : {}),
  }, text);
  const noteBtn = ctx.mode !== 'hypo' && cardId(seat, i)
    ? h('button', { type: 'button', class: 'btn btn-secondary', 'data-testid': 'hb-note-edit', onclick: () => editNote(seat, i) }, 'Note…') : null;
  const maxHints = s.max_hints || 8;
  const parts = [];
  if (m) {
    const len = ((s.hands || [])[seat] || []).length;
    const what = ctx.mode === 'hypo' ? `${seatName(seat)}'s card ${handCard(i, len)}` : `Your card ${handCard(i, len)}`;
    parts.push(h('span', { class: 'hb-actions-what' }, `${what}:`));
    if (playing) {
      parts.push(btn('hb-play', 'Play', { type: 'play', card: i }, { 'aria-label': `Play ${what.toLowerCase()}` }),
        btn('hb-discard', 'Discard', { type: 'discard', card: i }, {
          'aria-label': `Discard ${what.toLowerCase()}`, title: s.hints >= maxHints ? 'All hint tokens are in: you may not discard.' : null,
        }),
        s.hints >= maxHints ? h('span', { class: 'hb-note' }, 'All 8 hint tokens are in: no discarding.') : null);
    }
  } else {
    const c = hbCard(slot.card);
    const who = seatName(seat);
    parts.push(h('span', { class: 'hb-actions-what' }, `${who}'s `, c.hidden ? `card ${handCard(i, ((s.hands || [])[seat] || []).length)}` : hbCardText(slot.card), ':'));
    if (playing && !c.hidden) {
      const theirs = ((s.hands || [])[seat] || []).map((x) => x.card);
      const count = (clue) => { const k = theirs.filter((x) => hbTouches(x, clue)).length; return `${k} card${k === 1 ? '' : 's'}`; };
      // the cards a clue would touch, previewed while its button is hovered or focused (hbPreviewClues)
      const touches = (clue) => theirs.map((x, j) => (hbTouches(x, clue) ? `hb-card-${seat}-${j}` : null)).filter(Boolean).join(' ');
      const colourBtn = (col, testid) => btn(testid, `Hint colour: ${HB_COLOURS[col]}`, { type: 'hint', target: seat, color: col }, {
        'aria-label': `Tell ${who} about their ${HB_COLOURS[col]} cards (touches ${count(col)})`, title: `touches ${count(col)}`,
        'data-touches': touches(col),
      });
      if (c.colour === 'M') {
        parts.push(h('span', { class: 'hb-note' }, 'Rainbow cannot be named; every colour hint touches it:'),
          ...HB_ORDER.filter((x) => x !== 'M').map((x) => colourBtn(x, `hb-hint-color-${x}`)));
      } else parts.push(colourBtn(c.colour, 'hb-hint-color'));
      parts.push(btn('hb-hint-number', `Hint number: ${c.number}`, { type: 'hint', target: seat, number: c.number }, {
        'aria-label': `Tell ${who} about their ${c.number}s (touches ${count(c.number)})`, title: `touches ${count(c.number)}`,
        'data-touches': touches(c.number),
      }), s.hints === 0 ? h('span', { class: 'hb-note' }, 'No hint tokens left.') : null);
    }
  }
  if (!playing && ctx.mode === 'live') parts.push(h('span', { class: 'hb-note' }, s.over ? 'The game is over.' : 'Not your turn yet.'));
  parts.push(noteBtn);
  return h('div', { class: 'hb-actions', role: 'group', 'aria-label': 'The selected card', 'data-testid': 'hb-actions' }, parts);
}

// The conventions the bots play by (and read a person's clues by), as
// GET /rules/hanabi states them: asked once (core/help.js keeps the document
// in the state), shown folded under the table.
function conventionsHelp(a) {
  const doc = a.rulesDocs.hanabi;
  if (doc === undefined) {
    rulesDoc('hanabi').catch(() => {}); // drawn again once it is here
    return null;
  }
  const conv = doc && doc.conventions;
  if (!conv || !Array.isArray(conv.rules)) return null;
  return h('details', { class: 'help conventions', 'data-testid': 'hb-conventions' },
    h('summary', {}, 'How the bots play: our conventions'),
    conv.summary ? h('p', {}, conv.summary) : null,
    h('ul', {}, conv.rules.map((r) => h('li', {}, typeof r === 'string' ? r : (r.text || r.rule || JSON.stringify(r))))));
}
