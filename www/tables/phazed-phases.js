// The Phazed table's phase plays: a hand can hold thousands (a run of eight
// with several Aces), so the table never draws a button for each. A phase
// is laid by putting cards into its groups (phazed-tray.js); this is the
// help beside it: it shows the hint's phase play on top (exactly one of
// /legal's: the engine lays both in one order) and, folded away as "Show me
// ways" with how many there are, the list a page of PZ_PHASE_PAGE at a
// time; the pages past /legal's first answer (which the core fetched) come
// from the API's own pages, ?offset=&limit=.
// Phase plays come last in /legal's list, after every other kind.
import { api } from '../core/api.js';
import { h } from '../core/dom.js';
import { app, sayError, setTable } from '../core/state.js';
// Where the pager stands for this position (a new hand or turn starts it
// again), and the pages fetched from the API: the table's own state,
// app.table.pzPager.
const PZ_PHASE_PAGE = 12;

/** The phase plays' section: `a` the table's context (core/board.js),
 *  `legal` /legal's first answer, `phasePlays` its phase plays, `total` how
 *  many there are in all, `button(play, testid)` one play's button. */
export function phasePager(a, legal, phasePlays, total, hint, button) {
  const key = `${a.id}|${a.state.hand_number}|${(a.state.hand || []).join(',')}|${total}`;
  const kept = a.table.pzPager;
  const pager = kept && kept.key === key ? kept : { key, page: 0, fetched: {}, loading: false };
  const pages = Math.ceil(total / PZ_PHASE_PAGE), k = Math.min(pager.page, pages - 1);
  const from = k * PZ_PHASE_PAGE, to = Math.min(total, from + PZ_PHASE_PAGE);
  // phase plays come last in /legal's list: phase play i is entry before + i
  const before = legal.length - phasePlays.length;
  const inLegal = (page) => Math.min(total, (page + 1) * PZ_PHASE_PAGE) <= phasePlays.length;
  const shown = inLegal(k) ? phasePlays.slice(from, to) : pager.fetched[k];
  const go = async (to) => {
    if (inLegal(to) || pager.fetched[to]) { setTable('pzPager', { ...pager, page: to }); return; }
    setTable('pzPager', { ...pager, page: to, loading: true });
    let plays = null;
    try {
      const { data } = await api('GET', `/games/${encodeURIComponent(a.id)}/legal?offset=${before + to * PZ_PHASE_PAGE}&limit=${PZ_PHASE_PAGE}`, { token: a.token });
      plays = (data.plays || []).filter((p) => p[0] === 3);
    } catch (err) {
      sayError(err, 'Could not fetch more phase plays');
    }
    const now = app.table.pzPager;
    if (now && now.key === key) setTable('pzPager', { ...now, loading: false, fetched: plays ? { ...now.fetched, [to]: plays } : now.fetched });
  };
  const nav = (label, text, to, testid) => h('button', {
    type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': testid, 'aria-label': label,
    disabled: to === k || to < 0 || to >= pages || pager.loading, onclick: () => go(to),
  }, text);
  const hinted = hint && hint[0] === 3 ? hint : null;
  const ways = total === 1 ? 'one way' : `${total.toLocaleString('en')} ways`;
  // the list is a help, folded away until asked for ("Show me ways"); its
  // state is the table's own, kept over the redraws
  const open = !!a.table.pzWaysOpen;
  return h('section', { class: 'pz-phase-plays', 'aria-label': 'Phases you can lay', 'data-testid': 'pz-phase-plays' },
    hinted ? h('div', { class: 'pz-phase-hint' }, h('span', { class: 'pz-phase-hint-label' }, 'Hint:'), button(hinted, 'pz-phase-hint')) : null,
    h('details', {
      class: 'pz-phase-ways', 'data-testid': 'pz-phase-ways', open,
      ontoggle: (e) => { if (e.target.open !== open) setTable('pzWaysOpen', e.target.open); },
    },
    h('summary', { 'data-testid': 'pz-phase-ways-toggle' },
      h('span', { class: 'pz-phase-count', 'data-testid': 'pz-phase-count' }, `You can lay your phase ${ways}.`), ' Show me ways'),
    h('div', { class: 'pz-phase-list', role: 'group', 'aria-label': `Phase plays ${from + 1} to ${to} of ${total}` },
      shown ? shown.map((p, i) => button(p, `pz-phase-${from + i}`)) : h('p', { class: 'help' }, 'Loading...')),
    pages > 1 ? h('nav', { class: 'pz-phase-pager', 'aria-label': 'More phase plays', 'data-testid': 'pz-phase-pager' },
      nav('First phase plays', '«', 0, 'pz-phase-first'),
      nav('Previous phase plays', '‹', k - 1, 'pz-phase-prev'),
      h('span', { class: 'pz-phase-range', 'data-testid': 'pz-phase-range', 'aria-live': 'polite' },
        `${(from + 1).toLocaleString('en')}–${to.toLocaleString('en')} of ${total.toLocaleString('en')}`),
      nav('Next phase plays', '›', k + 1, 'pz-phase-next'),
      nav('Last phase plays', '»', pages - 1, 'pz-phase-last')) : null));
}
