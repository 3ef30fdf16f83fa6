// The conflict panel: something (a slip, an account) was changed on another screen before this one
// saved. It shows, field by field, what it was when read, what it is now and what this person
// tried; "自分の入力を戻す" hands their change back to the view that owns the form.

import { $, h } from './ui.js';

let reapplyAction = null;

export function mount() {
  $('conflict-close').addEventListener('click', hideConflict);
  $('conflict-reapply').addEventListener('click', () => {
    const action = reapplyAction;
    hideConflict();
    action?.();
  });
}

/**
 * rows: [{field, label, before, now, changed, mine}] (texts). Focus moves to the panel; re-applying
 * is offered once the view has put the current version in its form (`offerReapply`).
 */
export function showConflict({ title, lead, rows }) {
  $('conflict-title').textContent = title;
  $('conflict-text').textContent = lead;
  $('conflict-table').querySelector('tbody').replaceChildren(
    ...rows.map((r) =>
      h(
        'tr',
        { dataset: { field: r.field } },
        h('th', { scope: 'row', text: r.label }),
        h('td', { class: 'before', text: r.before }),
        h('td', { class: r.changed ? 'now changed' : 'now', text: r.now }),
        h('td', { class: 'mine', text: r.mine }),
      ),
    ),
  );
  $('conflict-table').hidden = rows.length === 0;
  offerReapply(null);
  $('conflict').hidden = false;
  $('conflict').focus();
}

/** What "自分の入力を戻す" does (nothing offered when null). */
export function offerReapply(action) {
  reapplyAction = action;
  $('conflict-reapply').hidden = !action;
}

export function hideConflict() {
  $('conflict').hidden = true;
  reapplyAction = null;
}

export const conflictShown = () => !$('conflict').hidden;
