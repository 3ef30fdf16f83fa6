// The page: a month of slips, balances (now and as of a day), totals by category, budgets, CSV import,
// in the caller's personal ledger or a shared household ledger (members, roles, invitations).
// Every write carries the ETag it was based on (If-Match); when the API answers 412 the page shows
// what changed, reloads, and leaves it to the person to re-apply their edit: nothing is overwritten.

import {
  Api,
  ApiError,
  DEFAULT_USER,
  PERSONAL,
  etagOf,
  inviteLink,
  inviteTokenOf,
  ledgerPath,
  loadConfig,
  normaliseBase,
  query,
  saveConfig,
  segment,
} from './api.js';
import { categoryChart, chartRows, historyChart, trendChart } from './chart.js';
import {
  FIELD_LABELS,
  KIND_LABELS,
  ROLE_LABELS,
  ROLES,
  TYPE_LABELS,
  UNCATEGORIZED,
  authorText,
  canWrite,
  categoryLabel,
  defaultDay,
  fieldText,
  filterSlips,
  isDate,
  isMonth,
  ledgerLabel,
  longDay,
  mergePatch,
  monthLabel,
  monthOf,
  monthRange,
  parseAmount,
  shiftMonth,
  shortDay,
  slipChanges,
  today,
  yen,
} from './format.js';

const PAGE_SIZE = 100;
const MAX_PAGES = 50;
const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const COMMON_CATEGORIES = ['食費', '日用品', '交通費', '住居費', '水道光熱費', '通信費', '医療費', '娯楽費', '交際費', '衣服', '給与', '賞与'];

// When the answer has no code (API Gateway's own responses, e.g. the JWT authorizer's 401).
const STATUS_LEADS = { 401: '認証が必要です', 403: '権限がありません', 404: '見つかりません', 429: '混み合っています', 503: '一時的に使えません' };

const $ = (id) => document.getElementById(id);

/** A data route in the ledger shown: unprefixed for the personal one, else under /ledgers/{ledger}. */
const at = (path) => ledgerPath(state.ledger, path);

const state = {
  config: loadConfig(),
  api: null,
  month: null,
  asOf: null,
  accounts: [],
  current: new Map(),
  asOfBalances: new Map(),
  slips: [],
  slipsTruncated: false,
  slipsShown: false,
  report: null,
  budgets: [],
  routes: null, // Set of the API's paths, or null when unknown
  editing: null, // {id, date, etag, base}
  attempted: null, // the changes (a merge patch) a 412 stopped, for "re-apply"
  attemptedAccount: null, // {id, patch}: an account change a 412 stopped, for "re-apply"
  idempotency: null, // {body, key}: a retried identical POST reuses its key
  previewed: null, // {file, createAccounts}: the import a dry run showed, ready to commit
  filters: { account: '', category: '', kind: '', text: '', by: '' },
  ledger: PERSONAL, // the ledger shown: 'me' or a shared ledger's id
  ledgers: null, // GET /ledgers: [{id, name, role}], personal first; null when this API has none
  household: null, // GET /ledgers/{ledger}: {id, name, role, members: [{user, role, version}]}
  role: 'owner', // the caller's role in the ledger shown: what the page offers
  me: null, // the caller's user id (the API's name for them), from GET /ledgers/me
  yearly: null,
  recurrences: [],
  history: null, // the account whose balance history is shown
  seq: {},
};
state.api = new Api(state.config);

// ---- small DOM helpers -----------------------------------------------------------------------

function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return node;
}

/** Run `load` and report whether it is still the newest call of its kind (month switches race). */
function newest(kind) {
  const mine = (state.seq[kind] = (state.seq[kind] ?? 0) + 1);
  return () => state.seq[kind] === mine;
}

async function busy(button, work) {
  const form = button.form;
  button.disabled = true;
  form?.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    form?.removeAttribute('aria-busy');
  }
}

function uuid() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((v) => v.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

// ---- messages ----------------------------------------------------------------------------------

function errorText(error) {
  if (error instanceof ApiError) {
    // The API words its problems in the language the page asks for (Accept-Language): shown as they come.
    if (error.code) return error.detail;
    const lead = STATUS_LEADS[error.status] ?? (error.status ? `エラー ${error.status}` : '通信エラー');
    return `${lead}: ${error.detail}`;
  }
  return error?.message ?? String(error);
}

function showError(error, field) {
  const box = $('error');
  box.textContent = errorText(error);
  box.hidden = false;
  $('status').textContent = '';
  // A write refused for the caller's role (changed since the page read it): offer what it allows now.
  if (error instanceof ApiError && error.status === 403 && error.code) recheckMembership();
  if (field) {
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-errormessage', 'error');
    field.focus();
  }
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
  for (const node of document.querySelectorAll('[aria-invalid="true"]')) {
    node.removeAttribute('aria-invalid');
    node.removeAttribute('aria-errormessage');
  }
}

/** A success or progress message: it replaces any error shown, so the two never contradict. */
function say(text, link) {
  if (text) {
    $('error').hidden = true;
    $('error').textContent = '';
  }
  $('status').replaceChildren(text, ...(link ? [' ', h('a', { href: link.href, text: link.text })] : []));
}

/** A validation failure in the page itself, before anything is sent. */
class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

function fail(error) {
  if (error instanceof FieldError) showError(error, error.field);
  else showError(error);
}

// ---- names -------------------------------------------------------------------------------------

function accountName(id) {
  const account = state.accounts.find((a) => a.id === id);
  return account ? account.name : id;
}

function slipSummary(slip) {
  const what = slip.kind === 'transfer' ? `${accountName(slip.account)}→${accountName(slip.to_account)}` : categoryLabel(slip.category);
  return `${shortDay(slip.date)} ${what} ${yen(slip.amount)}`;
}

// ---- loading -----------------------------------------------------------------------------------

let refreshing = 0;

async function refreshAll() {
  const main = document.querySelector('main');
  refreshing += 1;
  main.setAttribute('aria-busy', 'true'); // every panel is being read again
  // An API that declares no ledger routes under /ledgers/{ledger}: a shared ledger has members only
  const dataless = state.ledger !== PERSONAL && state.routes && !state.routes.has('/ledgers/{ledger}/slips');
  const loads = dataless
    ? [loadHousehold(), Promise.reject(new Error('この API は共有の家計簿の伝票・口座・予算にまだ対応していません（メンバーと招待は使えます）'))]
    : [loadAccounts(), loadSlips(), loadReport(), loadBudgets(), loadTrends(), loadRecurrences(), loadHistory(), loadHousehold()];
  const results = await Promise.allSettled(loads);
  refreshing -= 1;
  if (!refreshing) main.removeAttribute('aria-busy');
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    showError(failed.reason);
    // a shared ledger answering 404 or 403: the caller may have been removed, or their role changed
    const refused = (r) => r.status === 'rejected' && r.reason instanceof ApiError && r.reason.code && [403, 404].includes(r.reason.status);
    if (results.some(refused)) await recheckMembership();
  }
  return !failed;
}

async function loadAccounts() {
  const isNewest = newest('accounts');
  const asOf = state.asOf;
  const [accounts, current, past] = await Promise.all([
    state.api.get(at('/accounts')),
    state.api.get(at('/balances')),
    asOf ? state.api.get(at(`/balances${query({ date: asOf })}`)) : null,
  ]);
  if (!isNewest()) return;
  state.accounts = accounts.data.items;
  state.current = new Map(current.data.items.map((i) => [i.account, i.balance]));
  state.asOfBalances = new Map((past?.data.items ?? []).map((i) => [i.account, i.balance]));
  renderAccounts();
}

async function loadSlips() {
  const isNewest = newest('slips');
  const month = state.month;
  const { from, to } = monthRange(month);
  const items = [];
  let cursor = null;
  let truncated = false;
  for (let page = 0; ; page += 1) {
    if (page === MAX_PAGES) {
      truncated = true;
      break;
    }
    const { data } = await state.api.get(at(`/slips${query({ from, to, by: state.filters.by, limit: PAGE_SIZE, cursor })}`));
    items.push(...data.items);
    cursor = data.next_cursor;
    if (!cursor) break;
  }
  if (!isNewest()) return;
  state.slips = items;
  state.slipsTruncated = truncated;
  renderSlips();
}

async function loadReport() {
  const isNewest = newest('report');
  const { data } = await state.api.get(at(`/reports/monthly${query({ month: state.month })}`));
  if (!isNewest()) return;
  state.report = data;
  renderReport();
}

async function loadBudgets() {
  const isNewest = newest('budgets');
  if (state.routes && !state.routes.has('/budgets')) {
    $('budgets-panel').hidden = true;
    return;
  }
  try {
    const { data } = await state.api.get(at(`/budgets${query({ month: state.month })}`));
    if (!isNewest()) return;
    state.budgets = data.items ?? [];
    $('budgets-panel').hidden = false;
    renderBudgets();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      $('budgets-panel').hidden = true; // this API has no budgets (yet): nothing to show
      return;
    }
    throw error;
  }
}

