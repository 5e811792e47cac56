// The server's verdict on an attempted play (issue 13 item 5). The tables let
// a person try any card on any place; the server judges. A refused play (422)
// is shown in words next to the place it was aimed at, and announced through
// the message bar (a live region); the next click or key clears it.

import { h } from './dom.js';
import { readable } from './log.js';
import { app } from './state.js';

/** A rule reference in words: "bo.build.empty" -> "bo build empty". */
function ruleWords(rule) {
  if (!rule) return '';
  return String(rule).replace(/[._]+/g, ' ').replace(/-/g, ' ').trim();
}

/** The verdict of a refused play (handlePlayError): remembered for the next render. */
export function setVerdict(err) {
  const p = (err && err.problem) || {};
  app.verdict = { anchor: app.verdictAnchor || null, detail: readable(p.detail || (err && err.message) || 'not allowed'), rule: p.rule || null };
  app.verdictAnchor = null;
  return app.verdict;
}

export function verdictText(v) {
  return `Not allowed: ${v.detail}${v.rule ? ` (rule: ${ruleWords(v.rule)})` : ''}`;
}

function clearVerdict() {
  if (!app.verdict) return;
  app.verdict = null;
  for (const el of document.querySelectorAll('[data-testid="verdict"]')) el.remove();
  for (const el of document.querySelectorAll('[aria-describedby="verdict"]')) el.removeAttribute('aria-describedby');
}

/** Put the verdict next to its place in a freshly drawn table `tree` (tables call this last). */
export function placeVerdict(tree) {
  const v = app.verdict;
  if (!v) return tree;
  const note = h('div', { class: 'verdict', id: 'verdict', 'data-testid': 'verdict' },
    h('strong', {}, 'Not allowed: '), v.detail,
    v.rule ? h('span', { class: 'verdict-rule', 'data-testid': 'verdict-rule' }, ` Rule: ${ruleWords(v.rule)}.`) : null);
  const at = v.anchor ? tree.querySelector(`[data-testid="${CSS.escape(v.anchor)}"]`) : null;
  if (!at) {
    note.classList.add('verdict-free');
    tree.prepend(note);
    return tree;
  }
  at.setAttribute('aria-describedby', 'verdict');
  const wrap = h('span', { class: 'verdict-anchor', 'data-testid': 'verdict-anchor' });
  at.replaceWith(wrap);
  wrap.append(at, note);
  // Keep the note on screen: open it leftwards when the place is near the right edge.
  requestAnimationFrame(() => {
    const r = note.getBoundingClientRect();
    if (r.right > document.documentElement.clientWidth - 4) note.classList.add('verdict-left');
  });
  return tree;
}

// The next action (a click, or Enter/Space/Escape) clears the verdict (and
// any place aimed at before) first; the action's own attempt() (core/game.js) sets a new one.
function onAction() {
  app.verdictAnchor = null;
  clearVerdict();
}
if (typeof document !== 'undefined') {
  document.addEventListener('pointerdown', onAction, true);
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ' || e.key === 'Escape') onAction(); }, true);
}
