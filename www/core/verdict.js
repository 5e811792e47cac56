// The server's verdict on an attempted play. The tables let
// a person try any card on any place; the server judges. A refused play (422)
// is shown in words next to the place it was aimed at, and announced through
// the message bar (a live region); the next click or key clears it.

import { h } from './dom.js';
import { readable } from './log.js';
import { app, dispatch } from './state.js';

/** A rule reference in words: "build.start" -> "build start". */
function ruleWords(rule) {
  if (!rule) return '';
  return String(rule).replace(/[._]+/g, ' ').replace(/-/g, ' ').trim();
}

/** The verdict of a refused play (core/game.js dispatches it), shown by
 *  the place `anchor` (a data-testid) it was aimed at. */
export function verdictOf(err, anchor) {
  const p = (err && err.problem) || {};
  return { anchor: anchor || null, detail: readable(p.detail || (err && err.message) || 'not allowed'), rule: p.rule || null };
}

export function verdictText(v) {
  return `Not allowed: ${v.detail}${v.rule ? ` (rule: ${ruleWords(v.rule)})` : ''}`;
}

/** Put `verdict` next to its place in a freshly drawn table `tree` (tables call this last). */
export function placeVerdict(tree, verdict) {
  const v = verdict;
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

// The next action (a click, or Enter/Space/Escape) clears the verdict first;
// the action's own attempt (core/game.js) may set a new one. Cleared on the
// click itself, not on the press before it: the table is drawn again without
// the note, and a press that moved what it was aimed at would lose its click.
function onAction() {
  if (app.verdict) dispatch({ type: 'verdict', verdict: null });
}
if (typeof document !== 'undefined') {
  document.addEventListener('click', onAction, true);
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ' || e.key === 'Escape') onAction(); }, true);
}
