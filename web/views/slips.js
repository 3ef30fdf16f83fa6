// 伝票: the month's slips — the slip form (add, edit with If-Match), the list with its filters and
// member filter, delete, the month as CSV. A save refused because another screen changed the slip
// (412, or 404 when it was deleted or moved) shows the conflict panel: nothing is overwritten.

import { ApiError, etagOf, etagVersion, query, segment } from '../api.js';
import { hideConflict, offerReapply, showConflict } from '../conflict.js';
import {
  FIELD_LABELS,
  KIND_LABELS,
  UNCATEGORIZED,
  amountIn,
  amountText,
  authorText,
  canWrite,
  categoryLabel,
  defaultDay,
  fieldText,
  filterSlips,
  isDate,
  mergePatch,
  monthLabel,
  monthOf,
  monthRange,
  minorDigits,
  parseAmount,
  parseAmountIn,
  shiftMonth,
  shortDay,
  slipChanges,
  unitLabel,
  unitPatch,
  yen,
} from '../format.js';
import { pendingFor, sendChange, sendSlip } from '../outbox.js';
import { accountName, at, emit, memberName, newest, on, state, unitOf } from '../state.js';
import { $, FieldError, busy, clearError, fail, fillAccountSelect, h, say, showError, uuid } from '../ui.js';
import { payerPatch, payerText, readPayer, setPayer } from './payer.js';
import { readReceipts, receiptsPatch, setReceipts } from './receipts.js';
import { clearedCell } from './reconcile.js';
import { addRule, ruleFromSlip } from './rules.js';
import { bulkBody, bulkWords, hasTag, normaliseTag, parseTags, sameTags, tagTotalWords, tagsProblem, tagsText, undoSeqOf } from '../tags.js';
import { readTax, setTax, taxPatch } from './tax.js';

const PAGE_SIZE = 100;
const MAX_PAGES = 50;

let ctx;
let search = ''; // words searched in the last 12 months (GET /slips?q=): the list shows what was found, not the month
let tagShown = ''; // the tag the list is narrowed to (a chip clicked)
const selected = new Map(); // id -> the slip as listed (its version), chosen for a bulk edit
let lastBulk = null; // {seq, words}: the bulk edit just made, offered to undo
let bulkKey = null; // {text, key}: the Idempotency-Key of a bulk edit not yet answered

export function mount(root, context) {
  ctx = context;
  $('slip-form').addEventListener('submit', submitSlip);
  $('slip-kind').addEventListener('change', syncKind);
  $('slip-account').addEventListener('change', syncUnits);
  $('slip-to-account').addEventListener('change', syncUnits);
  for (const id of ['slip-kind', 'slip-category', 'slip-payee']) $(id).addEventListener('input', syncAlways);
  $('slip-always').addEventListener('click', () => {
    const rule = alwaysFromForm();
    if (rule) busy($('slip-always'), () => addRule(rule, $('slip-category')));
  });
  $('slip-split').addEventListener('click', toggleSplit);
  $('slip-line-add').addEventListener('click', () => {
    $('slip-line-rows').append(lineRow());
    updateLeft();
    $('slip-line-rows').querySelector('li:last-child .line-amount').focus();
  });
  $('slip-amount').addEventListener('input', () => splitShown() && updateLeft());
  $('slip-cancel').addEventListener('click', () => {
    resetForm();
    hideConflict();
    clearError();
  });
  $('export-csv').addEventListener('click', exportCsv);
  $('filter-form').addEventListener('input', readFilters);
  $('filter-form').addEventListener('submit', (event) => event.preventDefault());
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    startSearch($('search-q').value.trim());
  });
  $('search-clear').addEventListener('click', () => {
    $('search-q').value = '';
    startSearch('');
  });
  $('tag-filter-clear').addEventListener('click', () => showTag(''));
  $('slip-select-all').addEventListener('change', (event) => {
    for (const slip of shownSlips()) {
      if (event.target.checked) selected.set(slip.id, slip);
      else selected.delete(slip.id);
    }
    render();
  });
  $('bulk-form').addEventListener('submit', (event) => {
    event.preventDefault();
    bulk({ category: $('bulk-category').value, tagsAdd: $('bulk-tags-add').value, tagsRemove: $('bulk-tags-remove').value }, $('bulk-apply'));
  });
  $('bulk-delete').addEventListener('click', () => bulk({ delete: true }, $('bulk-delete')));
  $('bulk-none').addEventListener('click', () => {
    selected.clear();
    render();
  });
  $('bulk-undo').addEventListener('click', undoBulk);
  syncKind();
  on('accounts', () => {
    fillAccounts();
    if (state.slipsShown) render(); // slips name their accounts
  });
  on('household', renderMembers);
  on('reconciliations', () => state.slipsShown && render());
  on('role', (role) => {
    if (!canWrite(role) && state.editing) resetForm();
  });
  on('outbox', () => state.slipsShown && render()); // a row's write waiting, or sent
  on('outbox-conflict', ({ entry, error }) => replayRefused(entry, error));
  on('month', (month) => {
    $('slips-month').textContent = monthLabel(month);
    if (!state.editing) $('slip-date').value = defaultDay(month);
  });
}