/** An optional panel's data: hidden when the API lacks the route (declared, or answering 404 with no code). */
async function optional(panel, route, load) {
  if (state.routes && !state.routes.has(route)) {
    $(panel).hidden = true;
    return;
  }
  try {
    await load();
    $(panel).hidden = false;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && !error.code) {
      $(panel).hidden = true;
      return;
    }
    throw error;
  }
}

function loadTrends() {
  const isNewest = newest('trends');
  const year = state.month.slice(0, 4);
  return optional('trends-panel', '/reports/yearly', async () => {
    const { data } = await state.api.get(at(`/reports/yearly${query({ year })}`));
    if (!isNewest()) return;
    state.yearly = data;
    renderTrends();
  });
}

function loadRecurrences() {
  const isNewest = newest('recurrences');
  return optional('recurrences-panel', '/recurrences', async () => {
    const { data } = await state.api.get(at('/recurrences'));
    if (!isNewest()) return;
    state.recurrences = data.items ?? [];
    renderRecurrences();
  });
}

/** The shown account's daily balance over the month on screen. */
async function loadHistory() {
  const isNewest = newest('history');
  const id = state.history;
  if (!id) {
    $('history').hidden = true;
    return;
  }
  const { from, to } = monthRange(state.month);
  const { data } = await state.api.get(at(`/accounts/${segment(id)}/history${query({ from, to })}`));
  if (!isNewest()) return;
  const name = accountName(id);
  $('history-title').textContent = `${name}の残高の推移（${monthLabel(state.month)}）`;
  $('history-chart').replaceChildren(historyChart(data.items, { title: `${name}の残高の推移` }));
  $('history-table').querySelector('tbody').replaceChildren(
    ...data.items
      .filter((p) => p.delta !== 0)
      .map((p) => h('tr', {}, h('th', { scope: 'row', text: shortDay(p.date) }), h('td', { class: 'num', text: yen(p.delta) }), h('td', { class: 'num', text: yen(p.balance) }))),
  );
  $('history').hidden = false;
}

async function showHistory(id) {
  clearError();
  state.history = id;
  try {
    await loadHistory();
    $('history-close').focus();
  } catch (error) {
    state.history = null;
    showError(error);
  }
}

async function detectRoutes() {
  state.routes = await state.api.routes();
  // Without an OpenAPI document, offer the import and find out from its answer.
  $('import-panel').hidden = Boolean(state.routes && !state.routes.has('/imports'));
}

/** Forget the shown ledger (another identity is about to load, or could not). */
function clearLedger() {
  for (const kind of Object.keys(state.seq)) newest(kind); // answers still on their way are dropped
  state.accounts = [];
  state.current = new Map();
  state.asOfBalances = new Map();
  state.slips = [];
  state.slipsTruncated = false;
  state.report = { month: state.month, income: 0, expense: 0, net: 0, by_category: [] };
  state.budgets = [];
  renderAccounts();
  renderSlips();
  renderReport();
  renderBudgets();
  $('import-report').hidden = true;
  $('import-dry-run').hidden = true;
  $('account-details').open = false; // opened again if the new ledger really has no account
  state.history = null;
  $('history').hidden = true;
  state.yearly = null;
  state.recurrences = [];
  renderRecurrences();
  $('trends-panel').hidden = true;
  state.previewed = null;
  state.household = null;
  renderHousehold();
}

// ---- rendering ---------------------------------------------------------------------------------

function fillAccountSelect(select, accounts, { placeholder } = {}) {
  const keep = select.value;
  select.replaceChildren(
    ...(placeholder ? [h('option', { value: '', text: placeholder })] : []),
    ...accounts.map((a) => h('option', { value: a.id, text: `${a.name}（${TYPE_LABELS[a.type] ?? a.type}）` })),
  );
  if (accounts.some((a) => a.id === keep)) select.value = keep;
}

function renderAccounts() {
  // Archived accounts take no new slips, but still show on a slip being edited that uses them.
  const inUse = new Set(state.editing ? [state.editing.base.account, state.editing.base.to_account] : []);
  const choosable = state.accounts.filter((a) => !a.archived || inUse.has(a.id));
  fillAccountSelect($('slip-account'), choosable, { placeholder: choosable.length ? undefined : '口座がありません' });
  fillAccountSelect($('slip-to-account'), choosable);
  const rows = state.accounts.map((a) =>
    h(
      'tr',
      { dataset: { account: a.id }, class: a.archived ? 'archived' : undefined },
      h('th', { scope: 'row' }, h('span', { class: 'name', text: a.name }), h('small', { text: ` ${TYPE_LABELS[a.type] ?? a.type}${a.archived ? '・アーカイブ' : ''}` })),
      h('td', { class: 'num current', text: yen(state.current.get(a.id) ?? a.balance) }),
      h('td', { class: 'num asof', text: state.asOf ? yen(state.asOfBalances.get(a.id) ?? 0) : '—' }),
      h('td', { class: 'row-actions' }, h('button', { type: 'button', class: 'history small', 'aria-label': `残高の推移: ${a.name}`, text: '推移', onclick: () => showHistory(a.id) })),
    ),
  );
  $('balance-rows').replaceChildren(...rows);
  const sum = (map) => state.accounts.reduce((total, a) => total + (map.get(a.id) ?? 0), 0);
  if (state.slipsShown) renderSlips(); // slips name their accounts
  $('total-current').textContent = yen(sum(state.current));
  $('total-asof').textContent = state.asOf ? yen(sum(state.asOfBalances)) : '—';
  $('asof-head').textContent = state.asOf ? `${shortDay(state.asOf)}時点` : '基準日';
  $('accounts-empty').hidden = state.accounts.length > 0;
  $('accounts-empty').textContent = canWrite(state.role)
    ? 'まず口座（財布、銀行、Suica など）を追加してください。'
    : 'この家計簿にはまだ口座がありません。';
  $('balance-table').hidden = state.accounts.length === 0;
  if (!state.accounts.length) $('account-details').open = true;
  $('account-manage-details').hidden = state.accounts.length === 0;
  fillAccountSelect($('manage-account'), state.accounts);
  fillAccountSelect($('filter-account'), state.accounts, { placeholder: 'すべて' });
  fillAccountSelect($('rec-account'), state.accounts.filter((a) => !a.archived));
  fillManageForm();
}

function amountCell(slip) {
  const sign = slip.kind === 'expense' ? '-' : slip.kind === 'income' ? '+' : '';
  return h('td', { class: `num amount ${slip.kind}`, 'data-label': '金額', text: `${sign}${yen(slip.amount)}` });
}

function renderSlips() {
  const truncated = state.slipsTruncated;
  state.slipsShown = true;
  const shown = filterSlips(state.slips, state.filters);
  const filtering = shown.length !== state.slips.length;
  renderFilterCategories();
  const rows = shown.map((slip) => {
    const where = slip.kind === 'transfer' ? `${accountName(slip.account)} → ${accountName(slip.to_account)}` : accountName(slip.account);
    const summary = slipSummary(slip);
    return h(
      'tr',
      { dataset: { id: slip.id, date: slip.date }, class: state.editing?.id === slip.id ? 'editing' : undefined },
      h('td', { class: 'date', 'data-label': '日付' }, h('time', { datetime: slip.date, text: shortDay(slip.date) })),
      h('td', { class: `kind ${slip.kind}`, 'data-label': '種類', text: KIND_LABELS[slip.kind] }),
      h('td', { class: 'category', 'data-label': '分類', text: slip.kind === 'transfer' ? '—' : categoryLabel(slip.category) }),
      h('td', { class: 'account', 'data-label': '口座', text: where }),
      h('td', { class: 'memo', 'data-label': 'メモ', text: slip.memo ?? '' }),
      h('td', { class: 'author', 'data-label': '記入', text: authorText(slip, memberName) }),
      amountCell(slip),
      h(
        'td',
        { class: 'row-actions' },
        h('button', { type: 'button', class: 'edit write', 'aria-label': `編集: ${summary}`, text: '編集', onclick: () => startEdit(slip) }),
        h('button', { type: 'button', class: 'delete danger write', 'aria-label': `削除: ${summary}`, text: '削除', onclick: () => deleteSlip(slip) }),
      ),
    );
  });
  $('slip-rows').replaceChildren(...rows);
  $('slips-empty').hidden = state.slips.length > 0;
  $('slips-filtered-empty').hidden = !(state.slips.length > 0 && rows.length === 0);
  $('slip-table').hidden = rows.length === 0;
  const by = state.filters.by ? `（記入者: ${memberName(state.filters.by)}）` : '';
  $('slip-caption').textContent = filtering
    ? `${monthLabel(state.month)}の伝票${by} ${state.slips.length} 件中、条件に合う ${rows.length} 件`
    : `${monthLabel(state.month)}の伝票${by} ${rows.length} 件${truncated ? '（一部のみ表示）' : ''}`;
  if (truncated) say(`伝票が多いため、最初の ${rows.length} 件だけを表示しています`);
  renderCategories();
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
  if (reload) loadSlips().catch(showError);
  else renderSlips();
}

