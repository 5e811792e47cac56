// The Hanabi table.

import { api } from '../core/api.js';
import { same } from '../core/cards.js';
import { byId, h } from '../core/dom.js';
import { attempt, placeVerdict } from '../core/verdict.js';
import { nearHand } from '../core/nearhand.js';
import { render, select } from '../core/render.js';
import { app, myTurn, say, seatName } from '../core/state.js';
import { handCard } from '../core/numbering.js';

// Hanabi (cooperative): you see everyone's cards but your own. Your own cards
// show what the hints said about them. In words, cards are numbered from 1
// (card 1 is the oldest, leftmost card), as the conventions bot's explanations
// count them; the plays' JSON indexes stay 0-based. Players count from 0, as
// in the API and every explanation.

export const HB_COLOURS = {
  R: 'red', Y: 'yellow', B: 'blue', G: 'green', W: 'white', M: 'rainbow',
};
export const HB_ORDER = ['R', 'Y', 'B', 'G', 'W', 'M'];

export function hbColours(s) {
  const fw = (s && s.fireworks) || {};
  return HB_ORDER.filter((c) => c !== 'M' || app.variant === 'rainbow' || fw.M !== undefined);
}

export function hbCard(card) {
  if (typeof card !== 'string' || !/^[RYBGWM][1-5]$/.test(card)) return { hidden: true, colour: null, number: null, name: 'hidden card' };
  return { hidden: false, colour: card[0], number: +card[1], name: `${HB_COLOURS[card[0]]} ${card[1]}` };
}

/** The seed-shaped play {actionType,target,color,number} as our JSON form. */
export function hbPlay(play) {
  if (!play || typeof play !== 'object' || play.type || play.actionType === undefined) return play || {};
  switch (play.actionType) {
    case 0: return { type: 'hint', target: play.target, color: HB_ORDER[play.color] };
    case 1: return { type: 'hint', target: play.target, number: play.number };
    case 2: return { type: 'discard', card: play.target };
    case 3: return { type: 'play', card: play.target };
    default: return play;
  }
}