export async function load() {
  const isNewest = newest('slips');
  const { from, to } = monthRange(state.month);
  const items = [];
  let cursor = null;
  let truncated = false;
  for (let page = 0; ; page += 1) {
    if (page === (search ? 1 : MAX_PAGES)) {
      truncated = true;
      break;
    }
    // a search reads the last 12 months (the API's window), newest first; else the month
    const params = search ? { q: search, by: state.filters.by, limit: PAGE_SIZE, cursor } : { from, to, by: state.filters.by, limit: PAGE_SIZE, cursor };
    const { data } = await state.api.get(at(`/slips${query(params)}`));
    items.push(...data.items);
    cursor = data.next_cursor;
    if (!cursor) break;
  }
  if (!isNewest()) return;
  state.slips = items;
  state.slipsTruncated = truncated;
  // what was chosen stays chosen while it is listed, at the version listed now
  const listed = new Map(items.map((slip) => [slip.id, slip]));
  for (const id of [...selected.keys()]) {
    if (listed.has(id)) selected.set(id, listed.get(id));
    else selected.delete(id);
  }
  render();
  if (tagShown) loadTagTotal().catch(showError);
}

/** Nothing of the ledger shown before: no slips, an empty form, no retry pending. */
export function clear() {
  state.slips = [];
  state.slipsTruncated = false;
  state.filters.by = '';
  search = '';
  tagShown = '';
  selected.clear();
  lastBulk = null;
  $('search-q').value = '';
  state.idempotency = null; // a retry belongs to the ledger it was first sent to
  resetForm();
  render();
}

// ---- the list ----------------------------------------------------------------------------------

const isForeign = (unit) => unit !== 'JPY' && unit !== 'points';

/** A slip's amount in its account's unit; a foreign one with its yen, a transfer between units with what arrived. */
function amountOf(slip) {
  const unit = unitOf(slip.account);
  let text = amountIn(slip.amount, unit);
  if (slip.jpy_amount !== null && slip.jpy_amount !== undefined && isForeign(unit)) text += `（${yen(slip.jpy_amount)}）`;
  if (slip.kind === 'transfer' && slip.to_amount !== null && slip.to_amount !== undefined) text += ` → ${amountIn(slip.to_amount, unitOf(slip.to_account))}`;
  return text;
}

/** A slip in a few words (for notices): day, what it was (a split: its lines' categories), amount. */
export function slipSummary(slip) {
  let what = categoryLabel(slip.category);
  if (slip.kind === 'transfer') what = `${accountName(slip.account)}→${accountName(slip.to_account)}`;
  else if (slip.lines?.length) what = `分割（${[...new Set(slip.lines.map((l) => categoryLabel(l.category)))].join('・')}）`;
  return `${shortDay(slip.date)} ${what} ${amountIn(slip.amount, unitOf(slip.account))}`;
}

/** The 分類 cell: a split slip's lines' categories, with their amounts. */
function categoryCell(slip) {
  if (slip.kind === 'transfer') return '—';
  const unit = unitOf(slip.account);
  if (slip.lines?.length) return `分割: ${slip.lines.map((l) => `${categoryLabel(l.category)} ${amountIn(l.amount, unit)}`).join('・')}`;
  return categoryLabel(slip.category);
}

/** Where a slip was paid: its payee, else the payee its imported file wrote. */
export const payeeOf = (slip) => slip.payee || slip.imported_payee || '';

function amountCell(slip) {
  const sign = slip.kind === 'expense' ? '-' : slip.kind === 'income' ? '+' : '';
  return h('td', { class: `num amount ${slip.kind}`, 'data-label': '金額', text: `${sign}${amountOf(slip)}` });
}

/** The slips listed: the month's (or those found), narrowed by the filters and the tag chosen. */
const shownSlips = () => filterSlips(state.slips, state.filters).filter((slip) => hasTag(slip, tagShown));

/** A slip's tags as chips: each narrows the list to its tag. */
function tagsCell(slip) {
  return h(
    'td',
    { class: 'tags', 'data-label': 'タグ' },
    ...(slip.tags ?? []).map((tag) =>
      h('button', { type: 'button', class: 'chip tag', 'aria-pressed': String(tag === tagShown), 'aria-label': `タグ「${tag}」で絞り込む`, text: tag, onclick: () => showTag(tag === tagShown ? '' : tag) }),
    ),
  );
}

function selectCell(slip, summary) {
  return h(
    'td',
    { class: 'select write' },
    h('input', {
      type: 'checkbox',
      'aria-label': `選ぶ: ${summary}`,
      checked: selected.has(slip.id),
      onchange: (event) => {
        if (event.target.checked) selected.set(slip.id, slip);
        else selected.delete(slip.id);
        renderBulk();
      },
    }),
  );
}