function renderTrends() {
  const y = state.yearly;
  $('trends-year').textContent = `${y.year}年`;
  $('trends-income').textContent = yen(y.income);
  $('trends-expense').textContent = yen(y.expense);
  $('trends-net').textContent = yen(y.net);
  $('trends-net').className = y.net < 0 ? 'expense' : 'income';
  $('trends-chart').replaceChildren(trendChart(y.months, { title: `${y.year}年の月ごとの収支` }));
  $('trends-table').querySelector('tbody').replaceChildren(
    ...y.months.map((m) =>
      h(
        'tr',
        { dataset: { month: m.month } },
        h('th', { scope: 'row', text: monthLabel(m.month) }),
        h('td', { class: 'num income', text: yen(m.income) }),
        h('td', { class: 'num expense', text: yen(m.expense) }),
        h('td', { class: 'num', text: yen(m.net) }),
      ),
    ),
  );
}

const FREQ_LABELS = { daily: '毎日', weekly: '毎週', monthly: '毎月', yearly: '毎年' };
const SHIFT_LABELS = { none: '', previous_business_day: '・休日は前の営業日', next_business_day: '・休日は次の営業日' };

function ruleText(r) {
  const every = r.rule.interval > 1 ? `${r.rule.interval}${{ daily: '日', weekly: '週', monthly: 'か月', yearly: '年' }[r.rule.freq]}ごと` : FREQ_LABELS[r.rule.freq];
  return `${every}（${shortDay(r.rule.start)}から${r.rule.until ? `${shortDay(r.rule.until)}まで` : ''}）${SHIFT_LABELS[r.shift] ?? ''}`;
}

function renderRecurrences() {
  const rows = state.recurrences.map((r) => {
    const slip = r.slip;
    const what = [KIND_LABELS[slip.kind], slip.kind === 'transfer' ? `${accountName(slip.account)}→${accountName(slip.to_account)}` : categoryLabel(slip.category ?? UNCATEGORIZED), slip.memo].filter(Boolean).join(' ');
    return h(
      'tr',
      { dataset: { id: r.id } },
      h('td', { class: 'what' }, what, h('small', { text: accountName(slip.account) })),
      h('td', { class: `num ${slip.kind}`, text: yen(slip.amount) }),
      h('td', { text: ruleText(r) }),
      h(
        'td',
        { class: 'next' },
        r.next_due ? shortDay(r.next_due) : '終了',
        r.last_error ? h('p', { class: 'recurrence-error', role: 'note', text: `${shortDay(r.last_error.date)}の分を記帳できませんでした: ${r.last_error.detail}` }) : null,
      ),
    );
  });
  $('recurrence-rows').replaceChildren(...rows);
  $('recurrences-empty').hidden = rows.length > 0;
  $('recurrence-table').hidden = rows.length === 0;
}

async function submitRecurrence(event) {
  event.preventDefault();
  clearError();
  let amount;
  const start = $('rec-start').value;
  try {
    try {
      amount = parseAmount($('rec-amount').value);
    } catch (error) {
      throw new FieldError($('rec-amount'), error.message);
    }
    if (!$('rec-account').value) throw new FieldError($('rec-account'), '口座を選んでください');
    if (!isDate(start)) throw new FieldError($('rec-start'), '開始日を正しく入力してください');
  } catch (error) {
    fail(error);
    return;
  }
  const slip = { kind: $('rec-kind').value, amount, account: $('rec-account').value };
  const category = $('rec-category').value.trim();
  const memo = $('rec-memo').value.trim();
  if (category) slip.category = category;
  if (memo) slip.memo = memo;
  const body = { slip, rule: { freq: $('rec-freq').value, start }, shift: $('rec-shift').value };
  await busy($('rec-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', at('/recurrences'), { json: body, headers: { 'Idempotency-Key': uuid() } });
      // The next dates it will post on (a holiday moved to a business day says so)
      const { data: next } = await state.api.get(at(`/recurrences/${segment(data.id)}/occurrences${query({ from: start })}`));
      const dates = next.items.slice(0, 6);
      $('rec-preview-title').textContent = `くり返しを追加しました。次の記帳日（${dates.length} 回分）:`;
      $('rec-preview-dates').replaceChildren(
        ...dates.map((o) => h('li', { text: `${longDay(o.date)}${o.shifted ? `（${shortDay(o.scheduled)}が休日のため）` : ''}` })),
      );
      $('rec-preview').hidden = false;
      say(`くり返しを追加しました: ${memo || category || KIND_LABELS[slip.kind]} ${yen(amount)}`);
      $('recurrence-form').reset();
      $('rec-start').value = today();
      await refreshAll();
    } catch (error) {
      showError(error, error instanceof ApiError && error.status === 422 ? $('rec-amount') : undefined);
    }
  });
}

function renderReport() {
  const report = state.report;
  $('report-income').textContent = yen(report.income);
  $('report-expense').textContent = yen(report.expense);
  $('report-net').textContent = yen(report.net);
  $('report-net').className = report.net < 0 ? 'expense' : 'income';
  $('chart').replaceChildren(
    chartRows(report.by_category).length
      ? categoryChart(report.by_category, { title: `${monthLabel(state.month)}の分類別の収支` })
      : h('p', { class: 'empty', text: 'この月の収支はまだありません。' }),
  );
  $('report-rows').replaceChildren(
    ...chartRows(report.by_category).flatMap((c) => [
      h('tr', {}, h('th', { scope: 'row', text: categoryLabel(c.category) }), h('td', { class: 'num', text: yen(c.expense) }), h('td', { class: 'num', text: yen(c.income) })),
      // its subcategories (外食, 食料品, …; the rest without one last), when its slips use them
      ...(c.subcategories ?? []).map((s) =>
        h('tr', { class: 'sub' }, h('th', { scope: 'row', text: `└ ${s.subcategory ?? 'その他'}` }), h('td', { class: 'num', text: yen(s.expense) }), h('td', { class: 'num', text: yen(s.income) })),
      ),
    ]),
  );
  renderCategories();
}

function renderBudgets() {
  const rows = state.budgets.map((b) => {
    const over = b.remaining < 0;
    return h(
      'tr',
      { dataset: { category: b.category }, class: over ? 'over' : undefined },
      h('th', { scope: 'row' }, categoryLabel(b.category), b.strict ? h('span', { class: 'badge', text: '厳格' }) : null),
      h('td', { class: 'num', 'data-label': '予算', text: yen(b.limit) }),
      h('td', { class: 'num', 'data-label': '使った額', text: yen(b.spent) }),
      h('td', { class: `num remaining ${over ? 'expense' : ''}`, 'data-label': '残り', text: yen(b.remaining) }),
      h(
        'td',
        { 'data-label': '進み具合' },
        h('meter', { min: 0, max: Math.max(b.limit, 1), low: Math.round(b.limit * 0.7), high: Math.round(b.limit * 0.9), optimum: 0, value: Math.min(b.spent, Math.max(b.limit, 1)), 'aria-label': `${categoryLabel(b.category)}: ${yen(b.spent)} / ${yen(b.limit)}` }),
        h(
          'span',
          { class: 'row-buttons' },
          h('button', { type: 'button', class: 'small edit write', 'aria-label': `予算を変更: ${categoryLabel(b.category)}`, text: '変更', onclick: () => editBudget(b) }),
          h('button', { type: 'button', class: 'small delete danger write', 'aria-label': `予算を削除: ${categoryLabel(b.category)}`, text: '削除', onclick: (event) => deleteBudget(b, event.currentTarget) }),
        ),
      ),
    );
  });
  $('budget-rows').replaceChildren(...rows);
  $('budgets-empty').hidden = rows.length > 0;
  $('budget-table').hidden = rows.length === 0;
  renderCategories();
}

function renderCategories() {
  const seen = new Set(COMMON_CATEGORIES);
  for (const slip of state.slips) if (slip.category && slip.category !== UNCATEGORIZED) seen.add(slip.category);
  for (const c of state.report?.by_category ?? []) if (c.category !== UNCATEGORIZED) seen.add(c.category);
  for (const b of state.budgets) seen.add(b.category);
  $('category-list').replaceChildren(...[...seen].map((c) => h('option', { value: c })));
}

function renderMonth() {
  $('month').value = state.month;
  const label = monthLabel(state.month);
  for (const id of ['slips-month', 'report-month', 'budgets-month']) $(id).textContent = label;
  $('asof-date').value = state.asOf ?? '';
  document.title = `家計簿 ${label}`;
}

// ---- month and as-of ---------------------------------------------------------------------------

