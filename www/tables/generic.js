// The fallback for a game without its own table.

import { h } from '../core/dom.js';
import { sendPlay } from '../core/game.js';

// Generic fallback: the JSON view and the legal plays as buttons.

export const GENERIC = {
  title: 'Game',
  describePlayNodes(play) { return [JSON.stringify(play)]; },
  describePlay(play) { return JSON.stringify(play); },
  statusExtra(s) { return s && s.turn !== undefined ? `turn ${s.turn}` : ''; },
  render(a) {
    return h('div', { class: 'generic' },
      h('h3', { class: 'area-title' }, 'Your legal plays'),
      a.legal.length
        ? h('div', { class: 'legal-list' }, a.legal.map((p, i) => h('button', {
          type: 'button', class: 'btn btn-secondary', 'data-testid': `legal-play-${i}`, onclick: () => sendPlay(p),
        }, JSON.stringify(p))))
        : h('p', {}, a.myTurn ? 'No legal plays.' : 'Not your turn.'),
      h('h3', { class: 'area-title' }, 'State'),
      h('pre', { class: 'json', 'data-testid': 'generic-state', tabindex: '0' }, JSON.stringify(a.state, null, 2)));
  },
};