export function render() {
  const truncated = state.slipsTruncated;
  state.slipsShown = true;
  const shown = shownSlips();
  const filtering = shown.length !== state.slips.length;
  if (search) $('slips-empty').textContent = `「${search}」に合う伝票は過去 12 か月にありません。`;
  else $('slips-empty').textContent = 'この月の伝票はありません。';
  renderFilterCategories();
  const rows = shown.map((slip) => {
    const paid = payerText(slip);
    const where = slip.kind === 'transfer' ? `${accountName(slip.account)} → ${accountName(slip.to_account)}` : `${accountName(slip.account)}${paid ? `（${paid}）` : ''}`;
    const summary = slipSummary(slip);
    const waits = pendingFor(slip.id); // an edit or a delete made without a connection, not sent yet
    const classes = [state.editing?.id === slip.id && 'editing', waits && 'pending', waits === 'DELETE' && 'pending-delete'].filter(Boolean);
    return h(
      'tr',
      { dataset: { id: slip.id, date: slip.date }, class: classes.length ? classes.join(' ') : undefined },
      selectCell(slip, summary),
      h('td', { class: 'date', 'data-label': '日付' }, h('time', { datetime: slip.date, text: shortDay(slip.date) })),
      h('td', { class: `kind ${slip.kind}`, 'data-label': '種類', text: KIND_LABELS[slip.kind] }),
      h('td', { class: 'category', 'data-label': '分類', text: categoryCell(slip) }),
      h('td', { class: 'payee', 'data-label': '支払先', text: payeeOf(slip) }),
      h('td', { class: 'account', 'data-label': '口座', text: where }),
      h('td', { class: 'memo', 'data-label': 'メモ', text: slip.memo ?? '' }),
      tagsCell(slip),
      h('td', { class: 'author', 'data-label': '記入', text: authorText(slip, memberName) }),
      amountCell(slip),
      h('td', { class: 'cleared', 'data-label': '確認' }, clearedCell(slip, summary)),
      h(
        'td',
        { class: 'row-actions' },
        waits ? h('span', { class: 'pending-mark', text: waits === 'DELETE' ? '削除の送信待ち' : '変更の送信待ち' }) : null,
        h('button', { type: 'button', class: 'edit write', 'aria-label': `編集: ${summary}`, text: '編集', onclick: () => startEdit(slip) }),
        h('button', { type: 'button', class: 'history', 'aria-label': `履歴: ${summary}`, text: '履歴', onclick: () => emit('history', slip) }),
        h('button', { type: 'button', class: 'delete danger write', 'aria-label': `削除: ${summary}`, text: '削除', onclick: () => deleteSlip(slip) }),
      ),
    );
  });
  $('slip-rows').replaceChildren(...rows);
  $('slip-table').classList.toggle('with-payee', shown.some((slip) => payeeOf(slip))); // the column only while a slip has one
  $('slips-empty').hidden = state.slips.length > 0;
  $('slips-filtered-empty').hidden = !(state.slips.length > 0 && rows.length === 0);
  $('slip-table').hidden = rows.length === 0;
  const by = state.filters.by ? `（記入者: ${memberName(state.filters.by)}）` : '';
  const what = search ? `「${search}」の検索結果（過去 12 か月）` : `${monthLabel(state.month)}の伝票`;
  $('slip-caption').textContent = filtering
    ? `${what}${by} ${state.slips.length} 件中、条件に合う ${rows.length} 件`
    : `${what}${by} ${rows.length} 件${truncated ? '（一部のみ表示）' : ''}`;
  $('slip-table').classList.toggle('with-tags', state.slips.some((slip) => slip.tags?.length));
  $('search-clear').hidden = !search;
  $('tag-filter').hidden = !tagShown;
  $('tag-filter-text').textContent = tagShown ? `タグ「${tagShown}」の伝票 ${rows.length} 件` : '';
  const all = shown.length > 0 && shown.every((slip) => selected.has(slip.id));
  $('slip-select-all').checked = all;
  renderBulk();
  if (truncated) say(search ? `見つかった伝票が多いため、新しい ${state.slips.length} 件だけを表示しています` : `伝票が多いため、最初の ${rows.length} 件だけを表示しています`);
  emit('slips');
}

/** The form and the filters offer the ledger's accounts; archived ones only on a slip that uses them. */
function fillAccounts() {
  const inUse = new Set(state.editing ? [state.editing.base.account, state.editing.base.to_account] : []);
  const choosable = state.accounts.filter((a) => !a.archived || inUse.has(a.id));
  fillAccountSelect($('slip-account'), choosable, { placeholder: choosable.length ? undefined : '口座がありません' });
  fillAccountSelect($('slip-to-account'), choosable);
  fillAccountSelect($('filter-account'), state.accounts, { placeholder: 'すべて' });
  syncUnits();
}

/** A new ledger's first account: chosen for the next slip, the amount next to type. */
export function useAccount(id) {
  $('slip-account').value = id;
  syncUnits();
  $('slip-amount').focus();
}

/** The category filter offers the month's categories (and keeps a chosen one). */
function renderFilterCategories() {
  const select = $('filter-category');
  const keep = state.filters.category;
  const categories = new Set(state.slips.filter((s) => s.category).map((s) => s.category));
  if (keep) categories.add(keep);
  select.replaceChildren(h('option', { value: '', text: 'すべて' }), ...[...categories].sort().map((c) => h('option', { value: c, text: categoryLabel(c) })));
  select.value = keep;
}

