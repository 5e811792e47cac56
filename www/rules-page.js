// The rules page rendered by the server (GET /docs/rules/{game}.html, its
// Markdown through cmark-gfm): where the rules show cards in their codes
// ("2S", "R3", "7H"), the cards are drawn beside them as the table draws
// them. The page's game is its body's data-game; a code span becomes cards
// only when every word in it is a card of that game.

import { cardFace } from './tables/french-cards.js';
import { fcFace } from './tables/fivecrowns.js';
import { hbShown } from './tables/hanabi-cards.js';

const FRENCH = { re: /^(ZZ|[A2-90JQK][SHDC])$/, face: (c) => cardFace(c, 'rules-card') };
const CARDS = {
  comp10001bo: FRENCH,
  phazed: FRENCH,
  hanabi: { re: /^[RYBGWM][1-5]$/, face: (c) => hbShown(c, 'rules-card') },
  fivecrowns: { re: /^(J[123]|(10|[3-9XJQK])[SCDHT])$/, face: (c) => fcFace(c, 'rules-card') },
};

function drawCards() {
  const kind = CARDS[document.body.dataset.game];
  if (!kind) return;
  for (const code of document.querySelectorAll('main code')) {
    if (code.closest('pre')) continue; // whole requests and replies stay text
    const words = code.textContent.replace(/[[\]",]/g, ' ').trim().split(/\s+/).filter(Boolean);
    if (!words.length || words.length > 16 || !words.every((w) => kind.re.test(w))) continue;
    const row = document.createElement('span');
    row.className = 'rules-cards';
    row.dataset.testid = 'rules-cards';
    row.setAttribute('aria-hidden', 'true');
    row.append(...words.map(kind.face));
    code.after(row);
  }
}

drawCards();