function setMonth(month, { reload = true } = {}) {
  if (!isMonth(month)) return;
  state.month = month;
  state.asOf = monthRange(month).to;
  // What was said about the month before (its as-of status, the last import) no longer applies.
  say('');
  $('import-report').hidden = true;
  if (location.hash !== `#${month}`) history.replaceState(null, '', `#${month}`);
  if (!state.editing) $('slip-date').value = defaultDay(month);
  renderMonth();
  if (reload) refreshAll();
}

// ---- slip form ---------------------------------------------------------------------------------

function readSlipFormRaw() {
  return {
    date: $('slip-date').value,
    kind: $('slip-kind').value,
    amount: $('slip-amount').value,
    account: $('slip-account').value,
    to_account: $('slip-to-account').value,
    category: $('slip-category').value,
    memo: $('slip-memo').value,
  };
}

/** The form as a slip the API accepts; throws FieldError naming the field to fix. */
function readSlipForm() {
  const raw = readSlipFormRaw();
  if (!isDate(raw.date)) throw new FieldError($('slip-date'), '日付を正しく入力してください');
  let amount;
  try {
    amount = parseAmount(raw.amount);
  } catch (error) {
    throw new FieldError($('slip-amount'), error.message);
  }
  if (!raw.account) throw new FieldError($('slip-account'), '口座を選んでください（先に口座を追加）');
  const slip = { date: raw.date, kind: raw.kind, amount, account: raw.account, to_account: null, category: null, memo: raw.memo.trim() || null };
  if (raw.kind === 'transfer') {
    if (!raw.to_account || raw.to_account === raw.account) throw new FieldError($('slip-to-account'), '振替先には別の口座を選んでください');
    slip.to_account = raw.to_account;
  } else {
    slip.category = raw.category.trim() || null;
  }
  return slip;
}

function setSlipForm(values) {
  $('slip-date').value = values.date ?? '';
  $('slip-kind').value = values.kind ?? 'expense';
  $('slip-amount').value = values.amount ?? '';
  if (values.account) $('slip-account').value = values.account;
  if (values.to_account) $('slip-to-account').value = values.to_account;
  const category = values.category ?? '';
  $('slip-category').value = category === UNCATEGORIZED ? '' : category;
  $('slip-memo').value = values.memo ?? '';
  syncKind();
}

function syncKind() {
  const transfer = $('slip-kind').value === 'transfer';
  $('slip-to-account-row').hidden = !transfer;
  $('slip-category-row').hidden = transfer;
  $('slip-account-label').textContent = transfer ? '振替元' : '口座';
}

function setEditing(editing) {
  state.editing = editing;
  $('slip-form-title').textContent = editing ? `伝票を編集（No. ${editing.base.no}）` : '伝票を追加';
  $('slip-submit').textContent = editing ? '保存' : '追加';
  $('slip-cancel').hidden = !editing;
  $('slip-form').classList.toggle('is-editing', Boolean(editing));
  for (const row of $('slip-rows').children) row.classList.toggle('editing', row.dataset.id === editing?.id);
}

function resetSlipForm() {
  const keep = { account: $('slip-account').value, kind: $('slip-kind').value === 'transfer' ? 'expense' : $('slip-kind').value };
  setEditing(null);
  state.attempted = null;
  setSlipForm({ date: defaultDay(state.month), kind: keep.kind, account: keep.account });
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
    else showError(error);
  }
}

function beginEdit(slip, etag) {
  setEditing({ id: slip.id, date: slip.date, etag: etag ?? etagOf(slip.version), base: slip });
  setSlipForm(slip);
  if (slip.kind !== 'transfer') $('slip-to-account').value = '';
}

async function submitSlip(event) {
  event.preventDefault();
  clearError();
  let wanted;
  try {
    wanted = readSlipForm();
  } catch (error) {
    fail(error);
    return;
  }
  await busy($('slip-submit'), () => (state.editing ? saveEdit(wanted) : createSlip(wanted)));
}

async function createSlip(slip) {
  const body = Object.fromEntries(Object.entries(slip).filter(([, v]) => v !== null));
  const text = JSON.stringify(body);
  // The same slip sent again after a failed attempt reuses its Idempotency-Key: never two slips.
  if (state.idempotency?.body !== text) state.idempotency = { body: text, key: uuid() };
  try {
    const { data } = await state.api.request('POST', at('/slips'), {
      json: body,
      headers: { 'Idempotency-Key': state.idempotency.key },
    });
    state.idempotency = null;
    say(`追加しました: ${slipSummary(data)}（No. ${data.no}）`);
    $('slip-amount').value = '';
    $('slip-memo').value = '';
    if (monthOf(data.date) !== state.month) setMonth(monthOf(data.date), { reload: false });
    await refreshAll();
    $('slip-amount').focus();
  } catch (error) {
    if (error instanceof ApiError && error.status !== 0) state.idempotency = null;
    showError(error, error instanceof ApiError && error.status === 422 ? fieldOf(error) : undefined);
  }
}

/** The form field a 422's first error names, if any. */
function fieldOf(error) {
  const loc = error.problem?.errors?.[0]?.loc ?? [];
  const name = loc.find((part) => part in FIELD_LABELS);
  return name ? document.querySelector(`#slip-form [name="${name}"]`) : undefined;
}

async function saveEdit(wanted) {
  const { id, date, etag, base } = state.editing;
  // An emptied category is "uncategorized" on the server: not a change.
  const target = { ...wanted, category: wanted.kind === 'transfer' ? null : wanted.category ?? UNCATEGORIZED };
  const patch = mergePatch(base, target);
  if (!Object.keys(patch).length) {
    say('変更はありません');
    resetSlipForm();
    return;
  }
  try {
    const { data } = await state.api.request('PATCH', at(`/slips/${date}/${segment(id)}`), {
      json: patch,
      contentType: 'application/merge-patch+json',
      ifMatch: etag,
    });
    const moved = data.date !== date ? `（日付を ${shortDay(date)} → ${shortDay(data.date)} に変更）` : '';
    const away = monthOf(data.date);
    if (away !== state.month) {
      // It leaves this month's list: say where it went, with a way there.
      say(`保存しました: ${slipSummary(data)}${moved}。この伝票は${monthLabel(away)}に移りました。`, { href: `#${away}`, text: `${monthLabel(away)}を表示` });
    } else {
      say(`保存しました: ${slipSummary(data)}${moved}`);
    }
    resetSlipForm();
    hideConflict();
    await refreshAll();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 412 || error.status === 404)) {
      await conflict(base, patch, 'edit');
    } else {
      showError(error, error instanceof ApiError && error.status === 422 ? fieldOf(error) : undefined);
    }
  }
}

async function deleteSlip(slip) {
  clearError();
  if (!window.confirm(`この伝票を削除しますか？\n${slipSummary(slip)}`)) return;
  try {
    await state.api.request('DELETE', at(`/slips/${slip.date}/${segment(slip.id)}`), { ifMatch: etagOf(slip.version) });
    say(`削除しました: ${slipSummary(slip)}`);
    if (state.editing?.id === slip.id) resetSlipForm();
    await refreshAll();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 412 || error.status === 404)) await conflict(slip, null, 'delete');
    else showError(error);
  }
}

// ---- conflicts (412, or the slip gone from under us) -------------------------------------------

/**
 * Someone changed the slip since `base` was read. Read what it is now, show the difference, reload
 * everything, and put the current version in the form: the person decides whether to re-apply
 * their own changes (`patch`, only the fields they changed) on top of it.
 */
async function conflict(base, patch, action) {
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
  await refreshAll();
  if (!current) {
    // Deleted, or its date changed (which moves it): look for it in the month just reloaded.
    current = state.slips.find((s) => s.id === base.id) ?? null;
    etag = current ? etagOf(current.version) : null;
  }
  const verb = { edit: '保存', delete: '削除', open: '編集' }[action];
  const lead = current
    ? `別の画面で、この伝票（No. ${base.no}）が先に変更されていました。あなたの${verb}は行っていません。最新の内容を読み込みました。`
    : `この伝票（No. ${base.no}）は別の画面で削除されたか、別の月に移されました。あなたの${verb}は行っていません。`;
  showError(new Error(`${verb}できませんでした: ${current ? '先に変更されていました' : '伝票が見つかりません'}`));
  showConflict(base, current, patch, action, lead);
  if (action !== 'delete' || state.editing?.id === base.id) {
    if (current) {
      beginEdit(current, etag);
      state.attempted = patch;
      $('conflict-reapply').hidden = !patch;
    } else {
      resetSlipForm();
    }
  }
}