/** On a shared ledger: who wrote each slip, and the member filter (?by=); a chosen member stays even if they left. */
function renderMembers() {
  const household = state.household;
  $('slip-table').classList.toggle('shared', Boolean(household));
  $('filter-by-row').hidden = !household;
  const select = $('filter-by');
  if (!household) {
    state.filters.by = '';
    select.replaceChildren(); // nothing to filter by on a ledger of one
    return;
  }
  const users = household.members.map((m) => m.user);
  if (state.filters.by && !users.includes(state.filters.by)) users.push(state.filters.by);
  select.replaceChildren(h('option', { value: '', text: 'すべて' }), ...users.map((u) => h('option', { value: u, text: memberName(u) })));
  select.value = state.filters.by;
}

function readFilters() {
  const by = $('filter-by').value;
  const reload = by !== state.filters.by;
  state.filters = {
    account: $('filter-account').value,
    category: $('filter-category').value,
    kind: $('filter-kind').value,
    text: $('filter-text').value.trim(),
    by,
  };
  // the member filter is the API's (?by=): the month is read again; the others apply to what is loaded
  if (reload) load().catch(showError);
  else render();
}

/** The month's slips as CSV (the import format), every page of it, saved as a file. */
async function exportCsv() {
  clearError();
  const { from, to } = monthRange(state.month);
  await busy($('export-csv'), async () => {
    try {
      let path = at(`/slips.csv${query({ from, to, by: state.filters.by })}`);
      let csv = '';
      for (let page = 0; path && page < MAX_PAGES; page += 1) {
        const { text, link } = await state.api.request('GET', path);
        // later pages repeat the header line
        csv += page === 0 ? text : text.slice(text.indexOf('\n') + 1);
        path = /<([^>]+)>;\s*rel="next"/.exec(link ?? '')?.[1] ?? null;
      }
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const a = h('a', { href: url, download: `slips-${state.month}.csv` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      say(`${monthLabel(state.month)}の伝票を CSV で書き出しました`);
    } catch (error) {
      showError(error);
    }
  });
}

// ---- the form ----------------------------------------------------------------------------------

/** The form as a slip the API accepts; throws FieldError naming the field to fix. */
function readForm() {
  const raw = {
    date: $('slip-date').value,
    kind: $('slip-kind').value,
    amount: $('slip-amount').value,
    account: $('slip-account').value,
    to_account: $('slip-to-account').value,
    category: $('slip-category').value,
    memo: $('slip-memo').value,
    payee: $('slip-payee').value,
    tags: $('slip-tags').value,
  };
  if (!isDate(raw.date)) throw new FieldError($('slip-date'), '日付を正しく入力してください');
  const unit = unitOf(raw.account);
  let amount;
  try {
    amount = parseAmountIn(raw.amount, unit);
  } catch (error) {
    throw new FieldError($('slip-amount'), error.message);
  }
  if (!raw.account) throw new FieldError($('slip-account'), '口座を選んでください（先に口座を追加）');
  const slip = { date: raw.date, kind: raw.kind, amount, account: raw.account, to_account: null, category: null, memo: raw.memo.trim() || null };
  if (raw.kind !== 'transfer' && isForeign(unit)) {
    try {
      slip.jpy_amount = parseAmount($('slip-jpy-amount').value);
    } catch (error) {
      throw new FieldError($('slip-jpy-amount'), `円換算: ${$('slip-jpy-amount').value.trim() ? error.message : `${unit} の伝票には円換算（実際にかかった円）を入力してください`}`);
    }
  }
  if (raw.kind === 'income' && unit === 'points' && $('slip-expires-on').value) {
    const expires = $('slip-expires-on').value;
    if (!isDate(expires)) throw new FieldError($('slip-expires-on'), '有効期限を正しく入力してください');
    if (expires < raw.date) throw new FieldError($('slip-expires-on'), '有効期限は日付以降にしてください');
    slip.expires_on = expires;
  }
  if (raw.kind === 'transfer') {
    if (!raw.to_account || raw.to_account === raw.account) throw new FieldError($('slip-to-account'), '振替先には別の口座を選んでください');
    slip.to_account = raw.to_account;
    const toUnit = unitOf(raw.to_account);
    if (toUnit !== unit) {
      try {
        slip.to_amount = parseAmountIn($('slip-to-amount').value, toUnit);
      } catch (error) {
        throw new FieldError($('slip-to-amount'), `受取額: ${$('slip-to-amount').value.trim() ? error.message : `単位の違う口座への振替には受取額（${unitLabel(toUnit)}）を入力してください`}`);
      }
    }
  } else if (splitShown()) {
    slip.lines = readLines(amount);
  } else {
    slip.category = raw.category.trim() || null;
  }
  slip.payee = raw.payee.trim() || null;
  const tags = parseTags(raw.tags);
  const tagsWrong = tagsProblem(tags);
  if (tagsWrong) throw new FieldError($('slip-tags'), tagsWrong);
  slip.tags = tags.length ? tags : null;
  // who paid and what medical payments count are in yen: a foreign slip's 円換算, points at their value
  const pointValue = state.accounts.find((a) => a.id === raw.account)?.point_value ?? 1;
  const inYen = slip.jpy_amount ?? (unit === 'points' ? amount * pointValue : amount);
  return Object.assign(slip, readPayer(inYen), readReceipts(), readTax(inYen, Boolean(slip.lines)));
}

function setForm(values) {
  $('slip-date').value = values.date ?? '';
  $('slip-kind').value = values.kind ?? 'expense';
  if (values.account) $('slip-account').value = values.account;
  if (values.to_account) $('slip-to-account').value = values.to_account;
  $('slip-amount').value = amountText(values.amount, unitOf($('slip-account').value));
  $('slip-jpy-amount').value = values.jpy_amount ?? '';
  $('slip-to-amount').value = amountText(values.to_amount, unitOf(values.to_account));
  $('slip-expires-on').value = values.expires_on ?? '';
  const category = values.category ?? '';
  $('slip-category').value = category === UNCATEGORIZED ? '' : category;
  $('slip-memo').value = values.memo ?? '';
  $('slip-payee').value = values.payee ?? '';
  $('slip-tags').value = tagsText(values.tags);
  syncKind();
  showSplit(values.lines?.length ? values.lines : null);
  setPayer(values);
  setReceipts(values);
  setTax(values);
}

/** 「この店はいつも○○」 for the slip being edited, as the form now has its payee and category (null: none). */
function alwaysFromForm() {
  if (!state.editing) return null;
  const payee = $('slip-payee').value.trim() || null;
  return ruleFromSlip({ ...state.editing.base, payee, kind: $('slip-kind').value }, $('slip-category').value.trim());
}

function syncAlways() {
  const rule = alwaysFromForm();
  $('slip-always').hidden = !rule;
  $('slip-always').textContent = rule ? `「${rule.conditions[0].value}」はいつも${rule.actions.category}` : '';
}

function syncKind() {
  const transfer = $('slip-kind').value === 'transfer';
  $('slip-to-account-row').hidden = !transfer;
  $('slip-category-row').hidden = transfer || splitShown();
  $('slip-split-row').hidden = transfer;
  if (transfer && splitShown()) showSplit(null);
  $('slip-account-label').textContent = transfer ? '振替元' : '口座';
  syncUnits();
}

/**
 * The form follows the chosen account's unit: the amount typed in it (decimals as the currency has),
 * 円換算 for a foreign income or expense, 受取額 for a transfer between units, 有効期限 for points earned.
 * A split stays a yen slip's.
 */
function syncUnits() {
  const kind = $('slip-kind').value;
  const unit = unitOf($('slip-account').value);
  const toUnit = unitOf($('slip-to-account').value);
  $('slip-amount-label').textContent = `金額（${unitLabel(unit)}）`;
  $('slip-amount').inputMode = minorDigits(unit) ? 'decimal' : 'numeric';
  const yenWanted = kind !== 'transfer' && isForeign(unit);
  $('slip-jpy-amount-row').hidden = !yenWanted;
  $('slip-jpy-amount').required = yenWanted;
  const toWanted = kind === 'transfer' && Boolean($('slip-to-account').value) && toUnit !== unit;
  $('slip-to-amount-row').hidden = !toWanted;
  $('slip-to-amount').required = toWanted;
  $('slip-to-amount-label').textContent = `受取額（${unitLabel(toUnit)}）`;
  $('slip-to-amount').inputMode = minorDigits(toUnit) ? 'decimal' : 'numeric';
  $('slip-expires-row').hidden = !(kind === 'income' && unit === 'points');
  // lines are typed in the account's unit: lines typed in another unit are dropped when the account changes
  if (splitShown() && $('slip-lines').dataset.unit !== unit) showSplit(null);
  $('slip-split-row').hidden = kind === 'transfer';
  $('slip-category-row').hidden = kind === 'transfer' || splitShown();
}

function setEditing(editing) {
  state.editing = editing;
  $('slip-form-title').textContent = editing ? `伝票を編集（No. ${editing.base.no}）` : '伝票を追加';
  $('slip-submit').textContent = editing ? '保存' : '追加';
  $('slip-cancel').hidden = !editing;
  $('slip-form').classList.toggle('is-editing', Boolean(editing));
  for (const row of $('slip-rows').children) row.classList.toggle('editing', row.dataset.id === editing?.id);
  syncAlways();
}

export function resetForm() {
  const keep = { account: $('slip-account').value, kind: $('slip-kind').value === 'transfer' ? 'expense' : $('slip-kind').value };
  setEditing(null);
  setForm({ date: defaultDay(state.month), kind: keep.kind, account: keep.account });
}

async function startEdit(slip) {
  clearError();
  try {
    const { data, etag } = await state.api.get(at(`/slips/${slip.date}/${segment(slip.id)}`));
    beginEdit(data, etag);
    $('slip-date').focus();
    $('slip-form').scrollIntoView({ block: 'nearest' });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) await conflict(slip, null, 'open');
    else if (error instanceof ApiError && error.status === 0) {
      // no connection: edit the slip as listed; the change waits and goes out on that version
      beginEdit(slip, etagOf(slip.version));
      say('オフラインです: 一覧の内容を編集します（保存は接続が戻ると送ります）');
      $('slip-date').focus();
    } else showError(error);
  }
}

function beginEdit(slip, etag) {
  setEditing({ id: slip.id, date: slip.date, etag: etag ?? etagOf(slip.version), base: slip });
  fillAccounts(); // an archived account the slip uses is offered while it is edited
  setForm(slip);
  if (slip.kind !== 'transfer') $('slip-to-account').value = '';
  syncAlways();
}

async function submitSlip(event) {
  event.preventDefault();
  clearError();
  let wanted;
  try {
    wanted = readForm();
  } catch (error) {
    fail(error);
    return;
  }
  await busy($('slip-submit'), () => (state.editing ? saveEdit(wanted) : createSlip(wanted)));
}

/** The form field a 422's first error names, if any. */
function fieldOf(error) {
  if (!(error instanceof ApiError && error.status === 422)) return undefined;
  const loc = error.problem?.errors?.[0]?.loc ?? [];
  const name = loc.find((part) => part in FIELD_LABELS);
  return name ? document.querySelector(`#slip-form [name="${name}"]`) : undefined;
}

async function createSlip(slip) {
  const body = Object.fromEntries(Object.entries(slip).filter(([, v]) => v !== null));
  const text = JSON.stringify(body);
  // The same slip sent again after a failed attempt reuses its Idempotency-Key: never two slips.
  if (state.idempotency?.body !== text) state.idempotency = { body: text, key: uuid() };
  try {
    // without a connection it waits in the outbox, key and all, and goes out when the connection returns
    const summary = slipSummary({ category: UNCATEGORIZED, ...body });
    const data = await sendSlip(at('/slips'), body, { key: state.idempotency.key, summary });
    state.idempotency = null;
    if (data.queued) {
      say(`送信待ちにしました: ${summary}（接続が戻ると送ります）`);
      $('slip-amount').value = '';
      $('slip-memo').value = '';
      $('slip-payee').value = '';
      $('slip-tags').value = '';
      showSplit(null);
      return;
    }
    say(`追加しました: ${slipSummary(data)}（No. ${data.no}）`);
    $('slip-amount').value = '';
    $('slip-memo').value = '';
    $('slip-payee').value = '';
    $('slip-tags').value = '';
    showSplit(null);
    if (monthOf(data.date) !== state.month) ctx.setMonth(monthOf(data.date), { reload: false });
    await ctx.refresh();
    $('slip-amount').focus();
  } catch (error) {
    if (error instanceof ApiError && error.status !== 0) state.idempotency = null;
    showError(error, fieldOf(error));
  }
}

async function saveEdit(wanted) {
  const { id, date, etag, base } = state.editing;
  // An emptied category is "uncategorized" on the server: not a change.
  const split = Boolean(wanted.lines);
  const { paid_by: _paidBy, shares: _shares, receipts: _receipts, medical: _medical, donation: _donation, tags: _tags, ...fields } = wanted;
  const target = { ...fields, category: wanted.kind === 'transfer' || split ? null : wanted.category ?? UNCATEGORIZED };
  delete target.lines;
  const patch = mergePatch(base, target);
  if (JSON.stringify(plainLines(base.lines)) !== JSON.stringify(wanted.lines ?? null)) {
    patch.lines = wanted.lines ?? null; // replaced whole
    if (!split && patch.category === undefined) patch.category = target.category;
  }
  if (split) delete patch.category; // the lines have the categories
  const units = unitPatch(base, wanted);
  if (!isForeign(unitOf(wanted.account)) && wanted.kind !== 'transfer' && base.account === wanted.account) delete units.jpy_amount; // a points slip's yen is the API's
  Object.assign(patch, payerPatch(base, wanted), receiptsPatch(base, wanted), taxPatch(base, wanted), units);
  if (!sameTags(base.tags, wanted.tags ?? [])) patch.tags = wanted.tags ?? null; // replaced whole
  if (!Object.keys(patch).length) {
    say('変更はありません');
    resetForm();
    return;
  }
  try {
    // without a connection it waits in the outbox with the version it was made on, and goes out later
    const made = { ...base, version: etagVersion(etag) ?? base.version };
    const sent = await sendChange('PATCH', at(`/slips/${date}/${segment(id)}`), made, {
      body: patch,
      summary: `変更: ${slipSummary(applied(base, patch))}`,
    });
    if (sent.queued) {
      say(`送信待ちにしました: 変更 ${slipSummary(applied(base, patch))}（接続が戻ると送ります）`);
      state.slips = state.slips.map((s) => (s.id === id ? applied(s, patch) : s));
      resetForm();
      render();
      return;
    }
    const { data } = sent;
    const moved = data.date !== date ? `（日付を ${shortDay(date)} → ${shortDay(data.date)} に変更）` : '';
    const away = monthOf(data.date);
    if (away !== state.month) {
      // It leaves this month's list: say where it went, with a way there.
      say(`保存しました: ${slipSummary(data)}${moved}。この伝票は${monthLabel(away)}に移りました。`, { href: `#${away}`, text: `${monthLabel(away)}を表示` });
    } else {
      say(`保存しました: ${slipSummary(data)}${moved}`);
    }
    resetForm();
    hideConflict();
    await ctx.refresh();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 412 || error.status === 404)) {
      await conflict(base, patch, 'edit');
    } else {
      showError(error, fieldOf(error));
    }
  }
}

