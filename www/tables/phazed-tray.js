// The Phazed table's "lay a phase" tray: the phase's groups as boxes, each
// labelled with what it needs; the player puts cards of the hand into them
// (a hand card, then a group's "Put here"; or a group first, then cards),
// takes a placed card back by choosing it again (in the tray or in the
// hand), and sends the play with "Lay phase". Any selection is sent: the
// server judges it, and a refusal names the group and why (its verdict
// shows by the "Lay phase" button, core/verdict.js). Wild Aces go in like
// any card; a run's cards stay in the order they were put in. When the
// hint is a phase play, "Put the hint's cards in" fills the groups. The tray's
// state is the table's own (app.table.pzTray), hand indexes per group,
// started afresh for each hand and pick-up (its key).
import { h } from '../core/dom.js';
import { attempt } from '../core/game.js';
import { nth } from '../core/numbering.js';
import { say, select, setTable } from '../core/state.js';

// What each group of a phase needs: words, and its size (0: a total of 34).
const NEEDS = {
  1: [['a set of 3 of one value', 3], ['a set of 3 of one value', 3]],
  2: [['7 cards of one suit', 7]],
  3: [['cards totalling 34 (an Ace counts 1)', 0], ['cards totalling 34 (an Ace counts 1)', 0]],
  4: [['a set of 4 of one value', 4], ['a set of 4 of one value', 4]],
  5: [['a run of 8, in order', 8]],
  6: [['cards of one colour totalling 34', 0], ['cards of one colour totalling 34', 0]],
  7: [['a run of 4 of one colour, in order', 4], ['a set of 4 of one value', 4]],
};
const accValue = (card) => (card[0] === 'A' ? 1 : '234567890JQK'.indexOf(card[0]) + 2);

/** The phases the seat may lay this hand (standard: the next one; bonus:
 *  every one not done). */
function openPhases(status, bonus) {
  if (bonus && Array.isArray(status)) return status.map((d, i) => (d ? 0 : i + 1)).filter(Boolean);
  const done = +status || 0;
  return done < 7 ? [done + 1] : [];
}

/** The tray as it stands for this position: {key, phase, groups, active}. */
function trayState(a) {
  const s = a.state, hand = s.hand || [];
  const key = `${a.id}|${s.hand_number}|${hand.join(',')}`;
  const kept = a.table.pzTray;
  return kept && kept.key === key ? kept : { key, phase: 0, groups: [[], []], active: null };
}

/** The group (0-based) hand card i is in, -1 none. */
export function trayGroupOf(a, i) {
  return trayState(a).groups.findIndex((g) => g.includes(i));
}

const keep = (t) => setTable('pzTray', t);
const put = (t, g, i) => keep({ ...t, groups: t.groups.map((x, k) => (k === g ? [...x, i] : x.filter((j) => j !== i))) });
const takeBack = (t, i) => keep({ ...t, groups: t.groups.map((x) => x.filter((j) => j !== i)) });

/** A click on hand card i while the tray is shown: takes a placed card
 *  back, or puts the card into the chosen group; true when it did. */
export function trayTakesCard(a, i) {
  const t = trayState(a);
  if (t.groups.some((g) => g.includes(i))) { takeBack(t, i); return true; }
  if (t.active === null) return false;
  put(t, t.active, i);
  return true;
}

/** The tray, or null when there is no phase to lay now. `ctx`: the hand,
 *  the seat's phase_status, bonus, the selected hand card (index or null),
 *  the hint's play (or null), guard() (may the person play), face(card)
 *  and name(card) of a card. */
