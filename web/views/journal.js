// 最近の変更: the ledger's journal. The page follows it — every few seconds while it is shown, and
// when it comes back into view — with the knowledge it has (GET /changes?since=…): another member's
// change reloads the panels it touches and says, in a line, who did what. The latest entries are
// listed with 元に戻す (undo, editors); a slip's 履歴 (its whole life) opens from its row.

import { ApiError, query } from '../api.js';
import { categoryLabel, yen } from '../format.js';
import { at, on, state } from '../state.js';
import { $, h, say, showError } from '../ui.js';

const POLL_MS = 4000;
const SHOWN = 15; // latest entries listed
const TYPES = { slip: '伝票', account: '口座', budget: '予算', recurrence: '繰り返し', member: 'メンバー', ledger: '家計簿', invitation: '招待', webhook: 'Webhook', settlement: '精算' };
const OPS = { create: '追加', update: '変更', delete: '削除' };

let ctx = null;
let knowledge = null; // the last seq this page has seen (null: not read yet)
let recent = [];
let timer = null;
let polling = false;

/** One entry in words: 「hanako さんが伝票を追加しました（食費 ¥1,200）」. Pure. */
export function describeEntry(entry, { me = null, nameOf = (u) => u } = {}) {
  const who = entry.by === me ? 'あなた' : `${nameOf(entry.by ?? '')} さん`;
  const change = entry.changes[0] ?? { type: 'slip', op: 'update' };
  const what = TYPES[change.type] ?? change.type;
  const more = entry.changes.length > 1 ? `ほか ${entry.changes.length - 1} 件` : '';
  const verb = entry.origin === 'undo' ? '元に戻しました' : `${OPS[change.op] ?? '変更'}しました`;
  const view = change.after ?? change.before ?? {};
  let detail = '';
  if (change.type === 'slip' && view.amount !== undefined) {
    const where = view.lines?.length ? `${view.lines.length} 分類` : categoryLabel(view.category ?? '');
    detail = `（${[where, yen(view.amount)].filter(Boolean).join(' ')}）`;
  }
  const origin = { import: '取り込みで', recurrence: '繰り返しで', card_payment: 'カードの引き落としで' }[entry.origin] ?? '';
  return `${who}が${origin}${what}${more}を${verb}${detail}`;
}

/** Can the API undo this entry? (Members, invitations, webhooks, the ledger and an account's creation: no.) Pure. */
export function undoable(entry) {
  if (entry.undone_by) return false;
  return entry.changes.every((c) => ['slip', 'budget', 'recurrence'].includes(c.type) || (c.type === 'account' && c.op === 'update'));
}

/** The entries that are someone else's (what a notice is about). Pure. */
export function othersOf(entries, me) {
  return entries.filter((e) => e.by !== me);
}

export function mount(_root, pageCtx) {
  ctx = pageCtx;
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') poll();
  });
  window.addEventListener('focus', () => poll());
  on('history', (slip) => showHistory(slip));
  $('slip-history-close').addEventListener('click', () => $('slip-history-dialog').close());
}

export function clear() {
  knowledge = null;
  recent = [];
  render();
}

/** The latest entries, and the knowledge to follow from. */
export async function load() {
  if (state.routes && !state.routes.has('/changes')) {
    $('journal-panel').hidden = true;
    return;
  }
  $('journal-panel').hidden = false;
  // Followed from where the page got to: read from the start once per ledger, then what is new
  // (a ledger's whole journal is not read again on every view)
  if (knowledge !== null) return poll();
  const ledger = state.ledger;
  let since = 0;
  let kept = [];
  for (;;) {
    const { data } = await state.api.get(at(`/changes${query({ since, limit: 500 })}`));
    kept = [...kept, ...data.changes].slice(-SHOWN);
    since = data.knowledge;
    if (!data.has_more) break;
  }
  if (ledger !== state.ledger) return; // switched meanwhile
  // Only the first read sets where the page follows from: a later one runs next to the other panels'
  // reads, and an entry it sees first may be one those reads missed; polling reloads for it.
  if (knowledge === null) knowledge = since;
  recent = kept;
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
    render();
    const others = othersOf(data.changes, state.me);
    if (others.length) {
      $('journal-notice').textContent = describeEntry(others[others.length - 1], { me: state.me });
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
      h('time', { datetime: entry.at, text: entry.at.slice(5, 16).replace('T', ' ') }),
      h('span', { class: 'what', text: describeEntry(entry, { me: state.me }) }),
      entry.undone_by
        ? h('span', { class: 'undone', text: '元に戻し済み' })
        : !undoable(entry)
          ? null
          : h('button', { type: 'button', class: 'undo write', 'aria-label': `元に戻す: ${describeEntry(entry, { me: state.me })}`, text: '元に戻す', onclick: () => undo(entry) }),
    ),
  );
  $('journal-rows').replaceChildren(...rows);
  $('journal-empty').hidden = rows.length > 0;
}

/** 元に戻す: the inverse of one entry; a 412 says which entity moved on since. */
async function undo(entry) {
  try {
    await state.api.request('POST', at(`/changes/${entry.seq}/undo`));
    say(`「${describeEntry(entry, { me: state.me })}」を元に戻しました`);
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
    $('slip-history-title').textContent = `伝票の履歴（${slip.date} ${yen(slip.amount)}）`;
    $('slip-history-rows').replaceChildren(
      ...data.items.map((item) =>
        h(
          'li',
          {},
          h('time', { datetime: item.at, text: item.at.slice(0, 16).replace('T', ' ') }),
          h('span', { text: ` ${item.by === state.me ? 'あなた' : item.by} — ${OPS[item.op] ?? item.op}` }),
          h('span', { class: 'changed', text: changedText(item.changed) }),
        ),
      ),
    );
    $('slip-history-dialog').showModal();
  } catch (error) {
    showError(error);
  }
}

const FIELDS = { date: '日付', kind: '種類', amount: '金額', account: '口座', to_account: '振替先', category: '分類', subcategory: '内訳', memo: 'メモ', lines: '分割' };

/** {amount: [1200, 1300]} -> 「金額 ¥1,200 → ¥1,300」. Pure. */
export function changedText(changed) {
  const show = (name, value) => {
    if (value === null || value === undefined) return '—';
    if (name === 'amount') return yen(value);
    if (name === 'lines') return `${value.length} 行`;
    return String(value);
  };
  return Object.entries(changed ?? {})
    .map(([name, [before, after]]) => ` ${FIELDS[name] ?? name} ${show(name, before)} → ${show(name, after)}`)
    .join('、');
}