async function deleteSlip(slip) {
  clearError();
  if (!window.confirm(`この伝票を削除しますか？\n${slipSummary(slip)}`)) return;
  try {
    const sent = await sendChange('DELETE', at(`/slips/${slip.date}/${segment(slip.id)}`), slip, { summary: `削除: ${slipSummary(slip)}` });
    if (sent.queued) {
      say(`送信待ちにしました: 削除 ${slipSummary(slip)}（接続が戻ると送ります）`);
      if (state.editing?.id === slip.id) resetForm();
      render();
      return;
    }
    say(`削除しました: ${slipSummary(slip)}`);
    if (state.editing?.id === slip.id) resetForm();
    await ctx.refresh();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 412 || error.status === 404)) await conflict(slip, null, 'delete');
    else showError(error);
  }
}

/** A slip with a merge patch applied as the API would (null removes a field); its version kept. */
export function applied(slip, patch) {
  const next = { ...slip };
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete next[field];
    else next[field] = value;
  }
  return next;
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
    ({ data: current, etag } = await state.api.get(at(`/slips/${base.date}/${segment(base.id)}`)));
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
      beginEdit(current, etag);
      offerReapply(patch ? () => reapply(current.id, patch) : null);
    } else {
      resetForm();
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
  setForm({ ...state.editing.base, ...patch });
  say('あなたの入力を戻しました。内容を確かめて「保存」を押してください');
  $('slip-submit').focus();
}

