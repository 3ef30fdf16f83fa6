// 最近の変更: the ledger's journal. The page follows it — every few seconds while it is shown, and
// when it comes back into view — with the knowledge it has (GET /changes?since=…): another member's
// change reloads the panels it touches and says, in a line, who did what. The latest entries are
// listed with 元に戻す (undo, editors); a slip's 履歴 (its whole life) opens from its row.

import { ApiError, query } from '../api.js';
import { CHANGE_OP_LABELS as OPS, CHANGE_TYPE_LABELS as TYPES, ORIGIN_LABELS, amountIn, categoryLabel, momentText } from '../format.js';
import { accountName, at, on, state, unitOf } from '../state.js';
import { h, say, showError, within } from '../ui.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#journal-panel, the element app.js hands it)
let dialog = null; // a slip's 履歴, a dialog of the page's (opened from the slips' rows), handed by the page
let inDialog = null; // an element of the dialog by id

const POLL_MS = 4000;
const SHOWN = 15; // latest entries listed

let ctx = null;
let knowledge = null; // the last seq this page has seen (null: not read yet)
let recent = [];
let units = new Map(); // account id -> its unit, as the journal read from its start says (the accounts may not be read on this view)
let timer = null;
let polling = false;

/**
 * One entry in words, each amount in its account's unit: 「hanako さんが伝票を追加しました（食費
 * ￥1,200）」, 「あなたが残高の照合を追加しました（USD口座 $98.16）」. Pure.
 */
export function describeEntry(entry, { me = null, nameOf = (u) => u, unitOf = () => 'JPY', accountOf = (id) => id } = {}) {
  const who = entry.by == null ? '' : entry.by === me ? 'あなたが' : `${nameOf(entry.by)} さんが`;
  const change = entry.changes[0] ?? { type: 'slip', op: 'update' };
  const what = TYPES[change.type] ?? change.type;
  const more = entry.changes.length > 1 ? `ほか ${entry.changes.length - 1} 件` : '';
  const verb = entry.origin === 'undo' ? '元に戻しました' : `${OPS[change.op] ?? '変更'}しました`;
  const view = change.after ?? change.before ?? {};
  let detail = '';
  if (change.type === 'slip' && view.amount !== undefined) {
    const where = view.lines?.length ? `${view.lines.length} 分類` : categoryLabel(view.category ?? '');
    detail = `（${[where, amountIn(view.amount, unitOf(view.account))].filter(Boolean).join(' ')}）`;
  } else if (change.type === 'reconciliation' && view.balance !== undefined) {
    detail = `（${accountOf(view.account)} ${amountIn(view.balance, unitOf(view.account))}）`;
  } else if (change.type === 'rule' && view.name) {
    detail = `（${view.name}）`;
  }
  const origin = ORIGIN_LABELS[entry.origin] ?? '';
  return `${who}${origin}${what}${more}を${verb}${detail}`;
}

/** Each account's unit as entries from the journal's start say (its creation, a later change of unit). Pure. */
export function unitsOf(entries, known = new Map()) {
  const found = new Map(known);
  for (const entry of entries) {
    for (const change of entry.changes) if (change.type === 'account' && change.after?.unit) found.set(change.id, change.after.unit);
  }
  return found;
}

/** The unit of an account: the accounts read, else what the journal said. */
const unitHere = (id) => (state.accounts.some((a) => a.id === id) ? unitOf(id) : units.get(id) ?? 'JPY');

/** An entry in words on this page (the caller is あなた, amounts in their accounts' units). */
const describe = (entry) => describeEntry(entry, { me: state.me, unitOf: unitHere, accountOf: accountName });

/** Can the API undo this entry? (Members, invitations, webhooks, the ledger and an account's creation: no.) Pure. */
export function undoable(entry) {
  if (entry.undone_by) return false;
  return entry.changes.every((c) => ['slip', 'budget', 'recurrence'].includes(c.type) || (c.type === 'account' && c.op === 'update'));
}

/** The entries that are someone else's (what a notice is about). Pure. */
export function othersOf(entries, me) {
  return entries.filter((e) => e.by !== me);
}

/** `history`: the dialog a slip's 履歴 opens in, outside the panel (a slip's row opens it while the panel is not shown); the page hands it. */
export function mount(root, pageCtx, { history }) {
  panel = root;
  $ = within(root);
  dialog = history;
  inDialog = within(history);
  ctx = pageCtx;
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') poll();
  });
  window.addEventListener('focus', () => poll());
  on('history', (slip) => showHistory(slip));
  inDialog('slip-history-close').addEventListener('click', () => dialog.close());
}

export function clear() {
  knowledge = null;
  recent = [];
  units = new Map();
  render();
}