function showConflict(base, current, patch, action, lead) {
  const theirs = new Set(slipChanges(base, current).map((c) => c.field));
  const fields = [...new Set([...theirs, ...Object.keys(patch ?? {})])];
  const mine = (field) => {
    if (action === 'delete') return '削除';
    if (!patch) return '—';
    return field in patch ? text(field, patch) : '（変更なし）';
  };
  const text = (field, slip) => (slip ? fieldText(field, slip[field], accountName) : '（なし）');
  const rows = fields.map((field) =>
    h(
      'tr',
      { dataset: { field } },
      h('th', { scope: 'row', text: FIELD_LABELS[field] }),
      h('td', { class: 'before', text: text(field, base) }),
      h('td', { class: theirs.has(field) ? 'now changed' : 'now', text: text(field, current) }),
      h('td', { class: 'mine', text: mine(field) }),
    ),
  );
  $('conflict-title').textContent = 'この伝票は先に変更されていました';
  $('conflict-text').textContent = lead;
  $('conflict-table').querySelector('tbody').replaceChildren(...rows);
  $('conflict-table').hidden = rows.length === 0;
  $('conflict-reapply').hidden = true;
  $('conflict').hidden = false;
  $('conflict').focus();
}

function hideConflict() {
  $('conflict').hidden = true;
  state.attempted = null;
  state.attemptedAccount = null;
}

function reapply() {
  const account = state.attemptedAccount;
  if (account) {
    // Only the fields this person changed go back into the account form, on top of the current account.
    $('manage-account').value = account.id;
    fillManageForm();
    if ('name' in account.patch) $('manage-name').value = account.patch.name;
    if ('allow_negative' in account.patch) $('manage-negative').checked = account.patch.allow_negative;
    if ('archived' in account.patch) $('manage-archived').checked = account.patch.archived;
    hideConflict();
    say('あなたの入力を戻しました。内容を確かめて「口座を保存」を押してください');
    $('manage-submit').focus();
    return;
  }
  if (!state.attempted || !state.editing) return;
  // Only the fields this person changed go back in: what the other screen changed stays.
  setSlipForm({ ...state.editing.base, ...state.attempted });
  hideConflict();
  say('あなたの入力を戻しました。内容を確かめて「保存」を押してください');
  $('slip-submit').focus();
}

// ---- accounts ----------------------------------------------------------------------------------

async function submitAccount(event) {
  event.preventDefault();
  clearError();
  const id = $('account-id').value.trim();
  const name = $('account-name').value.trim();
  let opening;
  try {
    if (!ACCOUNT_ID.test(id)) throw new FieldError($('account-id'), 'ID は英数字で始まる 64 文字までの英数字・_ . - にしてください');
    if (!name) throw new FieldError($('account-name'), '名前を入力してください');
    try {
      opening = parseAmount($('account-opening').value || '0', { allowNegative: true, allowZero: true });
    } catch (error) {
      throw new FieldError($('account-opening'), error.message);
    }
  } catch (error) {
    fail(error);
    return;
  }
  const body = { id, name, type: $('account-type').value, opening_balance: opening };
  if ($('account-negative').checked) body.allow_negative = true;
  await busy($('account-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', at('/accounts'), { json: body });
      say(`口座を追加しました: ${data.name}（${yen(data.balance)}）`);
      $('account-form').reset();
      $('account-opening').value = '0';
      const first = state.accounts.length === 0;
      await loadAccounts();
      if (first) {
        $('slip-account').value = data.id;
        $('account-details').open = false;
        $('slip-amount').focus();
      }
    } catch (error) {
      const field = error instanceof ApiError && error.code === 'already_exists' ? $('account-id') : undefined;
      showError(error, field);
    }
  });
}

/** The manage form shows the chosen account as last read. */
function fillManageForm() {
  const account = state.accounts.find((a) => a.id === $('manage-account').value);
  if (!account) return;
  $('manage-name').value = account.name;
  $('manage-negative').checked = Boolean(account.allow_negative);
  $('manage-archived').checked = Boolean(account.archived);
}

async function submitManage(event) {
  event.preventDefault();
  clearError();
  const account = state.accounts.find((a) => a.id === $('manage-account').value);
  if (!account) return;
  const name = $('manage-name').value.trim();
  if (!name) {
    fail(new FieldError($('manage-name'), '名前を入力してください'));
    return;
  }
  const wanted = { name, allow_negative: $('manage-negative').checked, archived: $('manage-archived').checked };
  const patch = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => value !== Boolean(account[key]) && value !== account[key]));
  if (!Object.keys(patch).length) {
    say('変更はありません');
    return;
  }
  await busy($('manage-submit'), async () => {
    try {
      const { data } = await state.api.request('PATCH', at(`/accounts/${segment(account.id)}`), {
        json: patch,
        contentType: 'application/merge-patch+json',
        ifMatch: etagOf(account.version),
      });
      say(`口座を保存しました: ${data.name}${data.archived ? '（アーカイブ）' : ''}`);
      if (state.attemptedAccount || !$('conflict').hidden) hideConflict();
      await refreshAll(); // slips name their accounts; an archived one leaves the slip form
    } catch (error) {
      if (error instanceof ApiError && (error.status === 412 || error.status === 404)) {
        // Not overwritten: show what it is now beside what was tried, and leave the choice to the person.
        await loadAccounts().catch(() => {});
        const current = state.accounts.find((a) => a.id === account.id) ?? null;
        showError(new Error(`保存できませんでした: 口座「${account.name}」は別の画面で先に変更されていました`));
        showAccountConflict(account, current, patch);
      } else {
        showError(error, error instanceof ApiError && error.status === 422 ? $('manage-name') : undefined);
      }
    }
  });
}

const ACCOUNT_FIELDS = { name: '名前', allow_negative: 'マイナス残高', archived: 'アーカイブ' };

function showAccountConflict(base, current, patch) {
  const value = (field, account) => {
    if (!account) return '（なし）';
    if (field === 'name') return account.name;
    return account[field] ? 'はい' : 'いいえ';
  };
  const fields = Object.keys(ACCOUNT_FIELDS).filter((f) => f in patch || value(f, base) !== value(f, current));
  $('conflict-title').textContent = 'この口座は先に変更されていました';
  $('conflict-text').textContent = current
    ? '別の画面で先に変更されていました。あなたの保存は行っていません。最新の内容を読み込みました。'
    : 'この口座は見つかりません。あなたの保存は行っていません。';
  $('conflict-table').querySelector('tbody').replaceChildren(
    ...fields.map((field) =>
      h(
        'tr',
        { dataset: { field } },
        h('th', { scope: 'row', text: ACCOUNT_FIELDS[field] }),
        h('td', { class: 'before', text: value(field, base) }),
        h('td', { class: value(field, base) !== value(field, current) ? 'now changed' : 'now', text: value(field, current) }),
        h('td', { class: 'mine', text: field in patch ? value(field, { ...base, ...patch }) : '（変更なし）' }),
      ),
    ),
  );
  $('conflict-table').hidden = fields.length === 0;
  state.attempted = null;
  state.attemptedAccount = current ? { id: current.id, patch } : null;
  $('conflict-reapply').hidden = !current;
  $('conflict').hidden = false;
  $('conflict').focus();
}

// ---- export ------------------------------------------------------------------------------------

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

// ---- budgets -----------------------------------------------------------------------------------

function editBudget(budget) {
  $('budget-category').value = budget.category;
  $('budget-limit').value = budget.limit;
  $('budget-strict').checked = Boolean(budget.strict);
  $('budget-limit').focus();
}

async function submitBudget(event) {
  event.preventDefault();
  clearError();
  const category = $('budget-category').value.trim();
  let limit;
  try {
    if (!category) throw new FieldError($('budget-category'), '分類を入力してください');
    try {
      limit = parseAmount($('budget-limit').value, { allowZero: true });
    } catch (error) {
      throw new FieldError($('budget-limit'), error.message);
    }
  } catch (error) {
    fail(error);
    return;
  }
  const existing = state.budgets.find((b) => b.category === category);
  // A budget is created without If-Match, and changed only with the version it was read at: if
  // another screen created or changed it meanwhile, the API refuses (428 / 412) and we reload.
  const ifMatch = existing ? etagOf(existing.version) : undefined;
  await busy($('budget-submit'), async () => {
    try {
      await state.api.request('PUT', at(`/budgets/${state.month}/${segment(category)}`), {
        json: { limit, strict: $('budget-strict').checked },
        ifMatch,
      });
      say(`${monthLabel(state.month)}の「${category}」の予算を ${yen(limit)} にしました`);
      $('budget-form').reset();
      await loadBudgets();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && !error.code) {
        $('budgets-panel').hidden = true;
        showError(new Error('この API には予算の機能がありません'));
      } else if (error instanceof ApiError && (error.status === 412 || error.status === 428)) {
        const what = existing ? '変更されていました' : '設定されていました';
        showError(new Error(`「${category}」の予算は別の画面で先に${what}。上書きせずに最新の内容を読み込みました: ${error.detail}`));
        await loadBudgets();
      } else {
        showError(error);
      }
    }
  });
}