// ---- 内訳を分ける: a split slip's lines ---------------------------------------------------------

const MAX_LINES = 10; // what the API accepts (a slip change stays within one transaction)

/** The lines as the API stores them (without the words it adds for categories). Pure. */
export function plainLines(lines) {
  if (!lines?.length) return null;
  return lines.map((l) => Object.fromEntries(Object.entries({ amount: l.amount, category: l.category, subcategory: l.subcategory ?? null, memo: l.memo ?? null }).filter(([, v]) => v !== null)));
}

/**
 * A line as the form gives it, as the API stores it: the subcategory it was loaded with (the form has
 * no field for it) stays while its category does; another category drops it, as the API does. Pure.
 */
export function lineOf({ amount, category, memo }, loaded = {}) {
  const subcategory = loaded.subcategory && loaded.category === category ? loaded.subcategory : null;
  return plainLines([{ amount, category, subcategory, memo: memo || null }])[0];
}

/** What is left of the amount once the lines are counted (negative: the lines are too much). Pure. */
export function linesLeft(amount, lineAmounts) {
  return amount - lineAmounts.reduce((sum, x) => sum + (Number.isFinite(x) ? x : 0), 0);
}

function splitShown() {
  return !$('slip-lines').hidden;
}

/** The unit the lines of the slip in the form are in: its account's. */
const lineUnit = () => unitOf($('slip-account').value);

