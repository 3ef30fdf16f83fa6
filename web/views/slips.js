// 伝票: the month's slips — the slip form (add, edit with If-Match), the list with its filters and
// member filter, search, tags, bulk edits, delete, the month as CSV. A save refused because another
// screen changed the slip (412, or 404 when it was deleted or moved) shows the conflict panel:
// nothing is overwritten.
//
// This module is the view app.js mounts (mount, load, render, clear) and what its controls do; its
// parts are in slips/: fetch.js (the API calls), state.js (the view's state and its pure
// transitions) and view.js (drawing and the controls, under the view's root).

import { ApiError, etagOf, etagVersion } from '../api.js';
import { hideConflict, offerReapply, showConflict } from '../conflict.js';
import { FIELD_LABELS, UNCATEGORIZED, canWrite, fieldText, monthLabel, monthOf, shortDay, slipChanges, yen } from '../format.js';
import { accountName, at, emit, newest, on, state, unitOf } from '../state.js';
import { bulkBody, bulkWords, tagTotalWords, undoSeqOf } from '../tags.js';
import { busy, clearError, fail, say, showError } from '../ui.js';
import { payerPatch } from './payer.js';
import { receiptsPatch } from './receipts.js';
import { taxPatch } from './tax.js';
import * as api from './slips/fetch.js';
import { applied, chosen, editPatch, forget, held, isForeign, keptChosen, shownSlips, tagOf, tagSpan } from './slips/state.js';
import * as view from './slips/view.js';

let ctx;

export function mount(root, context) {
  ctx = context;
  view.mount(root, {
    submit: submitSlip,
    cancel: () => {
      view.resetForm();
      hideConflict();
      clearError();
    },
    exportCsv,
    filter: setFilters,
    search: startSearch,
    tag: showTag,
    chooseShown: (on) => {
      held.selected = chosen(held.selected, listed(), on);
      render();
    },
    choose: (slip, on) => {
      held.selected = chosen(held.selected, [slip], on);
      view.renderBulk();
    },
    chooseNone: () => {
      held.selected = new Map();
      render();
    },
    bulk,
    undo: undoBulk,
    edit: startEdit,
    remove: deleteSlip,
  });
  on('accounts', () => {
    view.fillAccounts();
    if (state.slipsShown) render(); // slips name their accounts
  });
  on('household', () => {
    if (!state.household) state.filters.by = ''; // nothing to filter by on a ledger of one
    view.renderMembers();
  });
  on('reconciliations', () => state.slipsShown && render());
  on('role', (role) => {
    if (!canWrite(role) && state.editing) view.resetForm();
  });
  on('outbox', () => state.slipsShown && render()); // a row's write waiting, or sent
  on('outbox-conflict', ({ entry, error }) => replayRefused(entry, error));
  on('month', view.showMonth);
}

export async function load() {
  const isNewest = newest('slips');
  const { items, truncated } = await api.readSlips({ month: state.month, search: held.search, by: state.filters.by });
  if (!isNewest()) return;
  state.slips = items;
  state.slipsTruncated = truncated;
  held.selected = keptChosen(held.selected, items);
  render();
  if (held.tag) loadTagTotal().catch(showError);
}

/** Nothing of the ledger shown before: no slips, an empty form, no retry pending. */
export function clear() {
  state.slips = [];
  state.slipsTruncated = false;
  state.filters.by = '';
  forget();
  view.clearSearchField();
  state.idempotency = null; // a retry belongs to the ledger it was first sent to
  view.resetForm();
  render();
}

/** The slips listed: the month's (or those found), narrowed by the filters and the tag chosen. */
const listed = () => shownSlips(state.slips, state.filters, held.tag);

export function render() {
  state.slipsShown = true;
  const shown = listed();
  view.renderList(shown);
  if (state.slipsTruncated) say(held.search ? `見つかった伝票が多いため、新しい ${state.slips.length} 件だけを表示しています` : `伝票が多いため、最初の ${shown.length} 件だけを表示しています`);
  emit('slips');
}

/** A new ledger's first account: chosen for the next slip, the amount next to type. */
export const useAccount = (id) => view.useAccount(id);

/** The filters as typed; the member filter is the API's (?by=): the month is read again, the others apply to what is loaded. */
function setFilters(filters) {
  const reload = filters.by !== state.filters.by;
  state.filters = filters;
  if (reload) load().catch(showError);
  else render();
}

/** The month's slips as CSV (the import format), every page of it, saved as a file. */
async function exportCsv(button) {
  clearError();
  await busy(button, async () => {
    try {
      const csv = await api.readCsv({ month: state.month, by: state.filters.by });
      view.saveFile(new Blob([csv], { type: 'text/csv' }), `slips-${state.month}.csv`);
      say(`${monthLabel(state.month)}の伝票を CSV で書き出しました`);
    } catch (error) {
      showError(error);
    }
  });
}

// ---- the form ----------------------------------------------------------------------------------

