// 伝票's view: what it draws and the controls it binds, every element found under its root (the panel
// app.js hands it), never elsewhere in the document — the month's list with its filters, search, tag
// chips and the bulk bar; the slip form with a split's lines. What a control does is one of the
// actions slips.js gives mount; what is drawn is the page's state (state.js) and the view's own
// (./state.js).

import { ApiError, etagOf } from '../../api.js';
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
  isDate,
  minorDigits,
  monthLabel,
  parseAmount,
  parseAmountIn,
  shortDay,
  unitLabel,
  yen,
} from '../../format.js';
import { pendingFor } from '../../outbox.js';
import { accountName, emit, memberName, state, unitOf } from '../../state.js';
import { parseTags, tagsProblem, tagsText } from '../../tags.js';
import { FieldError, busy, fillAccountSelect, h, within } from '../../ui.js';
import { payerText, readPayer, setPayer, useForm as payerUses } from '../payer.js';
import { readReceipts, setReceipts } from '../receipts.js';
import { clearedCell } from '../reconcile.js';
import { addRule, ruleFromSlip } from '../rules.js';
import { readTax, setTax, useForm as taxUses } from '../tax.js';
import { MAX_LINES, allChosen, held, isForeign, lineOf, linesLeft } from './state.js';

let root = null; // the view's element (#slips-panel)
let $ = null; // an element of the view by id, found under its root
let act = null; // what the controls do (slips.js)

/** Bind the view's controls under `panel` to `actions` (once). */
export function mount(panel, actions) {
  root = panel;
  $ = within(panel);
  act = actions;
  $('slip-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act.submit($('slip-submit'));
  });
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
  $('slip-cancel').addEventListener('click', () => act.cancel());
  $('export-csv').addEventListener('click', () => act.exportCsv($('export-csv')));
  $('filter-form').addEventListener('input', () => act.filter(readFilters()));
  $('filter-form').addEventListener('submit', (event) => event.preventDefault());
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act.search($('search-q').value.trim(), $('search-submit'));
  });
  $('search-clear').addEventListener('click', () => {
    $('search-q').value = '';
    act.search('', $('search-submit'));
  });
  $('tag-filter-clear').addEventListener('click', () => act.tag(''));
  $('slip-select-all').addEventListener('change', (event) => act.chooseShown(event.target.checked));
  $('bulk-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act.bulk({ category: $('bulk-category').value, tagsAdd: $('bulk-tags-add').value, tagsRemove: $('bulk-tags-remove').value }, $('bulk-apply'));
  });
  $('bulk-delete').addEventListener('click', () => act.bulk({ delete: true }, $('bulk-delete')));
  $('bulk-none').addEventListener('click', () => act.chooseNone());
  $('bulk-undo').addEventListener('click', () => act.undo($('bulk-undo')));
  // 立替 and the medical payment or donation are parts of this form: they are handed it
  payerUses($('slip-form'));
  taxUses($('slip-form'));
  syncKind();
}

// ---- a slip in words ---------------------------------------------------------------------------


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

// ---- the list ----------------------------------------------------------------------------------

function amountCell(slip) {
  const sign = slip.kind === 'expense' ? '-' : slip.kind === 'income' ? '+' : '';
  return h('td', { class: `num amount ${slip.kind}`, 'data-label': '金額', text: `${sign}${amountOf(slip)}` });
}

/** A slip's tags as chips: each narrows the list to its tag. */
function tagsCell(slip) {
  return h(
    'td',
    { class: 'tags', 'data-label': 'タグ' },
    ...(slip.tags ?? []).map((tag) =>
      h('button', { type: 'button', class: 'chip tag', 'aria-pressed': String(tag === held.tag), 'aria-label': `タグ「${tag}」で絞り込む`, text: tag, onclick: () => act.tag(tag === held.tag ? '' : tag) }),
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
      checked: held.selected.has(slip.id),
      onchange: (event) => act.choose(slip, event.target.checked),
    }),
  );
}

/** The list of the slips `shown` (the month's, or those found, narrowed), its caption, the bulk bar. */
export function renderList(shown) {
  const truncated = state.slipsTruncated;
  const { search, tag } = held;
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
        h('button', { type: 'button', class: 'edit write', 'aria-label': `編集: ${summary}`, text: '編集', onclick: () => act.edit(slip) }),
        h('button', { type: 'button', class: 'history', 'aria-label': `履歴: ${summary}`, text: '履歴', onclick: () => emit('history', slip) }),
        h('button', { type: 'button', class: 'delete danger write', 'aria-label': `削除: ${summary}`, text: '削除', onclick: () => act.remove(slip) }),
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
  $('tag-filter').hidden = !tag;
  $('tag-filter-text').textContent = tag ? `タグ「${tag}」の伝票 ${rows.length} 件` : '';
  $('slip-select-all').checked = allChosen(held.selected, shown);
  renderBulk();
}