function lineRow(values = {}) {
  const n = $('slip-line-rows').children.length + 1;
  const unit = lineUnit();
  // a line as stored is in the unit's minor unit (1234 is $12.34); one typed is kept as typed
  const amount = typeof values.amount === 'number' ? amountText(values.amount, unit) : (values.amount ?? '');
  const row = h(
    'li',
    { class: 'line-row', dataset: { category: values.category ?? '', subcategory: values.subcategory ?? '' } },
    h('input', { class: 'line-amount', inputmode: minorDigits(unit) ? 'decimal' : 'numeric', 'aria-label': `内訳${n}の金額（${unitLabel(unit)}）`, placeholder: '金額', value: amount }),
    h('input', { class: 'line-category', list: 'category-list', maxlength: '50', 'aria-label': `内訳${n}の分類`, placeholder: '分類', value: values.category && values.category !== UNCATEGORIZED ? values.category : '' }),
    h('input', { class: 'line-memo', maxlength: '500', 'aria-label': `内訳${n}のメモ`, placeholder: 'メモ', value: values.memo ?? '' }),
    h('button', { type: 'button', class: 'small line-remove', 'aria-label': `内訳${n}を削除`, text: '削除', onclick: () => {
      row.remove();
      updateLeft();
    } }),
  );
  row.addEventListener('input', updateLeft);
  return row;
}

function updateLeft() {
  const unit = lineUnit();
  let amount = 0;
  try {
    amount = parseAmountIn($('slip-amount').value, unit);
  } catch {
    amount = 0;
  }
  const parts = [...$('slip-line-rows').children].map((row) => {
    try {
      return parseAmountIn(row.querySelector('.line-amount').value, unit);
    } catch {
      return NaN;
    }
  });
  const left = linesLeft(amount, parts);
  $('slip-lines-left').textContent = left === 0 ? '合計は金額と一致しています' : left > 0 ? `残り ${amountIn(left, unit)}` : `${amountIn(-left, unit)} 多すぎます`;
  $('slip-line-add').disabled = parts.length >= MAX_LINES;
}

