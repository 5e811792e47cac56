// The Comp10001-Bo table.

import { h } from '../core/dom.js';
import { attempt, sendPlay } from '../core/game.js';
import { say, seatName, select, whose } from '../core/state.js';
import { nth } from '../core/numbering.js';
import { nearHand } from '../core/nearhand.js';
import { placeVerdict } from '../core/verdict.js';
import { boCard, cardFace, cardText, jokerFace, jokerReads, readableCodes } from './french-cards.js';

export const BO = {
  // The keys of the table (core/keys.js presses the control a key names;
  // the Rules panel lists them). A digit picks a hand card, or, with a card
  // picked, plays it on that build pile.
  hotkeys: [
    { key: '1 to 5', what: 'pick the card in that place of your hand', keys: ['1', '2', '3', '4', '5'], target: (k, a) => (a.selection ? null : `hand-card-${+k - 1}`) },
    { key: 'S', what: 'pick your stockpile\'s top card', keys: ['s'], target: (k, a) => `stockpile-${a.you}` },
    { key: '1 to 4 (a card picked)', what: 'play it on that build pile', keys: ['1', '2', '3', '4'], target: (k, a) => (a.selection ? `build-pile-${+k - 1}` : null) },
    { key: 'X', what: 'pass, when no play is possible', keys: ['x'], target: () => 'pass-button' },
  ],
  title: 'Comp10001-Bo',
  // the server takes back a card moved from the hand or a discard pile within the turn
  takesBack: true,

  // Source/destination keys: "hand:<card>", "stock", "embargo", "discard:<o>:<p>";
  // destinations "build:<b>", "discard:<o>:<p>", "player:<t>".
  sourceKey(play) {
    const [type, src] = play;
    if (type === 0) return `hand:${src}`;
    if (type === 1 && Array.isArray(src) && Array.isArray(src[1])) return `discard:${src[1][0]}:${src[1][1]}`;
    if (type === 2) return 'stock';
    if (type === 5) return 'embargo';
    if (type === 4) return 'embargo-on';
    return null;
  },
  destKey(play) {
    const d = play[2];
    if (!Array.isArray(d)) return null;
    if (d[0] === 0) return `build:${d[1]}`;
    if (d[0] === 1 && Array.isArray(d[1])) return `discard:${d[1][0]}:${d[1][1]}`;
    if (d[0] === 2) return `player:${d[1]}`;
    return null;
  },
  playsFrom(a, key) {
    return a.legal.filter((p) => BO.sourceKey(p) === key);
  },

  /** The play from source `src` to destination `dst` (keys as above), legal or
   *  not: the legal one when there is one, else built so that the server judges it. */
  playFor(a, src, dst) {
    const legal = BO.playsFrom(a, src).find((p) => BO.destKey(p) === dst);
    if (legal) return legal;
    const s = a.state;
    const [dk, x, y] = dst.split(':');
    const dest = dk === 'build' ? [0, +x] : dk === 'discard' ? [1, [+x, +y]] : [2, +x];
    if (src === 'embargo-on') return [4, null, dest];
    if (src === 'embargo') return [5, null, dest];
    if (src === 'stock') return [2, ((s.stockpiles || [])[a.you] || {}).top || null, dest];
    if (src.startsWith('hand:')) return [0, src.slice(5), dest];
    const [, o, p] = src.split(':');
    const pile = ((s.discard_piles || [])[+o] || [])[+p] || [];
    return [1, [pile[pile.length - 1] || null, [+o, +p]], dest];
  },

  destNodes(dest, seat) {
    if (!Array.isArray(dest)) return ['?'];
    if (dest[0] === 0) return [`build pile ${nth(dest[1])}`];
    if (dest[0] === 1 && Array.isArray(dest[1])) {
      const [o, p] = dest[1];
      return [o === seat ? `own discard pile ${nth(p)}` : `${whose(o)} discard pile ${nth(p)}`];
    }
    if (dest[0] === 2) return [seatName(dest[1])];
    return [JSON.stringify(dest)];
  },

  describePlayNodes(play, seat) {
    if (!Array.isArray(play)) return [JSON.stringify(play)];
    const [type, src, dest] = play;
    switch (type) {
      case 0: return [cardText(src), ' from hand to ', ...BO.destNodes(dest, seat)];
      case 1: {
        const [card, [o, p]] = src;
        const from = o === seat ? `own discard pile ${nth(p)}` : `${whose(o)} discard pile ${nth(p)}`;
        return [cardText(card), ` from ${from} to `, ...BO.destNodes(dest, seat)];
      }
      case 2: return [cardText(src), ' from stockpile to ', ...BO.destNodes(dest, seat)];
      case 3: return ['no play possible — passes'];
      case 4: return ['embargo on ', ...BO.destNodes(dest, seat)];
      case 5: return ['cleared the embargo to ', ...BO.destNodes(dest, seat)];
      default: return [JSON.stringify(play)];
    }
  },

  /** Card codes in explanations and the server's reasons in words ("not 7C" -> "not 7♣"). */
  explainText(text) {
    return readableCodes(text);
  },

  describePlay(play, seat, opts = {}) {
    if (opts.forHint && Array.isArray(play)) {
      const [type, src, dest] = play;
      const to = () => h('span', {}, BO.destNodes(dest, seat)).textContent.replace(/^own /, 'your ');
      if (type === 0) return `play ${h('span', {}, cardText(src)).textContent} from your hand to ${to()}`;
      if (type === 2) return `play ${h('span', {}, cardText(src)).textContent} from your stockpile to ${to()}`;
      if (type === 1) return `play ${h('span', {}, cardText(src[0])).textContent} from ${src[1][0] === seat ? 'your' : whose(src[1][0])} discard pile ${nth(src[1][1])} to ${to()}`;
      if (type === 3) return 'pass: no play is possible';
      if (type === 4) return `put the embargo on ${to()}`;
      if (type === 5) return `clear your embargo to ${to()}`;
    }
    const span = h('span', {}, BO.describePlayNodes(play, seat));
    return span.textContent;
  },

  // Game over (core/summary.js, core/state.js's resultText): the status's
  // scores are the cards each player got off their stockpile.
  scoreLabel: 'Stockpile cards played',
  summaryColumns(s) {
    const cols = [];
    if (Array.isArray(s.stockpiles)) cols.push(['Stockpile left', (p) => (s.stockpiles[p] || {}).count]);
    if (Array.isArray(s.hand_sizes)) cols.push(['Cards in hand', (p) => s.hand_sizes[p]]);
    return cols;
  },
  resultText(s, status) {
    if (status.result === 'abandoned') return 'Game over: abandoned — the draw pile is empty and nobody can play. No winner.';
    if (status.result === 'turn-limit') return 'Game over: every player has had 20 turns. No winner.';
    return ''; // won: core's words
  },

  statusExtra(s) {
    const parts = [];
    if (s.turn !== undefined) parts.push(`turn ${s.turn}`);
    if (s.plays_this_turn !== undefined && !s.over) parts.push(`${s.plays_this_turn}/5 plays this turn`);
    if (s.draw_pile !== undefined) parts.push(`draw pile ${s.draw_pile}`);
    return parts.join(' · ');
  },

  /** Build the whole table for the view `a.state`. */
  render(a) {
    const s = a.state;
    const n = (s.stockpiles || []).length || 4;
    const you = a.you === null || a.you === undefined ? null : a.you;
    const playing = a.myTurn;
    const sel = a.selection;
    const targets = new Set(sel ? BO.playsFrom(a, sel).map(BO.destKey) : []);
    const sources = new Set(playing ? a.legal.map(BO.sourceKey).filter(Boolean) : []);
    const hintSrc = a.hint && Array.isArray(a.hint.play) ? BO.sourceKey(a.hint.play) : null;
    const hintDst = a.hint && Array.isArray(a.hint.play) ? BO.destKey(a.hint.play) : null;

    // What a pile button does when clicked: any source may be chosen and
    // played to any place; the server judges (its verdict shows at the place).
    const clickSource = (key) => () => {
      if (a.busy) return;
      if (!playing) { say(a.state.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
      select(key, { keepHint: key === hintSrc }); // the hint stays marked while its own card is picked
    };
    const clickDest = (key, anchor) => {
      if (a.busy) return;
      if (!playing) { say(a.state.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
      if (!sel) { say('First choose a card to play: from your hand, your stockpile or the top of a discard pile.', 'error'); return; }
      if (sel === 'embargo-on' && !key.startsWith('player:')) { say('An embargo is played on a player: choose an "Embargo" button by their area.', 'error'); return; }
      attempt(BO.playFor(a, sel, key), anchor);
    };
    const classes = (srcKey, dstKey) => {
      const c = [];
      if (srcKey && sel === srcKey) c.push('selected');
      else if (srcKey && !sel && sources.has(srcKey)) c.push('playable');
      if (dstKey && targets.has(dstKey)) c.push('target');
      if ((srcKey && hintSrc === srcKey) || (dstKey && hintDst === dstKey)) c.push('hinted');
      return c.join(' ');
    };
    const stateWords = (srcKey, dstKey) => {
      const w = [];
      if (srcKey && sel === srcKey) w.push('selected');
      if (dstKey && targets.has(dstKey)) w.push('legal destination');
      if (srcKey && hintSrc === srcKey) w.push('hint: play from here');
      if (dstKey && hintDst === dstKey) w.push('hint: play to here');
      return w.length ? `, ${w.join(', ')}` : '';
    };

    // Build piles (shared).
    const builds = h('section', { class: 'builds', 'aria-label': 'Build piles', 'data-area': 'actions' },
      h('h3', { class: 'area-title' }, 'Build piles'),
      h('div', { class: 'pile-row' }, (s.build_piles || [[], [], [], []]).map((pile, b) => {
        const key = `build:${b}`;
        const top = pile.length ? pile[pile.length - 1] : null;
        const reads = jokerReads(((s.joker_reads || {}).build_piles || [])[b]);
        const label = (top ? `Build pile ${nth(b)}: ${boCard(top).name} on top, ${pile.length} card${pile.length === 1 ? '' : 's'}` : `Build pile ${nth(b)}: empty (starts with a 2 or a King)`) +
          (reads ? `; the joker stands for ${reads.words}` : '');
        return h('button', {
          type: 'button', class: `pile build ${classes(null, key)}`, 'data-testid': `build-pile-${b}`,
          'aria-label': label + stateWords(null, key), 'aria-disabled': sel && playing ? null : 'true',
          onclick: () => clickDest(key, `build-pile-${b}`),
        }, top ? jokerFace(top, reads) : h('span', { class: 'card card-empty', 'aria-hidden': 'true', title: 'Empty: start it with a 2 or a King' }, '2 / K'),
        h('span', { class: 'count', 'aria-hidden': 'true' }, pile.length ? `${pile.length}` : ''));
      })),
      h('p', { class: 'draw-pile', 'data-testid': 'draw-pile' }, `Draw pile: ${s.draw_pile ?? '?'} card${s.draw_pile === 1 ? '' : 's'}`));

    // One player's area: stockpile + 4 discard piles (+ hand for you).
    const playerArea = (seat) => {
      const isYou = seat === you;
      const stock = (s.stockpiles || [])[seat] || { top: null, count: 0 };
      const stockKey = isYou ? 'stock' : null;
      const stockLabel = `${isYou ? 'Your' : `${seatName(seat)}'s`} stockpile: ${stock.top ? `${boCard(stock.top).name} on top, ` : ''}${stock.count} card${stock.count === 1 ? '' : 's'}`;
      const stockBtn = h('button', {
        type: 'button', class: `pile stock ${classes(stockKey, null)}`, 'data-testid': `stockpile-${seat}`,
        'aria-label': stockLabel + stateWords(stockKey, null),
        'aria-disabled': stockKey && playing && stock.top ? null : 'true',
        'aria-pressed': isYou ? String(sel === 'stock') : null,
        onclick: !isYou ? () => say('You can only play from your own stockpile.', 'error')
          : stock.top ? clickSource('stock') : () => say('Your stockpile is empty.', 'error'),
      }, stock.top ? cardFace(stock.top) : h('span', { class: 'card card-empty', 'aria-hidden': 'true' }, 'empty'),
      h('span', { class: 'count', 'aria-hidden': 'true' }, `${stock.count}`));

      const discards = ((s.discard_piles || [])[seat] || [[], [], [], []]).map((pile, p) => {
        const key = `discard:${seat}:${p}`;
        const top = pile.length ? pile[pile.length - 1] : null;
        const isTarget = targets.has(key);
        const isSource = sources.has(key);
        const reads = jokerReads((((s.joker_reads || {}).discard_piles || [])[seat] || [])[p]);
        const label = `${isYou ? 'Your' : `${seatName(seat)}'s`} discard pile ${nth(p)}: ` +
          (top ? `${boCard(top).name} on top, ${pile.length} card${pile.length === 1 ? '' : 's'}` : 'empty') +
          (reads ? `; the joker stands for ${reads.words}` : '');
        const fan = pile.slice(-4);
        return h('button', {
          type: 'button', class: `pile discard ${classes(key, key)}`, 'data-testid': `discard-pile-${seat}-${p}`,
          'aria-label': label + stateWords(key, key),
          'aria-disabled': playing && (isTarget || isSource || sel || top) ? null : 'true',
          title: pile.length ? pile.map((c) => boCard(c).text).join(' ') : 'empty',
          onclick: () => {
            if (sel && sel !== key) clickDest(key, `discard-pile-${seat}-${p}`);
            else if (sel === key || top) clickSource(key)();
            else say('This discard pile is empty: there is no card to take from it. To play onto it, first choose a card.', 'error');
          },
        }, h('span', { class: 'fan', 'aria-hidden': 'true' },
          fan.length ? fan.map((c, i) => (i === fan.length - 1 ? jokerFace(c, reads, 'fan-top') : cardFace(c, 'fan-under')))
            : h('span', { class: 'card card-empty' }, '')),
        h('span', { class: 'count', 'aria-hidden': 'true' }, pile.length ? `${pile.length}` : ''));
      });

      const handSize = (s.hand_sizes || [])[seat];
      const turns = (s.turns || [])[seat];
      const isCurrent = s.current === seat && !s.over;
      const header = h('h3', { class: 'player-name' },
        h('span', {}, seatName(seat)),
        isCurrent ? h('span', { class: 'badge badge-turn' }, 'to play') : null,
        s.over && s.result === 'won' && s.winner === seat ? h('span', { class: 'badge badge-win' }, 'winner') : null);
      const meta = h('p', { class: 'player-meta' },
        handSize !== undefined ? `Hand ${handSize}` : '', turns !== undefined ? ` · turns ${turns}/20` : '');
      const dest = `player:${seat}`;
      const embargoTarget = sel === 'embargo-on' && !isYou ? h('button', {
        type: 'button', class: `btn btn-secondary${targets.has(dest) ? ' target' : ''}${hintDst === dest ? ' hinted' : ''}`, 'data-testid': `embargo-player-${seat}`,
        'aria-label': `Embargo ${seatName(seat)}${targets.has(dest) ? ', legal' : ''}${hintDst === dest ? ', hint' : ''}`,
        onclick: () => clickDest(dest, `embargo-player-${seat}`),
      }, `Embargo ${seatName(seat)}`) : null;
      const embargoed = (s.embargoed_by || [])[seat];
      const embargoNote = embargoed !== null && embargoed !== undefined
        ? h('p', { class: 'bo-embargoed', 'data-testid': `embargoed-${seat}` }, `Embargoed by ${seatName(embargoed)}: plays only from the stockpile until cleared`) : null;

      const piles = h('div', { class: 'player-piles' },
        h('div', { class: 'stock-wrap' }, h('span', { class: 'pile-caption' }, 'Stock'), stockBtn),
        h('div', { class: 'discards' }, h('span', { class: 'pile-caption' }, 'Discards'), h('div', { class: 'pile-row' }, discards)));
      const row = h('div', { class: 'player-row' }, piles);
      const area = h('section', {
        class: `player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}`, 'data-testid': `player-${seat}`, 'data-area': isYou ? 'you' : null,
        'aria-label': isYou ? 'Your area' : `${seatName(seat)}'s area`,
      }, header, meta, embargoNote, row, embargoTarget);

      if (isYou) {
        const hand = s.hand || [];
        const slots = [];
        for (let i = 0; i < Math.max(5, hand.length); i++) {
          const card = hand[i];
          if (!card) { slots.push(h('span', { class: 'card card-empty card-slot', 'aria-hidden': 'true' })); continue; }
          const key = `hand:${card}`;
          slots.push(h('button', {
            type: 'button', class: `hand-card ${classes(key, null)}`, 'data-testid': `hand-card-${i}`,
            'aria-label': `${boCard(card).name}, your hand${stateWords(key, null)}`,
            'aria-pressed': String(sel === key), 'aria-disabled': playing ? null : 'true',
            onclick: clickSource(key),
          }, cardFace(card)));
        }
        // Bonus: the embargo card (play it on a player) and clearing one played on you.
        const bonus = Array.isArray(s.holds_embargo);
        const holds = bonus && s.holds_embargo[seat];
        const onMe = bonus && (s.embargoed_by || [])[seat] !== null && (s.embargoed_by || [])[seat] !== undefined;
        const embargoBtn = (key, testid, text) => h('button', {
          type: 'button', class: `btn btn-secondary ${classes(key, null)}`, 'data-testid': testid,
          'aria-pressed': String(sel === key), onclick: clickSource(key),
        }, text);
        row.append(h('div', { class: 'hand-wrap' },
          h('h4', { class: 'area-title' }, 'Your hand'),
          h('div', { class: 'hand', 'data-testid': 'hand', role: 'group', 'aria-label': 'Your hand' }, slots),
          holds || onMe ? h('div', { class: 'bo-embargo-row' },
            holds ? embargoBtn('embargo-on', 'embargo-play', 'Embargo a player…') : null,
            onMe ? embargoBtn('embargo', 'embargo-card', 'Clear the embargo…') : null) : null,
          nearHand(a)));
      }
      return area;
    };

    const order = [];
    for (let i = 1; i <= n; i++) order.push(you === null ? i - 1 : (you + i) % n);
    const others = order.filter((x) => x !== you);

    const help = h('p', { class: 'help', id: 'play-help', 'data-testid': 'play-help' },
      playing ? (sel === 'embargo-on' ? 'Now choose the player to embargo (an "Embargo" button by their area; Escape cancels).'
        : sel ? 'Now choose a pile to play to: highlighted piles are legal (Escape cancels).' : 'Choose a card to play: from your hand, your stockpile, or the top of a discard pile.')
        : (s.over ? '' : 'Waiting for the other players.'));

    // Laid out as at a table: the others across, the shared piles between, you nearest.
    return placeVerdict(h('div', { class: 'bo-table' },
      h('div', { class: 'opponents' }, others.map(playerArea)),
      builds,
      you === null ? null : playerArea(you),
      help), a.verdict);
  },

  /** What a move touched (core/board.js marks it): where the card went, and
   *  the pile it came from when it is on the table (a hand is not). */
  moveMarks(rec) {
    const play = rec.play;
    if (!Array.isArray(play)) return [];
    const [type, src, dest] = play;
    const places = [];
    if (Array.isArray(dest)) {
      if (dest[0] === 0) places.push(`build-pile-${dest[1]}`);
      else if (dest[0] === 1 && Array.isArray(dest[1])) places.push(`discard-pile-${dest[1][0]}-${dest[1][1]}`);
      else if (dest[0] === 2) places.push(`player-${dest[1]}`);
    }
    if (type === 1 && Array.isArray(src) && Array.isArray(src[1])) places.push(`discard-pile-${src[1][0]}-${src[1][1]}`);
    if (type === 2) places.push(`stockpile-${rec.seat}`);
    return places;
  },

  /** Plays with no pile to click: passing, and embargoes handled in-board. */
  extraPlays(a) {
    if (!a.myTurn) return [];
    return a.legal.filter((p) => p[0] === 3).map((p) => h('button', {
      type: 'button', class: 'btn btn-primary', 'data-testid': 'pass-button', onclick: () => sendPlay(p),
    }, 'No play possible — pass'));
  },
};