async function startEdit(slip) {
  clearError();
  try {
    const { data, etag } = await api.readSlip(slip);
    view.beginEdit(data, etag);
    view.showForm({ scroll: true });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) await conflict(slip, null, 'open');
    else if (error instanceof ApiError && error.status === 0) {
      // no connection: edit the slip as listed; the change waits and goes out on that version
      view.beginEdit(slip, etagOf(slip.version));
      say('オフラインです: 一覧の内容を編集します（保存は接続が戻ると送ります）');
      view.showForm();
    } else showError(error);
  }
}

async function submitSlip(button) {
  clearError();
  let wanted;
  try {
    wanted = view.readForm();
  } catch (error) {
    fail(error);
    return;
  }
  await busy(button, () => (state.editing ? saveEdit(wanted) : createSlip(wanted)));
}

async function createSlip(slip) {
  const body = Object.fromEntries(Object.entries(slip).filter(([, v]) => v !== null));
  try {
    // without a connection it waits in the outbox, key and all, and goes out when the connection returns
    const summary = view.slipSummary({ category: UNCATEGORIZED, ...body });
    const data = await api.createSlip(body, summary);
    if (data.queued) {
      say(`送信待ちにしました: ${summary}（接続が戻ると送ります）`);
      view.clearEntry();
      return;
    }
    say(`追加しました: ${view.slipSummary(data)}（No. ${data.no}）`);
    view.clearEntry();
    if (monthOf(data.date) !== state.month) ctx.setMonth(monthOf(data.date), { reload: false });
    await ctx.refresh();
    view.focusAmount();
  } catch (error) {
    showError(error, view.fieldOf(error));
  }
}

async function saveEdit(wanted) {
  const { id, date, etag, base } = state.editing;
  const facets = { ...payerPatch(base, wanted), ...receiptsPatch(base, wanted), ...taxPatch(base, wanted) };
  const patch = editPatch(base, wanted, { foreign: isForeign(unitOf(wanted.account)), facets });
  if (!Object.keys(patch).length) {
    say('変更はありません');
    view.resetForm();
    return;
  }
  try {
    // without a connection it waits in the outbox with the version it was made on, and goes out later
    const made = { ...base, version: etagVersion(etag) ?? base.version };
    const sent = await api.updateSlip(made, patch, `変更: ${view.slipSummary(applied(base, patch))}`);
    if (sent.queued) {
      say(`送信待ちにしました: 変更 ${view.slipSummary(applied(base, patch))}（接続が戻ると送ります）`);
      state.slips = state.slips.map((s) => (s.id === id ? applied(s, patch) : s));
      view.resetForm();
      render();
      return;
    }
    const { data } = sent;
    const moved = data.date !== date ? `（日付を ${shortDay(date)} → ${shortDay(data.date)} に変更）` : '';
    const away = monthOf(data.date);
    if (away !== state.month) {
      // It leaves this month's list: say where it went, with a way there.
      say(`保存しました: ${view.slipSummary(data)}${moved}。この伝票は${monthLabel(away)}に移りました。`, { href: `#${away}`, text: `${monthLabel(away)}を表示` });
    } else {
      say(`保存しました: ${view.slipSummary(data)}${moved}`);
    }
    view.resetForm();
    hideConflict();
    await ctx.refresh();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 412 || error.status === 404)) {
      await conflict(base, patch, 'edit');
    } else {
      showError(error, view.fieldOf(error));
    }
  }
}

async function deleteSlip(slip) {
  clearError();
  if (!window.confirm(`この伝票を削除しますか？\n${view.slipSummary(slip)}`)) return;
  try {
    const sent = await api.deleteSlip(slip, `削除: ${view.slipSummary(slip)}`);
    if (sent.queued) {
      say(`送信待ちにしました: 削除 ${view.slipSummary(slip)}（接続が戻ると送ります）`);
      if (state.editing?.id === slip.id) view.resetForm();
      render();
      return;
    }
    say(`削除しました: ${view.slipSummary(slip)}`);
    if (state.editing?.id === slip.id) view.resetForm();
    await ctx.refresh();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 412 || error.status === 404)) await conflict(slip, null, 'delete');
    else showError(error);
  }
}

// ---- conflicts (412, or the slip gone from under us) -------------------------------------------

/**
 * An edit or a delete made without a connection was refused when it went out: another change came
 * first (412, or 404: deleted or moved), or the change itself was refused (409). Shown as a conflict
 * on the slip as it is now, with the person's own change offered again; on another ledger, said.
 */
async function replayRefused(entry, error) {
  const action = entry.method === 'DELETE' ? 'delete' : 'edit';
  if (!entry.path.startsWith(at('/slips/'))) {
    showError(new Error(`送信待ちだった${action === 'delete' ? '削除' : '変更'}は行っていません（${entry.summary}）: 別の家計簿の伝票が先に変更されていました`));
    return;
  }
  await conflict(entry.slip, action === 'edit' ? entry.body : null, action, { queued: true, why: error.status === 409 ? error.detail : null });
}

/**
 * Someone changed the slip since `base` was read. Read what it is now, show the difference, reload
 * everything, and put the current version in the form: the person decides whether to re-apply
 * their own changes (`patch`, only the fields they changed) on top of it.
 */