/** The latest entries, and the knowledge to follow from. */
export async function load() {
  if (state.routes && !state.routes.has('/changes')) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  // Followed from where the page got to: read from the start once per ledger, then what is new
  // (a ledger's whole journal is not read again on every view)
  if (knowledge !== null) return poll();
  const ledger = state.ledger;
  let since = 0;
  let kept = [];
  let seen = new Map();
  for (;;) {
    const { data } = await state.api.get(at(`/changes${query({ since, limit: 500 })}`));
    kept = [...kept, ...data.changes].slice(-SHOWN);
    seen = unitsOf(data.changes, seen);
    since = data.knowledge;
    if (!data.has_more) break;
  }
  if (ledger !== state.ledger) return; // switched meanwhile
  // Only the first read sets where the page follows from: a later one runs next to the other panels'
  // reads, and an entry it sees first may be one those reads missed; polling reloads for it.
  if (knowledge === null) knowledge = since;
  recent = kept;
  units = seen;
  render();
  schedule();
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(poll, POLL_MS);
}

/**
 * The latest entries after new ones arrived: the new ones added, the last `shown` kept, and an
 * entry an undo among them took back marked so (`undone_by`), as a read from the start would show it. Pure.
 */
export function followed(recent, changes, shown) {
  const undoneBy = new Map(changes.filter((e) => e.undoes != null).map((e) => [e.undoes, e.seq]));
  const marked = recent.map((e) => (undoneBy.has(e.seq) && e.undone_by == null ? { ...e, undone_by: undoneBy.get(e.seq) } : e));
  return [...marked, ...changes].slice(-shown);
}

/** What changed since the page last looked; another member's change reloads the page's panels. */
async function poll() {
  if (polling || knowledge === null || document.visibilityState === 'hidden') return schedule();
  polling = true;
  const ledger = state.ledger;
  try {
    const { data } = await state.api.get(at(`/changes${query({ since: knowledge })}`));
    if (ledger !== state.ledger || !data.changes.length) return;
    knowledge = data.knowledge;
    recent = followed(recent, data.changes, SHOWN);
    units = unitsOf(data.changes, units);
    render();
    const others = othersOf(data.changes, state.me);
    if (others.length) {
      $('journal-notice').textContent = describe(others[others.length - 1]);
      await ctx.refresh();
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) load().catch(() => {}); // behind the head: read again
  } finally {
    polling = false;
    schedule();
  }
}

export function render() {
  const rows = [...recent].reverse().map((entry) =>
    h(
      'li',
      { dataset: { seq: String(entry.seq) } },
      h('time', { datetime: entry.at, text: momentText(entry.at) }),
      h('span', { class: 'what', text: describe(entry) }),
      entry.undone_by
        ? h('span', { class: 'undone', text: '元に戻し済み' })
        : !undoable(entry)
          ? null
          : h('button', { type: 'button', class: 'undo write', 'aria-label': `元に戻す: ${describe(entry)}`, text: '元に戻す', onclick: () => undo(entry) }),
    ),
  );
  $('journal-rows').replaceChildren(...rows);
  $('journal-empty').hidden = rows.length > 0;
}

/** 元に戻す: the inverse of one entry; a 412 says which entity moved on since. */
async function undo(entry) {
  try {
    await state.api.request('POST', at(`/changes/${entry.seq}/undo`));
    say(`「${describe(entry)}」を元に戻しました`);
    await ctx.refresh();
  } catch (error) {
    if (error instanceof ApiError && error.status === 412) {
      const what = TYPES[error.problem?.entity] ?? 'その項目';
      showError(new Error(`この変更のあとに${what}がさらに変更されたため、元に戻せません。最新の内容を確かめてから直してください`));
      await ctx.refresh();
      return;
    }
    showError(error);
  }
}

/** 履歴: a slip's whole life, who changed which field, when. */
async function showHistory(slip) {
  try {
    const { data } = await state.api.get(at(`/slips/${encodeURIComponent(slip.id)}/history`));
    const unit = unitHere(slip.account);
    inDialog('slip-history-title').textContent = `伝票の履歴（${slip.date} ${amountIn(slip.amount, unit)}）`;
    inDialog('slip-history-rows').replaceChildren(
      ...data.items.map((item) =>
        h(
          'li',
          {},
          h('time', { datetime: item.at, text: momentText(item.at, { year: true }) }),
          h('span', { text: ` ${item.by === state.me ? 'あなた' : item.by} — ${OPS[item.op] ?? item.op}` }),
          h('span', { class: 'changed', text: changedText(item.changed, unit) }),
        ),
      ),
    );
    dialog.showModal();
  } catch (error) {
    showError(error);
  }
}

const FIELDS = { date: '日付', kind: '種類', amount: '金額', account: '口座', to_account: '振替先', category: '分類', subcategory: '内訳', memo: 'メモ', lines: '分割' };

/** {amount: [1200, 1300]} -> 「金額 ¥1,200 → ¥1,300」, amounts in the slip's account's `unit`. Pure. */
export function changedText(changed, unit = 'JPY') {
  const show = (name, value) => {
    if (value === null || value === undefined) return '—';
    if (name === 'amount') return amountIn(value, unit);
    if (name === 'lines') return `${value.length} 行`;
    return String(value);
  };
  return Object.entries(changed ?? {})
    .map(([name, [before, after]]) => ` ${FIELDS[name] ?? name} ${show(name, before)} → ${show(name, after)}`)
    .join('、');
}