/** Show the lines (two to start: the slip's category and the rest), or hide them. */
export function showSplit(lines) {
  const on = Boolean(lines);
  $('slip-lines').hidden = !on;
  $('slip-category-row').hidden = on || $('slip-kind').value === 'transfer';
  $('slip-split').textContent = on ? '分けるのをやめる' : '内訳を分ける';
  $('slip-split').setAttribute('aria-expanded', String(on));
  $('slip-lines').dataset.unit = lineUnit();
  $('slip-line-rows').replaceChildren();
  for (const line of lines ?? []) $('slip-line-rows').append(lineRow(line));
  if (on) updateLeft();
}

function toggleSplit() {
  if (splitShown()) {
    showSplit(null);
    return;
  }
  showSplit([{ amount: $('slip-amount').value, category: $('slip-category').value }, {}]);
  $('slip-line-rows').querySelector('li:last-child .line-amount').focus();
}

/** The lines of the form, checked; throws FieldError naming the line to fix. */
function readLines(amount) {
  const unit = lineUnit();
  const rows = [...$('slip-line-rows').children];
  if (rows.length < 2) throw new FieldError($('slip-line-add'), '内訳は 2 行以上にしてください');
  const lines = rows.map((row, i) => {
    let part;
    try {
      part = parseAmountIn(row.querySelector('.line-amount').value, unit);
    } catch (error) {
      throw new FieldError(row.querySelector('.line-amount'), `内訳${i + 1}: ${error.message}`);
    }
    const category = row.querySelector('.line-category').value.trim();
    if (!category) throw new FieldError(row.querySelector('.line-category'), `内訳${i + 1}の分類を入力してください`);
    const memo = row.querySelector('.line-memo').value.trim();
    return lineOf({ amount: part, category, memo }, row.dataset);
  });
  const left = linesLeft(amount, lines.map((l) => l.amount));
  if (left !== 0) throw new FieldError(rows[0].querySelector('.line-amount'), `内訳の合計が金額と一致しません（${left > 0 ? `残り ${amountIn(left, unit)}` : `${amountIn(-left, unit)} 多すぎます`}）`);
  return lines;
}

// ---- search, a tag, bulk edits (§28) -----------------------------------------------------------

/** Search the last 12 months for words (empty: back to the month). */
async function startSearch(words) {
  clearError();
  search = words;
  selected.clear();
  await busy($('search-submit'), () => load()).catch(showError);
  if (search) say(`「${search}」で過去 12 か月の伝票を検索しました: ${state.slips.length} 件`);
}

/** Narrow the list to a tag (empty: every slip), with its total. */
function showTag(tag) {
  tagShown = tag ? normaliseTag(tag) : '';
  $('tag-total').textContent = '';
  render();
  if (tagShown) loadTagTotal().catch(showError);
}

/** The tag's income, expense and count over the month shown (or, searching, the last 12 months). */
async function loadTagTotal() {
  const tag = tagShown;
  const to = state.month;
  const from = search ? shiftMonth(to, -11) : to;
  const { data } = await state.api.get(at(`/reports/tags${query({ from, to, tag })}`));
  if (tag !== tagShown) return;
  const total = data.items.find((item) => item.tag === tag);
  const span = from === to ? monthLabel(to) : `${monthLabel(from)}〜${monthLabel(to)}`;
  $('tag-total').textContent = `${span}の「${tag}」: ${tagTotalWords(total, yen)}`;
}

function renderBulk() {
  const n = selected.size;
  $('bulk-form').hidden = n === 0 || !canWrite(state.role);
  $('bulk-count').textContent = n ? `${n} 件を選んでいます` : '';
  $('bulk-done').hidden = !lastBulk;
  $('bulk-done-text').textContent = lastBulk?.words ?? '';
  $('bulk-undo').hidden = !lastBulk?.seq;
}

/** The slips chosen changed (or deleted) in one bulk edit; its undo offered after. */
async function bulk(action, button) {
  clearError();
  let body;
  try {
    body = bulkBody([...selected.values()], action);
  } catch (error) {
    showError(error, action.delete ? undefined : $('bulk-category'));
    return;
  }
  if (action.delete && !window.confirm(`選んだ ${body.slips.length} 件の伝票を削除しますか？`)) return;
  await busy(button, async () => {
    try {
      // the same bulk sent again after a failed attempt reuses its key: carried on, never applied twice
      const text = JSON.stringify(body);
      if (bulkKey?.text !== text) bulkKey = { text, key: uuid() };
      const { data } = await state.api.request('POST', at('/slips/bulk'), { json: body, headers: { 'Idempotency-Key': bulkKey.key } });
      bulkKey = null;
      const words = bulkWords(data, action);
      lastBulk = { seq: undoSeqOf(data), words };
      selected.clear();
      for (const id of ['bulk-category', 'bulk-tags-add', 'bulk-tags-remove']) $(id).value = '';
      say(words);
      await ctx.refresh();
      renderBulk();
    } catch (error) {
      showError(error);
    }
  });
}

async function undoBulk() {
  clearError();
  const done = lastBulk;
  if (!done?.seq) return;
  await busy($('bulk-undo'), async () => {
    try {
      await state.api.request('POST', at(`/changes/${done.seq}/undo`));
      lastBulk = null;
      say('まとめて行った変更を元に戻しました');
      await ctx.refresh();
      renderBulk();
    } catch (error) {
      showError(error);
    }
  });
}