export function phaseTray(a, ctx) {
  const { hand, status, bonus, sel, hint, guard, face, name } = ctx;
  const phases = openPhases(status, bonus);
  if (!phases.length) return null;
  const t = trayState(a);
  const phase = phases.includes(t.phase) ? t.phase : phases[0];
  const needs = NEEDS[phase];
  const groups = needs.map((_, g) => t.groups[g] || []);
  const placed = groups.flat().length;
  const setPhase = (p) => keep({ ...t, phase: p, groups: [[], []], active: null });
  const box = (g) => {
    const [words, size] = needs[g];
    const cards = groups[g].map((i) => hand[i]);
    const count = size ? `${cards.length} of ${size} cards` : `total ${cards.reduce((x, c) => x + accValue(c), 0)} of 34`;
    const active = t.active === g;
    return h('div', { class: `pz-tray-group${active ? ' active' : ''}`, 'data-testid': `pz-tray-group-${g}`, role: 'group', 'aria-label': `Group ${nth(g)}: ${words}` },
      h('p', { class: 'pz-tray-needs' }, h('strong', {}, `Group ${nth(g)}`), ` needs ${words} · `,
        h('span', { 'data-testid': `pz-tray-count-${g}` }, count)),
      h('div', { class: 'pz-tray-cards' },
        cards.map((c, k) => h('button', {
          type: 'button', class: 'pz-tray-card', 'data-testid': `pz-tray-card-${g}-${k}`,
          'aria-label': `${name(c)} in group ${nth(g)}: take it back`,
          onclick: () => { if (guard()) takeBack(t, groups[g][k]); },
        }, face(c))),
        h('button', {
          type: 'button', class: `btn btn-secondary btn-small pz-tray-put${active ? ' on' : ''}`, 'data-testid': `pz-tray-put-${g}`,
          'aria-pressed': String(active),
          'aria-label': sel !== null ? `Put your ${name(hand[sel])} into group ${nth(g)}` : `Choose group ${nth(g)}, then cards of your hand to put into it`,
          onclick: () => {
            if (!guard()) return;
            if (sel !== null) { put({ ...t, phase }, g, sel); select(null, { keepHint: true }); return; }
            keep({ ...t, phase, active: active ? null : g });
          },
        }, sel !== null ? 'Put here' : active ? 'Choosing…' : 'Choose')));
  };
  // the hint's phase play, put into the tray (each card to a hand card not yet used)
  const hinted = hint && hint[0] === 3 && phases.includes(hint[1][0]) ? hint[1] : null;
  const fill = () => {
    const used = new Set();
    const groupsOf = hinted[1].map((g) => g.map((c) => {
      const i = hand.findIndex((x, k) => x === c && !used.has(k));
      used.add(i);
      return i;
    }).filter((i) => i >= 0));
    keep({ ...t, phase: hinted[0], groups: [...groupsOf, []].slice(0, 2), active: null });
  };
  const lay = () => {
    if (!guard()) return;
    if (!placed) { say('Put cards of your hand into the groups first.', 'error'); return; }
    attempt([3, [phase, groups.map((g) => g.map((i) => hand[i]))]], 'pz-tray-lay');
  };
  return h('section', { class: 'pz-tray', 'data-testid': 'pz-tray', 'aria-label': 'Lay your phase' },
    h('h4', { class: 'area-title' }, `Lay phase ${phase}`),
    phases.length > 1 ? h('div', { class: 'pz-tray-phases', role: 'group', 'aria-label': 'Which phase to lay' },
      phases.map((p) => h('button', {
        type: 'button', class: `btn btn-secondary btn-small${p === phase ? ' on' : ''}`, 'data-testid': `pz-tray-phase-${p}`,
        'aria-pressed': String(p === phase), onclick: () => setPhase(p),
      }, `Phase ${p}`))) : null,
    h('p', { class: 'help pz-tray-help' }, t.active !== null
      ? `Choose cards of your hand to put into group ${nth(t.active)}; choose a placed card to take it back.`
      : 'Choose a card of your hand, then "Put here" on a group (or a group first, then cards). Aces are wild.'),
    h('div', { class: 'pz-tray-groups' }, needs.map((_, g) => box(g))),
    h('div', { class: 'pz-tray-actions' },
      h('button', { type: 'button', class: 'btn btn-primary', 'data-testid': 'pz-tray-lay', onclick: lay, 'aria-disabled': placed ? null : 'true' }, `Lay phase ${phase}`),
      hinted ? h('button', { type: 'button', class: 'btn btn-secondary btn-small hinted', 'data-testid': 'pz-tray-hint', onclick: fill }, 'Put the hint\'s cards in') : null,
      h('button', {
        type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': 'pz-tray-clear',
        onclick: () => keep({ ...t, groups: [[], []], active: null }), disabled: !placed,
      }, 'Take all back')));
}