export const hbList = (xs, word = 'or') => xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} ${word} ${xs[xs.length - 1]}`;
export const hbClue = (x) => (typeof x === 'number' ? `${x}s` : `${HB_COLOURS[x] || x}`);

/** What the hints say about a card, in words (for labels). */
export function hbKnowledgeText(k) {
  if (!k) return '';
  const parts = [];
  const touched = [...((k.touched && k.touched.colors) || []).map((c) => HB_COLOURS[c]), ...((k.touched && k.touched.numbers) || [])];
  parts.push(touched.length ? `hinted: ${touched.join(', ')}` : 'no hint yet');
  const not = [...((k.not && k.not.colors) || []).map((c) => HB_COLOURS[c]), ...((k.not && k.not.numbers) || [])];
  if (not.length) parts.push(`not ${hbList(not.map(String))}`);
  const pc = (k.possible && k.possible.colors) || [];
  const pn = (k.possible && k.possible.numbers) || [];
  if (pc.length < 6 || pn.length < 5) parts.push(`could be ${hbList(pc.map((c) => HB_COLOURS[c]))}, ${hbList(pn.map(String))}`);
  return parts.join('; ');
}

/** The face of a card: a real card, or for your own hidden cards what is known. */
export function hbFace(slot, { own } = {}) {
  const c = hbCard(slot.card);
  if (!c.hidden) {
    return h('span', { class: `card hb-card hb-${c.colour}`, 'aria-hidden': 'true', dataset: { card: slot.card } },
      h('span', { class: 'hb-num' }, c.number),
      h('span', { class: 'hb-col' }, c.colour === 'M' ? '✦' : c.colour));
  }
  const pc = (slot.possible && slot.possible.colors) || [];
  const pn = (slot.possible && slot.possible.numbers) || [];
  let cls = 'hb-unknown';
  if (pc.length === 1) cls = `hb-${pc[0]}`;
  else if (pc.length === 2 && pc.includes('M')) cls = `hb-${pc.find((x) => x !== 'M')} hb-maybe-M`;
  return h('span', { class: `card hb-card hb-hidden ${cls}`, 'aria-hidden': 'true', dataset: { card: '??' } },
    h('span', { class: 'hb-num' }, pn.length === 1 ? pn[0] : '?'),
    h('span', { class: 'hb-col' }, pc.length === 1 ? (pc[0] === 'M' ? '✦' : pc[0]) : (own ? '' : '?')));
}

/** The hint marks under a card: touched (what was said) and, compactly, what was ruled out. */
export function hbMarks(slot) {
  const t = slot.touched || {};
  const n = slot.not || {};
  const chips = [
    ...(t.colors || []).map((c) => h('span', { class: `hb-chip hb-chip-col hb-${c}`, title: `hinted ${HB_COLOURS[c]}` }, c)),
    ...(t.numbers || []).map((x) => h('span', { class: 'hb-chip hb-chip-num', title: `hinted ${x}` }, x)),
  ];
  const nots = [...(n.colors || []), ...(n.numbers || [])];
  return h('span', { class: 'hb-marks', 'aria-hidden': 'true' },
    h('span', { class: 'hb-touched', 'data-testid': 'hb-touched' }, chips),
    h('span', { class: 'hb-not', title: nots.length ? `not ${nots.join(', ')}` : '' }, nots.length ? `✗${nots.join('')}` : ''));
}

/** Does a hint (colour c or number x) touch a card? Rainbow cards take every colour hint. */
export function hbTouches(card, clue) {
  const c = hbCard(card);
  if (c.hidden) return false;
  if (typeof clue === 'number') return c.number === clue;
  return c.colour === clue || (c.colour === 'M' && clue !== 'M');
}

export const HB = {
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

  describePlayNodes(play0, seat, rec) {
    const play = hbPlay(play0);
    const you = app.you;
    const pos = (i) => `card ${handCard(i)}`;
    switch (play.type) {
      case 'hint': {
        const clue = play.color !== undefined && play.color !== null ? play.color : play.number;
        const who = play.target === you ? 'you' : seatName(play.target);
        const touched = rec && Array.isArray(rec.touched) ? ` (${rec.touched.length === 1 ? 'card' : 'cards'} ${rec.touched.map(handCard).join(', ')})` : '';
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
      if (play.type === 'play') return `play your card ${handCard(play.card)}`;
      if (play.type === 'discard') return `discard your card ${handCard(play.card)}`;
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

  render(a) {
    const s = a.state;
    const you = a.you === null || a.you === undefined ? null : a.you;
    const playing = myTurn();
    const sel = a.selection;
    const legal = playing ? a.legal.map(hbPlay) : [];
    const has = (p) => legal.some((q) => same(q, p));
    const n = s.players || (s.hands || []).length;
    const colours = hbColours(s);
    const hintPlay = a.hint ? hbPlay(a.hint.play) : null;

    // Which cards the recommended play is about.
    const hinted = (seat, i, card) => {
      if (!hintPlay) return false;
      if (hintPlay.type === 'play' || hintPlay.type === 'discard') return seat === you && hintPlay.card === i;
      if (hintPlay.type === 'hint' && hintPlay.target === seat) {
        return hbTouches(card, hintPlay.color !== undefined && hintPlay.color !== null ? hintPlay.color : hintPlay.number);
      }
      return false;
    };
    const clickCard = (key, ok, why) => () => {
      if (a.busy) return;
      if (!playing) { say(s.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
      if (!ok) say(why, 'warning'); // still choosable: the server judges the play
      select(key);
    };

    // --- tokens, deck, score
    const dots = (k, max, cls) => h('span', { class: 'hb-dots', 'aria-hidden': 'true' },
      Array.from({ length: max }, (_, i) => h('span', { class: `hb-dot ${cls}${i < k ? ' on' : ''}` })));
    const maxHints = s.max_hints || 8;
    const maxErrors = s.max_errors || 3;
    const finalLeft = s.final_turns_left;
    const tokens = h('section', { class: 'hb-tokens', 'aria-label': 'Tokens and deck' },
      h('p', { class: 'hb-token', 'data-testid': 'hb-hints' }, h('span', { class: 'hb-token-label' }, `Hints ${s.hints}/${maxHints}`), dots(s.hints, maxHints, 'hint')),
      h('p', { class: 'hb-token', 'data-testid': 'hb-errors' }, h('span', { class: 'hb-token-label' }, `Errors ${s.errors}/${maxErrors}`), dots(s.errors, maxErrors, 'error')),
      h('p', { class: 'hb-token', 'data-testid': 'hb-deck' }, `Deck ${s.deck} card${s.deck === 1 ? '' : 's'}`),
      h('p', { class: 'hb-token', 'data-testid': 'hb-score' }, `Score ${s.score}/${s.max_score}`),
      finalLeft !== null && finalLeft !== undefined && !s.over
        ? h('p', { class: 'hb-token hb-final', 'data-testid': 'hb-final' }, `Final round: ${finalLeft} turn${finalLeft === 1 ? '' : 's'} left`) : null);

    // --- fireworks
    const fireworks = h('section', { class: 'hb-fireworks', 'aria-labelledby': 'hb-fw-title' },
      h('h3', { class: 'area-title', id: 'hb-fw-title' }, 'Fireworks'),
      h('ul', { class: 'hb-piles' }, colours.map((c) => {
        const k = (s.fireworks || {})[c] || 0;
        return h('li', { class: 'hb-pile', 'data-testid': `hb-firework-${c}` },
          k ? h('span', { class: `card hb-card hb-${c}`, 'aria-hidden': 'true' }, h('span', { class: 'hb-num' }, k), h('span', { class: 'hb-col' }, c === 'M' ? '✦' : c))
            : h('span', { class: `card card-empty hb-empty hb-${c}-line`, 'aria-hidden': 'true' }, HB_COLOURS[c]),
          h('span', { class: 'visually-hidden' }, `${HB_COLOURS[c]}: ${k ? `up to ${k}` : 'nothing yet'}`));
      })));

    // --- discard pile, grouped by colour
    const byColour = {};
    for (const d of s.discard || []) (byColour[d[0]] = byColour[d[0]] || []).push(d);
    const discard = h('section', { class: 'hb-discard', 'data-testid': 'hb-discard-pile', 'aria-labelledby': 'hb-dp-title' },
      h('h3', { class: 'area-title', id: 'hb-dp-title' }, `Discard pile (${(s.discard || []).length})`),
      (s.discard || []).length
        ? h('ul', { class: 'hb-discard-rows' }, colours.filter((c) => byColour[c]).map((c) => h('li', { class: 'hb-discard-row' },
          byColour[c].sort().map((d) => h('span', { class: `hb-mini hb-${c}`, title: hbCard(d).name }, d[1])),
          h('span', { class: 'visually-hidden' }, `${HB_COLOURS[c]}: ${byColour[c].map((d) => d[1]).join(', ')}`))))
        : h('p', { class: 'hb-none' }, 'Nothing discarded yet.'));

    // --- one player's hand
    const playerArea = (seat) => {
      const isYou = seat === you;
      const hand = (s.hands || [])[seat] || [];
      const isCurrent = s.current === seat && !s.over;
      const canHintThem = !isYou && legal.some((p) => p.type === 'hint' && p.target === seat);
      const cards = hand.map((slot, i) => {
        const key = isYou ? `own:${i}` : `p:${seat}:${i}`;
        const c = hbCard(slot.card);
        const ok = isYou ? legal.some((p) => (p.type === 'play' || p.type === 'discard') && p.card === i) : canHintThem;
        const why = isYou ? 'That card cannot be played or discarded now.' : (s.hints === 0 ? 'No hint tokens left: play or discard instead.' : 'No hint to that player is possible now.');
        const words = [];
        if (sel === key) words.push('selected');
        if (hinted(seat, i, slot.card)) words.push('hint: this card');
        const label = isYou
          ? `Your card ${handCard(i)}${i === 0 ? ' (oldest)' : ''}: ${hbKnowledgeText(slot)}`
          : `${seatName(seat)}'s card ${handCard(i)}: ${c.name}; they know: ${hbKnowledgeText(slot)}`;
        return h('button', {
          type: 'button', class: `hand-card hb-slot${sel === key ? ' selected' : ''}${ok && !sel ? ' playable' : ''}${hinted(seat, i, slot.card) ? ' hinted' : ''}`,
          'data-testid': `hb-card-${seat}-${i}`, 'aria-pressed': String(sel === key), 'aria-disabled': playing ? null : 'true',
          'aria-label': label + (words.length ? `, ${words.join(', ')}` : ''),
          onclick: clickCard(key, ok, why),
        }, h('span', { class: 'hb-pos', 'aria-hidden': 'true' }, handCard(i)), hbFace(slot, { own: isYou }), hbMarks(slot));
      });
      const header = h('h3', { class: 'player-name' },
        h('span', {}, isYou ? `${seatName(seat)} — your cards are hidden from you` : seatName(seat)),
        isCurrent ? h('span', { class: 'badge badge-turn' }, 'to play') : null,
        s.first === seat ? h('span', { class: 'badge' }, 'started') : null);
      return h('section', {
        class: `player hb-player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}`, 'data-testid': `player-${seat}`,
        'aria-label': isYou ? 'Your hand' : `${seatName(seat)}'s hand`,
      }, header, h('div', { class: 'hand hb-hand', role: 'group', 'aria-label': isYou ? 'Your cards, oldest first' : `${seatName(seat)}'s cards, oldest first`, 'data-testid': `hb-hand-${seat}` }, cards),
      isYou ? nearHand() : null);
    };

    // --- the actions for the selected card
    let actions = null;
    if (playing && sel) {
      const m = /^own:(\d+)$/.exec(sel);
      const o = /^p:(\d+):(\d+)$/.exec(sel);
      // Every action stays clickable; the legal ones are highlighted. The
      // verdict of a refused one shows by the card it was about.
      const anchor = m ? `hb-card-${you}-${m[1]}` : o ? `hb-card-${o[1]}-${o[2]}` : null;
      const btn = (testid, text, play, extra = {}) => h('button', {
        type: 'button', class: `btn ${has(play) ? 'btn-primary' : 'btn-secondary'}`, 'data-testid': testid,
        onclick: () => attempt(play, anchor), ...extra,
      }, text);
      if (m) {
        const i = +m[1];
        actions = h('div', { class: 'hb-actions', role: 'group', 'aria-label': `Actions for your card ${handCard(i)}`, 'data-testid': 'hb-actions' },
          h('span', { class: 'hb-actions-what' }, `Your card ${handCard(i)}:`),
          btn('hb-play', 'Play', { type: 'play', card: i }, { 'aria-label': `Play your card ${handCard(i)}` }),
          btn('hb-discard', 'Discard', { type: 'discard', card: i }, {
            'aria-label': `Discard your card ${handCard(i)}`, title: s.hints >= maxHints ? 'All hint tokens are in: you may not discard.' : null,
          }),
          s.hints >= maxHints ? h('span', { class: 'hb-note' }, 'All 8 hint tokens are in: no discarding.') : null);
      } else if (o) {
        const p = +o[1];
        const i = +o[2];
        const slot = ((s.hands || [])[p] || [])[i];
        const c = hbCard(slot && slot.card);
        const who = seatName(p);
        const theirs = ((s.hands || [])[p] || []).map((x) => x.card);
        const count = (clue) => { const k = theirs.filter((x) => hbTouches(x, clue)).length; return `${k} card${k === 1 ? '' : 's'}`; };
        const colourBtn = (col, testid) => btn(testid, `Hint colour: ${HB_COLOURS[col]}`, { type: 'hint', target: p, color: col }, {
          'aria-label': `Tell ${who} about their ${HB_COLOURS[col]} cards (touches ${count(col)})`, title: `touches ${count(col)}`,
        });
        const colourButtons = c.colour === 'M'
          ? [h('span', { class: 'hb-note' }, 'Rainbow cannot be named; every colour hint touches it:'),
            ...HB_ORDER.filter((x) => x !== 'M').map((x) => colourBtn(x, `hb-hint-color-${x}`))]
          : [colourBtn(c.colour, 'hb-hint-color')];
        actions = h('div', { class: 'hb-actions', role: 'group', 'aria-label': `Hints about ${who}'s ${c.name}`, 'data-testid': 'hb-actions' },
          h('span', { class: 'hb-actions-what' }, `${who}'s `, hbCardText(slot.card), ':'),
          ...colourButtons,
          btn('hb-hint-number', `Hint number: ${c.number}`, { type: 'hint', target: p, number: c.number }, {
            'aria-label': `Tell ${who} about their ${c.number}s (touches ${count(c.number)})`, title: `touches ${count(c.number)}`,
          }),
          s.hints === 0 ? h('span', { class: 'hb-note' }, 'No hint tokens left.') : null);
      }
    }

    const order = [];
    for (let i = 1; i <= n; i++) order.push(you === null ? i - 1 : (you + i) % n);
    const others = order.filter((x) => x !== you);
    const help = h('p', { class: 'help', 'data-testid': 'play-help' },
      playing ? (sel ? 'Choose what to do with the selected card (Escape cancels).'
        : 'Choose one of your cards to play or discard it, or another player\'s card to give them a hint.')
        : (s.over ? '' : 'Waiting for the other players.'));
    return placeVerdict(h('div', { class: 'hb-table' },
      h('div', { class: 'hb-center' }, tokens, fireworks, discard),
      h('div', { class: 'opponents hb-opponents' }, others.map(playerArea)),
      you === null ? null : playerArea(you),
      h('div', { class: 'hb-actions-slot' }, actions),
      help,
      conventionsHelp()));
  },
};

// The conventions the bots play by (and read a person's clues by), as
// GET /rules/hanabi states them: fetched once, shown folded under the table.
export function conventionsHelp() {
  const doc = app.rulesDocs.hanabi;
  if (doc === undefined) {
    app.rulesDocs.hanabi = null; // asked once
    api('GET', '/rules/hanabi').then(({ data }) => {
      app.rulesDocs.hanabi = data || null;
      if (app.game === 'hanabi') render();
    }).catch(() => {});
    return null;
  }
  const conv = doc && doc.conventions;
  if (!conv || !Array.isArray(conv.rules)) return null;
  return h('details', { class: 'help conventions', 'data-testid': 'hb-conventions' },
    h('summary', {}, 'How the bots play: our conventions'),
    conv.summary ? h('p', {}, conv.summary) : null,
    h('ul', {}, conv.rules.map((r) => h('li', {}, typeof r === 'string' ? r : (r.text || r.rule || JSON.stringify(r))))));
}

export function hbCardText(card) {
  const c = hbCard(card);
  if (c.hidden) return h('span', { class: 'card-text' }, '??');
  return h('span', { class: `card-text hb-word hb-${c.colour}`, title: c.name }, `${c.colour === 'M' ? '✦' : c.colour}${c.number}`);
}