async function conflict(base, patch, action, { queued = false, why = null } = {}) {
  let current = null;
  let etag = null;
  try {
    ({ data: current, etag } = await api.readSlip(base));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) {
      showError(error);
      return;
    }
  }
  await ctx.refresh();
  if (!current) {
    // Deleted, or its date changed (which moves it): look for it in the month just reloaded.
    current = state.slips.find((s) => s.id === base.id) ?? null;
    etag = current ? etagOf(current.version) : null;
  }
  const verb = { edit: '保存', delete: '削除', open: '編集' }[action];
  const yours = queued ? `オフラインの間のあなたの${verb}（接続が戻ってから送りました）` : `あなたの${verb}`;
  let lead = current
    ? `別の画面で、この伝票（No. ${base.no}）が先に変更されていました。${yours}は行っていません。最新の内容を読み込みました。`
    : `この伝票（No. ${base.no}）は別の画面で削除されたか、別の月に移されました。${yours}は行っていません。`;
  if (why) lead = `${yours}は受け付けられませんでした: ${why}。最新の内容を読み込みました。`;
  showError(new Error(`${verb}できませんでした: ${why ?? (current ? '先に変更されていました' : '伝票が見つかりません')}`));
  showConflict({ title: why ? 'この伝票への変更は受け付けられませんでした' : 'この伝票は先に変更されていました', lead, rows: conflictRows(base, current, patch, action) });
  if (action !== 'delete' || state.editing?.id === base.id) {
    if (current) {
      view.beginEdit(current, etag);
      offerReapply(patch ? () => reapply(current.id, patch) : null);
    } else {
      view.resetForm();
    }
  }
}

function conflictRows(base, current, patch, action) {
  const theirs = new Set(slipChanges(base, current).map((c) => c.field));
  const fields = [...new Set([...theirs, ...Object.keys(patch ?? {})])];
  const text = (field, slip) => (slip ? fieldText(field, slip[field], accountName, unitOf(slip.account ?? base?.account)) : '（なし）');
  const mine = (field) => {
    if (action === 'delete') return '削除';
    if (!patch) return '—';
    return field in patch ? text(field, patch) : '（変更なし）';
  };
  return fields.map((field) => ({
    field,
    label: FIELD_LABELS[field],
    before: text(field, base),
    now: text(field, current),
    changed: theirs.has(field),
    mine: mine(field),
  }));
}

/** Only the fields this person changed go back in: what the other screen changed stays. */
function reapply(id, patch) {
  if (state.editing?.id !== id) return;
  view.putBack({ ...state.editing.base, ...patch });
  say('あなたの入力を戻しました。内容を確かめて「保存」を押してください');
}

// ---- search, a tag, bulk edits (§28) -----------------------------------------------------------

/** Search the last 12 months for words (empty: back to the month). */
async function startSearch(words, button) {
  clearError();
  held.search = words;
  held.selected = new Map();
  await busy(button, () => load()).catch(showError);
  if (held.search) say(`「${held.search}」で過去 12 か月の伝票を検索しました: ${state.slips.length} 件`);
}

/** Narrow the list to a tag (empty: every slip), with its total. */
function showTag(tag) {
  held.tag = tagOf(tag);
  view.showTagTotal('');
  render();
  if (held.tag) loadTagTotal().catch(showError);
}

/** The tag's income, expense and count over the month shown (or, searching, the last 12 months). */
async function loadTagTotal() {
  const tag = held.tag;
  const { from, to } = tagSpan(state.month, held.search);
  const total = await api.readTagTotal({ from, to, tag });
  if (tag !== held.tag) return;
  const span = from === to ? monthLabel(to) : `${monthLabel(from)}〜${monthLabel(to)}`;
  view.showTagTotal(`${span}の「${tag}」: ${tagTotalWords(total, yen)}`);
}

/** The slips chosen changed (or deleted) in one bulk edit; its undo offered after. */
async function bulk(action, button) {
  clearError();
  let body;
  try {
    body = bulkBody([...held.selected.values()], action);
  } catch (error) {
    showError(error, action.delete ? undefined : view.bulkCategoryField());
    return;
  }
  if (action.delete && !window.confirm(`選んだ ${body.slips.length} 件の伝票を削除しますか？`)) return;
  await busy(button, async () => {
    try {
      const data = await api.bulkEdit(body);
      const words = bulkWords(data, action);
      held.lastBulk = { seq: undoSeqOf(data), words };
      held.selected = new Map();
      view.clearBulkFields();
      say(words);
      await ctx.refresh();
      view.renderBulk();
    } catch (error) {
      showError(error);
    }
  });
}

async function undoBulk(button) {
  clearError();
  const done = held.lastBulk;
  if (!done?.seq) return;
  await busy(button, async () => {
    try {
      await api.undoChange(done.seq);
      held.lastBulk = null;
      say('まとめて行った変更を元に戻しました');
      await ctx.refresh();
      view.renderBulk();
    } catch (error) {
      showError(error);
    }
  });
}