/** Remove a budget at the version it was listed at; what was spent stays in the month's totals. */
async function deleteBudget(budget, button) {
  clearError();
  const month = state.month;
  const name = `${monthLabel(month)}の「${categoryLabel(budget.category)}」の予算`;
  if (!window.confirm(`${name}（${yen(budget.limit)}）を削除しますか？\n使った額は記録に残ります。`)) return;
  await busy(button, async () => {
    try {
      await state.api.request('DELETE', at(`/budgets/${month}/${segment(budget.category)}`), { ifMatch: etagOf(budget.version) });
      say(`${name}を削除しました`);
      await loadBudgets();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && !error.code) {
        showError(new Error('この API には予算の削除がありません'));
      } else if (error instanceof ApiError && (error.status === 412 || error.status === 404)) {
        // Changed (412) or already removed (404) on another screen: nothing removed, the list read again
        const what = error.status === 412 ? '変更されていました。削除せずに' : '削除されていました。';
        showError(new Error(`${name}は別の画面で先に${what}最新の内容を読み込みました: ${error.detail}`));
        await loadBudgets().catch(showError);
        // on a shared ledger a 404 may instead mean the caller is no longer a member
        if (error.status === 404) await recheckMembership();
      } else {
        showError(error);
      }
    }
  });
}

/** Last month's budgets into this month, in one action; categories already set here are kept. */
async function copyBudgets() {
  clearError();
  const previous = shiftMonth(state.month, -1);
  await busy($('budget-copy'), async () => {
    try {
      const { data } = await state.api.get(at(`/budgets${query({ month: previous })}`));
      const here = new Set(state.budgets.map((b) => b.category));
      const todo = (data.items ?? []).filter((b) => !here.has(b.category));
      let copied = 0;
      let kept = (data.items ?? []).length - todo.length;
      for (const b of todo) {
        try {
          // no If-Match: created only if still absent (428 when another screen set it meanwhile)
          await state.api.request('PUT', at(`/budgets/${state.month}/${segment(b.category)}`), { json: { limit: b.limit, strict: Boolean(b.strict) } });
          copied += 1;
        } catch (error) {
          if (error instanceof ApiError && (error.status === 412 || error.status === 428)) kept += 1;
          else throw error;
        }
      }
      await loadBudgets();
      if (!(data.items ?? []).length) say(`${monthLabel(previous)}の予算はありません`);
      else say(`${monthLabel(previous)}の予算を ${copied} 件コピーしました${kept ? `（${kept} 件はこの月に設定済みのため変えていません）` : ''}`);
    } catch (error) {
      await loadBudgets().catch(() => {});
      showError(error);
    }
  });
}

// ---- CSV import --------------------------------------------------------------------------------

const IMPORT_FORMATS = { kakeibo: 'この API の形式', mf: 'マネーフォワード ME', zaim: 'Zaim' };
const IMPORT_ACTIONS = { create: '追加', not_counted: '追加（集計対象外）', duplicate: '取込済み', error: 'エラー' };

/**
 * POST /imports with the page's options; `dryRun` asks what would happen and writes nothing. While
 * the file is sent and read, a progress bar says so (a large file takes a while).
 */
async function sendImport(file, createAccounts, dryRun = false) {
  const path = at(`/imports${query({ create_accounts: createAccounts ? 'true' : '', dry_run: dryRun ? 'true' : '' })}`);
  const kb = Math.max(1, Math.round(file.size / 1024));
  $('import-progress-text').textContent = `${file.name}（${kb} KB）を${dryRun ? '確認' : '取り込み'}中…`;
  $('import-progress').hidden = false;
  $('import-panel').setAttribute('aria-busy', 'true');
  try {
    return await state.api.request('POST', path, { body: file, contentType: 'text/csv' });
  } finally {
    $('import-progress').hidden = true;
    $('import-panel').removeAttribute('aria-busy');
  }
}

function chosenFile() {
  const file = $('import-file').files[0];
  if (!file) fail(new FieldError($('import-file'), 'CSV ファイルを選んでください'));
  return file;
}

async function previewImport() {
  clearError();
  const file = chosenFile();
  if (!file) return;
  const createAccounts = $('import-create-accounts').checked;
  await busy($('import-preview'), async () => {
    try {
      const { data } = await sendImport(file, createAccounts, true);
      state.previewed = { file, createAccounts };
      renderPreview(file.name, data, createAccounts);
    } catch (error) {
      showError(error);
    }
  });
}

function renderPreview(name, report, createAccounts) {
  const counts = [
    `追加 ${report.create} 件`,
    report.not_counted ? `集計対象外として追加 ${report.not_counted} 件` : '',
    report.duplicate ? `取込済み ${report.duplicate} 件` : '',
    report.error ? `エラー ${report.error} 件` : '',
  ].filter(Boolean);
  $('import-dry-summary').textContent =
    `${name}（${IMPORT_FORMATS[report.format] ?? report.format}）: ${counts.join('、')}。まだ何も書き込んでいません。`;
  const unknown = report.unknown_accounts ?? [];
  $('import-dry-accounts').textContent = unknown.length
    ? `${createAccounts ? '作成する口座' : '登録されていない口座'}: ` +
      unknown.map((a) => `${a.name}（${TYPE_LABELS[a.type] ?? a.type}、ID ${a.id}）`).join('、')
    : '';
  $('import-dry-accounts').hidden = unknown.length === 0;
  const toCreate = new Map(unknown.map((a) => [a.id, a.name]));
  const label = (id) => toCreate.get(id) ?? accountName(id);
  const rows = (report.items ?? []).map((item) => {
    const slip = item.slip ?? {};
    const what = slip.kind === 'transfer' ? `${label(slip.account)} → ${label(slip.to_account)}` : [
      label(slip.account ?? ''),
      [slip.category, slip.subcategory].filter(Boolean).join(' / '),
    ].filter(Boolean).join(' ');
    return h(
      'tr',
      { class: `import-${item.action}` },
      h('td', { class: 'num', text: String(item.line) }),
      h('td', { text: IMPORT_ACTIONS[item.action] ?? item.action }),
      h('td', { text: slip.date ?? '' }),
      h('td', { text: what }),
      h('td', { class: 'num', text: slip.amount === undefined ? '' : yen(slip.kind === 'expense' ? -slip.amount : slip.amount) }),
      h('td', { text: item.message ?? slip.memo ?? '' }),
    );
  });
  $('import-dry-rows').querySelector('tbody').replaceChildren(...rows);
  $('import-commit').hidden = report.create + report.not_counted === 0;
  $('import-report').hidden = true;
  $('import-dry-run').hidden = false;
  say($('import-dry-summary').textContent);
}

async function commitPreviewed() {
  clearError();
  const previewed = state.previewed;
  if (!previewed) return;
  await busy($('import-commit'), async () => {
    try {
      const { data } = await sendImport(previewed.file, previewed.createAccounts);
      state.previewed = null;
      $('import-dry-run').hidden = true;
      renderImport(previewed.file.name, data);
      await refreshAll();
    } catch (error) {
      showError(error);
    }
  });
}

async function submitImport(event) {
  event.preventDefault();
  clearError();
  const file = chosenFile();
  if (!file) return;
  await busy($('import-submit'), async () => {
    try {
      const { data } = await sendImport(file, $('import-create-accounts').checked);
      $('import-dry-run').hidden = true;
      renderImport(file.name, data);
      await refreshAll();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && !error.code) {
        $('import-panel').hidden = true;
        showError(new Error('この API には CSV 取込がありません'));
      } else {
        showError(error);
      }
    }
  });
}

function renderImport(name, report) {
  const errors = report.errors ?? [];
  $('import-summary').textContent =
    `${name}: ${report.rows} 行中 ${report.created} 件を追加` +
    (report.skipped ? `、${report.skipped} 件は取込済みのためスキップ` : '') +
    (errors.length ? `、${errors.length} 行はエラー` : '') +
    `（取込 ID ${report.import_id}）`;
  const table = $('import-errors');
  table.querySelector('tbody').replaceChildren(
    ...errors.map((e) => h('tr', {}, h('td', { class: 'num', text: String(e.line) }), h('td', { text: e.message }))),
  );
  table.hidden = errors.length === 0;
  $('import-report').hidden = false;
  say($('import-summary').textContent);
}

// ---- shared ledgers ---------------------------------------------------------------------------

const LEDGER_KEY = 'kakeibo.ledger';

function storedLedger() {
  try {
    return localStorage.getItem(LEDGER_KEY) || PERSONAL;
  } catch {
    return PERSONAL;
  }
}

function storeLedger(id) {
  try {
    if (id === PERSONAL) localStorage.removeItem(LEDGER_KEY);
    else localStorage.setItem(LEDGER_KEY, id);
  } catch {
    // storage disabled: the choice lasts for this page only
  }
}

/** How a member is named on the page: "あなた" for the caller. */
function memberName(user) {
  return user && user === state.me ? `${user}（あなた）` : user;
}