/** The bulk bar: how many slips are chosen (a writer's), and the bulk edit just made with its undo. */
export function renderBulk() {
  const n = held.selected.size;
  $('bulk-form').hidden = n === 0 || !canWrite(state.role);
  $('bulk-count').textContent = n ? `${n} 件を選んでいます` : '';
  $('bulk-done').hidden = !held.lastBulk;
  $('bulk-done-text').textContent = held.lastBulk?.words ?? '';
  $('bulk-undo').hidden = !held.lastBulk?.seq;
}

/** The bulk bar's category field (where a bulk edit refused before it is sent is said). */
export const bulkCategoryField = () => $('bulk-category');

/** The bulk bar's fields emptied (a bulk edit done). */
export function clearBulkFields() {
  for (const id of ['bulk-category', 'bulk-tags-add', 'bulk-tags-remove']) $(id).value = '';
}

/** The tag's total in words under the tag chosen (empty: none shown). */
export function showTagTotal(text) {
  $('tag-total').textContent = text;
}

/** The search field emptied (another ledger shown). */
export function clearSearchField() {
  $('search-q').value = '';
}

/** The month shown, in the heading; a new slip's day in it (unless a slip is being edited). */
export function showMonth(month) {
  $('slips-month').textContent = monthLabel(month);
  if (!state.editing) $('slip-date').value = defaultDay(month);
}

/** The form and the filters offer the ledger's accounts; archived ones only on a slip that uses them. */
export function fillAccounts() {
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
export function renderMembers() {
  const household = state.household;
  $('slip-table').classList.toggle('shared', Boolean(household));
  $('filter-by-row').hidden = !household;
  const select = $('filter-by');
  if (!household) {
    select.replaceChildren(); // nothing to filter by on a ledger of one
    return;
  }
  const users = household.members.map((m) => m.user);
  if (state.filters.by && !users.includes(state.filters.by)) users.push(state.filters.by);
  select.replaceChildren(h('option', { value: '', text: 'すべて' }), ...users.map((u) => h('option', { value: u, text: memberName(u) })));
  select.value = state.filters.by;
}

/** The filters as the form has them. */
function readFilters() {
  return {
    account: $('filter-account').value,
    category: $('filter-category').value,
    kind: $('filter-kind').value,
    text: $('filter-text').value.trim(),
    by: $('filter-by').value,
  };
}

/** A file saved from the page (the month as CSV): a link of the view's clicked once. */
export function saveFile(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  root.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ---- the form ----------------------------------------------------------------------------------

/** The form as a slip the API accepts; throws FieldError naming the field to fix. */
export function readForm() {
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

/** The form empty for a new slip on the month shown, its account and kind (a transfer: an expense) kept. */
export function resetForm() {
  const keep = { account: $('slip-account').value, kind: $('slip-kind').value === 'transfer' ? 'expense' : $('slip-kind').value };
  setEditing(null);
  setForm({ date: defaultDay(state.month), kind: keep.kind, account: keep.account });
}

/** The form editing `slip` (as read, with its ETag; without one, the version it was read at). */
export function beginEdit(slip, etag) {
  setEditing({ id: slip.id, date: slip.date, etag: etag ?? etagOf(slip.version), base: slip });
  fillAccounts(); // an archived account the slip uses is offered while it is edited
  setForm(slip);
  if (slip.kind !== 'transfer') $('slip-to-account').value = '';
  syncAlways();
}

/** The form shown to type in: its date focused, scrolled into view when asked. */
export function showForm({ scroll = false } = {}) {
  $('slip-date').focus();
  if (scroll) $('slip-form').scrollIntoView({ block: 'nearest' });
}

/** The form with `values` put back (the person's own change on the slip as it is now), its save next. */
export function putBack(values) {
  setForm(values);
  $('slip-submit').focus();
}

/** What a new slip's entry leaves for the next one: the day, the kind and the account; the amount next. */
export function clearEntry() {
  $('slip-amount').value = '';
  $('slip-memo').value = '';
  $('slip-payee').value = '';
  $('slip-tags').value = '';
  showSplit(null);
}

/** The amount focused (the next slip's). */
export function focusAmount() {
  $('slip-amount').focus();
}

/** The form field a 422's first error names, if any. */
export function fieldOf(error) {
  if (!(error instanceof ApiError && error.status === 422)) return undefined;
  const loc = error.problem?.errors?.[0]?.loc ?? [];
  const name = loc.find((part) => part in FIELD_LABELS);
  return name ? $('slip-form').querySelector(`[name="${name}"]`) : undefined;
}

// ---- 内訳を分ける: a split slip's lines ---------------------------------------------------------

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