const shownLedger = () => state.ledgers?.find((l) => l.id === state.ledger) ?? null;
const ledgerName = (ledger) => (ledger?.id === PERSONAL ? '自分の家計簿' : `「${ledger?.name ?? ledger?.id ?? ''}」`);

/** What the caller's role allows, on the whole page: a viewer is offered no write, only owners manage members. */
function applyRole(role) {
  state.role = role;
  document.body.dataset.role = role;
  if (!canWrite(role) && state.editing) resetSlipForm();
  const note = $('ledger-role');
  note.hidden = state.ledger === PERSONAL;
  note.textContent = state.ledger === PERSONAL ? '' : `あなたは${ROLE_LABELS[role] ?? role}${canWrite(role) ? '' : '（見るだけ）'}`;
  $('accounts-empty').textContent = canWrite(role) ? 'まず口座（財布、銀行、Suica など）を追加してください。' : 'この家計簿にはまだ口座がありません。';
}

/** The caller's ledgers (personal first) and who they are; keeps the one shown if it is still theirs. */
async function loadLedgers() {
  if (state.routes && !state.routes.has('/ledgers')) {
    withoutLedgers();
    return;
  }
  const isNewest = newest('ledgers');
  let list;
  let mine;
  try {
    [list, mine] = await Promise.all([state.api.get('/ledgers'), state.api.get(`/ledgers/${PERSONAL}`)]);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404 && !error.code)) throw error;
    withoutLedgers(); // an API without shared ledgers (API Gateway's 404): the personal one alone
    return;
  }
  if (!isNewest()) return;
  state.ledgers = list.data.items;
  state.me = mine.data.members?.[0]?.user ?? null;
  if (!shownLedger()) {
    state.ledger = PERSONAL; // not (or no longer) theirs
    storeLedger(PERSONAL);
  }
  $('ledger-nav').hidden = false;
  $('household-panel').hidden = false;
  renderLedgers();
  applyRole(shownLedger()?.role ?? 'owner');
}

function withoutLedgers() {
  state.ledgers = null;
  state.ledger = PERSONAL;
  $('ledger-nav').hidden = true;
  $('household-panel').hidden = true;
  applyRole('owner');
}

function renderLedgers() {
  const select = $('ledger');
  select.replaceChildren(...(state.ledgers ?? []).map((l) => h('option', { value: l.id, text: ledgerLabel(l) })));
  select.value = state.ledger;
}

/** The shown ledger's members (a shared one), with what the caller may do about each. */
async function loadHousehold() {
  const isNewest = newest('household');
  if (!state.ledgers || state.ledger === PERSONAL) {
    state.household = null;
    renderHousehold();
    return;
  }
  const { data, etag } = await state.api.get(`/ledgers/${segment(state.ledger)}`);
  if (!isNewest()) return;
  state.household = { ...data, etag };
  if (data.role !== state.role) {
    // the role changed since the list was read: offer what it allows now
    const listed = shownLedger();
    if (listed) listed.role = data.role;
    renderLedgers();
    applyRole(data.role);
  }
  renderHousehold();
}

function renderHousehold() {
  const household = state.household;
  const shared = Boolean(household);
  $('slip-table').classList.toggle('shared', shared);
  $('filter-by-row').hidden = !shared;
  $('members').hidden = !shared;
  $('invite-form').hidden = !shared;
  if (!shared) {
    $('invite-result').hidden = true;
    $('household-title').textContent = '家族と共有';
    $('household-text').textContent = state.ledgers
      ? '個人の家計簿を表示しています。家族と一緒に付けるには、共有の家計簿を作ってメンバーを招待するか、受け取った招待で参加してください。'
      : '';
    state.filters.by = '';
    $('filter-by').replaceChildren(); // nothing to filter by on a ledger of one
    return;
  }
  const owner = household.role === 'owner';
  // A role being chosen survives a reload of the list, unless the member's role changed meanwhile.
  const choosing = new Map(
    [...$('member-rows').querySelectorAll('tr')].map((r) => [`${r.dataset.user} ${r.dataset.role}`, r.querySelector('select')?.value]),
  );
  $('household-title').textContent = `メンバー: ${household.name}`;
  $('household-text').textContent = `${household.members.length} 人で付けています。あなたは${ROLE_LABELS[household.role]}です。`;
  $('member-rows').replaceChildren(
    ...household.members.map((m) => {
      const self = m.user === state.me;
      const actions = [];
      if (owner) {
        const select = h(
          'select',
          { class: 'member-role', 'aria-label': `${m.user}の役割` },
          ...ROLES.map((r) => h('option', { value: r, text: ROLE_LABELS[r] })),
        );
        select.value = choosing.get(`${m.user} ${m.role}`) ?? m.role;
        actions.push(
          select,
          h('button', { type: 'button', class: 'small member-save', 'aria-label': `役割を変更: ${m.user}`, text: '変更', onclick: () => changeRole(m, select.value) }),
        );
        if (!self) actions.push(h('button', { type: 'button', class: 'small danger member-remove', 'aria-label': `外す: ${m.user}`, text: '外す', onclick: () => removeMember(m) }));
      }
      return h(
        'tr',
        { dataset: { user: m.user, role: m.role }, class: self ? 'self' : undefined },
        h('th', { scope: 'row', text: memberName(m.user) }),
        h('td', { class: 'role', text: ROLE_LABELS[m.role] ?? m.role }),
        h('td', { class: 'row-actions' }, ...actions),
      );
    }),
  );
  // The member filter (?by=) offers the members; a chosen one stays even if they have left.
  const select = $('filter-by');
  const users = household.members.map((m) => m.user);
  if (state.filters.by && !users.includes(state.filters.by)) users.push(state.filters.by);
  select.replaceChildren(h('option', { value: '', text: 'すべて' }), ...users.map((u) => h('option', { value: u, text: memberName(u) })));
  select.value = state.filters.by;
}

/** Show another ledger: nothing of the previous one stays on screen, every panel reloads from it. */
async function switchLedger(id, { announce = true } = {}) {
  state.ledger = id;
  storeLedger(id);
  state.filters.by = '';
  state.idempotency = null; // a retry belongs to the ledger it was first sent to
  resetSlipForm();
  hideConflict();
  clearLedger();
  $('invite-result').hidden = true;
  renderLedgers();
  applyRole(shownLedger()?.role ?? 'owner');
  const ok = await refreshAll();
  if (ok && announce) say(`${ledgerName(shownLedger())}を表示しています`);
  return ok;
}

/** After a refusal that may mean the caller's membership changed (403, 404): read it again. */
async function recheckMembership() {
  if (state.ledger === PERSONAL || !state.ledgers) return;
  try {
    await loadLedgers();
    if (state.ledger === PERSONAL) {
      // no longer a member: their data is not ours to show
      await switchLedger(PERSONAL, { announce: false });
      showError(new Error('この共有の家計簿のメンバーではなくなりました。自分の家計簿を表示しています'));
    } else {
      await loadHousehold();
    }
  } catch {
    // the error already shown says enough
  }
}

/** Who is asking and which of their ledgers to show (the last one chosen, if still theirs). */
async function identify() {
  state.ledger = storedLedger();
  try {
    await loadLedgers();
    return true;
  } catch (error) {
    state.ledger = PERSONAL;
    state.ledgers = null;
    renderLedgers();
    showError(error);
    return false;
  }
}

async function submitLedger(event) {
  event.preventDefault();
  clearError();
  const name = $('ledger-name').value.trim();
  if (!name) {
    fail(new FieldError($('ledger-name'), '名前を入力してください'));
    return;
  }
  await busy($('ledger-create-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', '/ledgers', { json: { name } });
      $('ledger-create-form').reset();
      $('ledger-create-details').open = false;
      await loadLedgers();
      await switchLedger(data.id, { announce: false });
      say(`共有の家計簿「${data.name}」を作りました。「招待する」で家族を招待できます`);
      $('invite-role').focus();
    } catch (error) {
      showError(error, error instanceof ApiError && error.status === 422 ? $('ledger-name') : undefined);
    }
  });
}

async function submitInvite(event) {
  event.preventDefault();
  clearError();
  const role = $('invite-role').value;
  await busy($('invite-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', `/ledgers/${segment(state.ledger)}/invitations`, { json: { role } });
      const until = new Date(data.expires_at).toLocaleString('ja-JP', { dateStyle: 'long', timeStyle: 'short' });
      $('invite-text').textContent =
        `${ROLE_LABELS[data.role]}として${ledgerName(shownLedger())}に招待するリンクです。招待したい人に渡してください（${until}まで、1 回だけ使えます）。`;
      $('invite-link').value = inviteLink(data.token);
      $('invite-token').value = data.token;
      $('invite-result').hidden = false;
      say(`${ROLE_LABELS[data.role]}の招待を作りました`);
      $('invite-link').focus();
      $('invite-link').select();
    } catch (error) {
      showError(error);
      if (error instanceof ApiError && (error.status === 403 || error.status === 404)) await recheckMembership();
    }
  });
}

async function copyInvite() {
  const link = $('invite-link').value;
  try {
    await navigator.clipboard.writeText(link);
    say('招待リンクをコピーしました');
  } catch {
    // no clipboard here (http, or refused): leave it selected to copy by hand
    $('invite-link').focus();
    $('invite-link').select();
    say('招待リンクを選択しました。コピーして渡してください');
  }
}

/** A token arrived in the page's address (#invite=…): offer it; joining stays the person's choice. */
function offerInvite(token) {
  $('accept-token').value = token;
  $('household-panel').scrollIntoView({ block: 'start' });
  $('accept-submit').focus();
  say('共有の家計簿への招待があります。参加するには「参加する」を押してください');
}

async function submitAccept(event) {
  event.preventDefault();
  clearError();
  const token = inviteTokenOf($('accept-token').value);
  if (!token) {
    fail(new FieldError($('accept-token'), '招待のリンクかトークン（英数字 32 文字）を貼り付けてください'));
    return;
  }
  await busy($('accept-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', `/invitations/${segment(token)}/accept`);
      $('accept-form').reset();
      await loadLedgers();
      await switchLedger(data.ledger, { announce: false });
      say(`${ledgerName(shownLedger())}に${ROLE_LABELS[data.role]}として参加しました`);
    } catch (error) {
      showError(error, $('accept-token'));
    }
  });
}

async function changeRole(member, role) {
  clearError();
  if (role === member.role) {
    say('役割は変わっていません');
    return;
  }
  try {
    await state.api.request('PUT', `/ledgers/${segment(state.ledger)}/members/${segment(member.user)}`, {
      json: { role },
      ifMatch: etagOf(member.version),
    });
    say(`${memberName(member.user)}を${ROLE_LABELS[role]}にしました`);
    if (member.user === state.me) await loadLedgers();
    await loadHousehold();
  } catch (error) {
    await memberRefused(error, member);
  }
}

async function removeMember(member) {
  clearError();
  if (!window.confirm(`${member.user}をこの家計簿から外しますか？`)) return;
  try {
    await state.api.request('DELETE', `/ledgers/${segment(state.ledger)}/members/${segment(member.user)}`, { ifMatch: etagOf(member.version) });
    say(`${member.user}を外しました`);
    await loadHousehold();
  } catch (error) {
    await memberRefused(error, member);
  }
}

async function leaveLedger() {
  clearError();
  const ledger = shownLedger();
  const self = state.household?.members.find((m) => m.user === state.me);
  if (!ledger || !self) return;
  if (!window.confirm(`${ledgerName(ledger)}から抜けますか？ もう一度参加するには招待が必要です。`)) return;
  await busy($('ledger-leave'), async () => {
    try {
      await state.api.request('DELETE', `/ledgers/${segment(ledger.id)}/members/${segment(self.user)}`, { ifMatch: etagOf(self.version) });
      await loadLedgers();
      await switchLedger(PERSONAL, { announce: false });
      say(`${ledgerName(ledger)}から抜けました。自分の家計簿を表示しています`);
    } catch (error) {
      await memberRefused(error, self);
    }
  });
}

/** A member change refused: the API's reason shown; on 412 (changed meanwhile) the members reloaded. */
async function memberRefused(error, member) {
  $('member-rows').replaceChildren(); // the refused choice is not kept on screen
  renderHousehold();
  if (error instanceof ApiError && error.status === 412) {
    showError(new Error(`${member.user}は別の画面で先に変更されていました。最新のメンバーを読み込みました（${error.detail}）`));
    await loadHousehold().catch(() => {});
  } else {
    showError(error);
    if (error instanceof ApiError && (error.status === 403 || error.status === 404)) await recheckMembership();
  }
}

// ---- settings ----------------------------------------------------------------------------------

function renderSettings() {
  $('user').value = state.config.user;
  $('api-base').value = state.config.base;
  $('token').value = state.config.token;
  $('who').textContent = `${state.config.token ? 'トークン' : state.config.user}${state.config.base ? ` @ ${new URL(state.config.base).host}` : ''}`;
  $('swagger-link').href = `${state.config.base || '.'}/swagger`;
}

async function submitSettings(event) {
  event.preventDefault();
  clearError();
  let base;
  try {
    base = normaliseBase($('api-base').value);
  } catch (error) {
    fail(new FieldError($('api-base'), error.message));
    return;
  }
  const user = $('user').value.trim() || DEFAULT_USER;
  if (!/^[\x21-\x7e]{1,128}$/.test(user)) {
    fail(new FieldError($('user'), 'ユーザーは空白を含まない半角英数字・記号にしてください'));
    return;
  }
  state.config = { user, base, token: $('token').value.trim() };
  saveConfig(state.config);
  state.api = new Api(state.config);
  $('settings').open = false; // it covers the balances; the answer shows below
  renderSettings();
  resetSlipForm();
  hideConflict();
  clearLedger(); // nothing of the previous identity's ledger stays on screen, even if this one fails
  await detectRoutes();
  if ((await identify()) && (await refreshAll())) say('接続先を保存して読み込みました');
}

// ---- start -------------------------------------------------------------------------------------

function bind() {
  $('slip-form').addEventListener('submit', submitSlip);
  $('slip-kind').addEventListener('change', syncKind);
  $('slip-cancel').addEventListener('click', () => {
    resetSlipForm();
    hideConflict();
    clearError();
  });
  $('account-form').addEventListener('submit', submitAccount);
  $('budget-form').addEventListener('submit', submitBudget);
  $('budget-copy').addEventListener('click', copyBudgets);
  $('account-manage-form').addEventListener('submit', submitManage);
  $('manage-account').addEventListener('change', fillManageForm);
  $('export-csv').addEventListener('click', exportCsv);
  $('filter-form').addEventListener('input', readFilters);
  $('filter-form').addEventListener('submit', (event) => event.preventDefault());
  $('recurrence-form').addEventListener('submit', submitRecurrence);
  $('history-close').addEventListener('click', () => {
    state.history = null;
    $('history').hidden = true;
  });
  $('import-form').addEventListener('submit', submitImport);
  $('import-preview').addEventListener('click', previewImport);
  $('import-commit').addEventListener('click', commitPreviewed);
  $('settings-form').addEventListener('submit', submitSettings);
  $('settings').addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !$('settings').open) return;
    $('settings').open = false; // Escape closes the popover, focus back on its summary
    $('settings').querySelector('summary').focus();
  });
  $('conflict-close').addEventListener('click', hideConflict);
  $('conflict-reapply').addEventListener('click', reapply);
  $('month').addEventListener('change', () => setMonth($('month').value));
  $('month-prev').addEventListener('click', () => setMonth(shiftMonth(state.month, -1)));
  $('month-next').addEventListener('click', () => setMonth(shiftMonth(state.month, 1)));
  $('month-today').addEventListener('click', () => setMonth(monthOf(today())));
  window.addEventListener('hashchange', () => {
    const invited = inviteTokenOf(location.hash);
    if (invited) {
      history.replaceState(null, '', `#${state.month}`);
      offerInvite(invited);
      return;
    }
    const month = location.hash.slice(1);
    if (isMonth(month) && month !== state.month) setMonth(month);
  });
  $('ledger').addEventListener('change', () => switchLedger($('ledger').value));
  $('ledger-nav').addEventListener('submit', (event) => event.preventDefault());
  $('ledger-create-form').addEventListener('submit', submitLedger);
  $('invite-form').addEventListener('submit', submitInvite);
  $('invite-copy').addEventListener('click', copyInvite);
  $('accept-form').addEventListener('submit', submitAccept);
  $('ledger-leave').addEventListener('click', leaveLedger);
  $('ledger-members-link').addEventListener('click', (event) => {
    event.preventDefault(); // the address keeps the month
    $('household-panel').scrollIntoView({ block: 'start' });
    $('household-title').focus();
  });
  $('asof-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    clearError();
    const value = $('asof-date').value;
    if (value && !isDate(value)) {
      fail(new FieldError($('asof-date'), '基準日を正しく入力してください'));
      return;
    }
    state.asOf = value || null;
    try {
      await loadAccounts();
      say(state.asOf ? `${shortDay(state.asOf)}時点の残高を表示しました` : '現在の残高を表示しました');
    } catch (error) {
      showError(error);
    }
  });
}

async function main() {
  bind();
  renderSettings();
  const fromHash = location.hash.slice(1);
  const invited = inviteTokenOf(location.hash); // a link to join a shared ledger: #invite=<token>
  setMonth(isMonth(fromHash) ? fromHash : monthOf(today()), { reload: false });
  syncKind();
  $('rec-start').value = today();
  await detectRoutes();
  if (await identify()) await refreshAll();
  if (invited) offerInvite(invited);
  document.body.dataset.ready = 'true';
}

main();
