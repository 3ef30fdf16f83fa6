// 口座と残高: every account with its balance today, with future-dated slips (予定込み) when there
// are any, and as of a chosen day; add an account; rename / allow negative / archive one (If-Match,
// a 412 shows the conflict panel); an account's daily balance over the month (推移).

import { ApiError, etagOf, query, segment } from '../api.js';
import { historyChart } from '../chart.js';
import { conflictShown, hideConflict, offerReapply, showConflict } from '../conflict.js';
import { TYPE_LABELS, amountIn, canWrite, isDate, monthLabel, monthRange, parseAmount, parseAmountIn, shortDay, today, unitLabel, yen } from '../format.js';
import { entryAccounts, keep, kept, unreachable } from '../kept.js';
import { accountName, at, emit, newest, on, state } from '../state.js';
import { FieldError, busy, clearError, fail, fillAccountSelect, h, on422, say, showError, within } from '../ui.js';
import { useEditor as cardsUse } from './cards.js';

let $ = null; // an element of the view by id, found under its root (#balances-panel, the element app.js hands it)

const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ACCOUNT_FIELDS = { name: '名前', allow_negative: 'マイナス残高', archived: 'アーカイブ' };

let ctx;

export function mount(root, context) {
  $ = within(root);
  ctx = context;
  panel = root;
  $('account-form').addEventListener('submit', submitAccount);
  $('account-unit').addEventListener('change', syncUnit);
  $('account-currency').addEventListener('input', syncUnit);
  $('account-manage-form').addEventListener('submit', submitManage);
  $('manage-account').addEventListener('change', fillManageForm);
  $('history-close').addEventListener('click', () => {
    state.history = null;
    $('history').hidden = true;
  });
  $('asof-form').addEventListener('submit', submitAsOf);
  cardsUse($('account-manage-details')); // a card's billing is set in the account editor: handed to the cards view
  on('role', renderEmpty);
}

/**
 * The accounts, their balances (all recorded, today, as of the day chosen) and the history shown.
 * Read for another view (the slip form offers the accounts), only the accounts: the balances are
 * read when they are shown.
 */
export async function load() {
  try {
    if (!shown()) return await loadAccountsOnly();
    return await Promise.all([loadAccounts(), loadHistory()]);
  } catch (error) {
    if (unreachable(error)) offerKept();
    throw error;
  }
}

/** The accounts as the slip forms need them, kept for a start without a connection (kept.js). */
function keepAccounts() {
  keep('accounts', entryAccounts(state.accounts));
}

/**
 * No connection and no accounts read: the slip forms offer the ones this browser kept (their
 * balances are not shown: a kept one would be stale).
 */
function offerKept() {
  if (state.accounts.length) return;
  const known = kept('accounts');
  if (!Array.isArray(known) || !known.length) return;
  state.accounts = known;
  emit('accounts');
}

let panel = null;

/** The balances on screen (#/accounts, #/cards)? */
const shown = () => !panel || !panel.classList.contains('off-route');

async function loadAccountsOnly() {
  const isNewest = newest('accounts');
  const { data } = await state.api.get(at('/accounts'));
  if (!isNewest()) return;
  state.accounts = data.items;
  keepAccounts();
  render();
  emit('accounts');
}

async function loadAccounts() {
  const isNewest = newest('accounts');
  const asOf = state.asOf;
  const day = today();
  const [accounts, current, present, past] = await Promise.all([
    state.api.get(at('/accounts')),
    state.api.get(at('/balances')),
    state.api.get(at(`/balances${query({ date: day })}`)),
    asOf ? state.api.get(at(`/balances${query({ date: asOf })}`)) : null,
  ]);
  if (!isNewest()) return;
  const expiring = await loadExpiring(accounts.data.items);
  if (!isNewest()) return;
  const balances = (answer) => new Map((answer?.data.items ?? []).map((i) => [i.account, i.balance]));
  state.accounts = accounts.data.items;
  state.expiring = expiring;
  state.current = balances(current);
  state.values = new Map((current?.data.items ?? []).map((i) => [i.account, i]));
  state.today = day;
  state.todayBalances = balances(present);
  state.asOfBalances = balances(past);
  keepAccounts();
  render();
  emit('accounts');
}

/** Days ahead the accounts view warns of points about to lapse. */
export const LAPSE_WITHIN = 30;

/** Each points account's lots lapsing within LAPSE_WITHIN days (a failed read shows none, not an error). */
async function loadExpiring(accounts) {
  const route = '/accounts/{id}/expiring';
  if (state.routes && !state.routes.has(route)) return new Map();
  const points = accounts.filter((a) => a.unit === 'points' && !a.archived);
  const answers = await Promise.all(
    points.map((a) =>
      state.api
        .get(at(`/accounts/${segment(a.id)}/expiring${query({ within: LAPSE_WITHIN })}`))
        .then(({ data }) => [a.id, data.items])
        .catch(() => [a.id, []]),
    ),
  );
  return new Map(answers);
}

/** 「120 pt が 12/31(木) の終わりに失効」: one lot's points about to lapse, in words. Pure. */
export function lapseText(lot) {
  const points = amountIn(lot.points, 'points');
  if (lot.lapsed) return `${points} が失効（${shortDay(lot.expires_on)} まで）`;
  return `${points} が ${shortDay(lot.expires_on)} の終わりに失効`;
}

export function clear() {
  state.accounts = [];
  state.expiring = new Map();
  state.current = new Map();
  state.todayBalances = new Map();
  state.asOfBalances = new Map();
  state.history = null;
  $('history').hidden = true;
  render();
  $('account-details').open = false; // opened again if the new ledger really has no account
  emit('accounts');
}

/** Whether any account's balance counts slips dated after today (rent recorded ahead, say). */
const hasPlanned = () => state.accounts.some((a) => (state.todayBalances.get(a.id) ?? 0) !== (state.current.get(a.id) ?? a.balance));

/** What an account in another unit is worth in yen (GET /balances' jpy_value), and how it was valued. */
export function valueText(item, unit) {
  if (!item || item.jpy_value === null || item.jpy_value === undefined) return null;
  if (item.valued_by === 'point_value') return `円換算 ${yen(item.jpy_value)}`;
  if (item.valued_by === 'latest_slip') return `円換算 ${yen(item.jpy_value)}（${item.rate_date ? shortDay(item.rate_date) : '直近'}の伝票のレート）`;
  return unit && unit !== 'JPY' ? `円換算 ${yen(item.jpy_value)}` : null;
}

function valueLine(account) {
  if (!account.unit || account.unit === 'JPY') return [];
  const text = valueText(state.values?.get(account.id), account.unit);
  return text ? [h('small', { class: 'jpy-value', text })] : [];
}

export function render() {
  const planned = hasPlanned();
  const heads = {
    today: state.today ? `今日 ${shortDay(state.today)}` : '今日',
    current: planned ? '予定込み' : '現在',
    asof: state.asOf ? `${shortDay(state.asOf)}時点` : '基準日',
  };
  const rows = state.accounts.map((a) =>
    h(
      'tr',
      { dataset: { account: a.id }, class: a.archived ? 'archived' : undefined },
      h(
        'th',
        { scope: 'row' },
        h('span', { class: 'name', text: a.name }),
        h('small', { class: 'nowrap', text: `${TYPE_LABELS[a.type] ?? a.type}${a.program ? `・${a.program}` : ''}${a.archived ? '・アーカイブ' : ''}` }),
        ...(state.expiring?.get(a.id) ?? []).map((lot) => h('small', { class: 'lapse', text: lapseText(lot) })),
        ...valueLine(a),
      ),
      h('td', { class: 'num today', 'data-label': heads.today, text: amountIn(state.todayBalances.get(a.id) ?? 0, a.unit) }),
      h('td', { class: 'num current', 'data-label': heads.current, text: amountIn(state.current.get(a.id) ?? a.balance, a.unit) }),
      h('td', { class: 'num asof', 'data-label': heads.asof, text: state.asOf ? amountIn(state.asOfBalances.get(a.id) ?? 0, a.unit) : '—' }),
      h('td', { class: 'row-actions' }, h('button', { type: 'button', class: 'history small', 'aria-label': `残高の推移: ${a.name}`, text: '推移', onclick: () => showHistory(a.id) })),
    ),
  );
  $('balance-rows').replaceChildren(...rows);
  // the totals add yen: an account in another unit (dollars, points) is shown in its own, not summed
  const inYen = (a) => !a.unit || a.unit === 'JPY';
  const sum = (map) => state.accounts.reduce((total, a) => total + (inYen(a) ? (map.get(a.id) ?? 0) : 0), 0);
  const totals = { today: sum(state.todayBalances), current: sum(state.current), asof: state.asOf ? sum(state.asOfBalances) : null };
  for (const [column, total] of Object.entries(totals)) {
    $(`${column}-head`).textContent = heads[column];
    $(`total-${column}`).textContent = total === null ? '—' : yen(total);
    $(`total-${column}`).dataset.label = heads[column]; // a phone shows each balance with its heading
  }
  // With slips dated after today, "now" is two numbers: today's, and with what is planned.
  $('balance-table').classList.toggle('planned', planned);
  $('balance-note').hidden = !planned;
  $('balance-note').textContent = planned
    ? `「予定込み」は明日以降の日付の伝票（先に記帳した家賃など）も引いた残高、「今日」は${state.today ? shortDay(state.today) : '今日'}の終わりまでの残高です。`
    : '';
  $('balance-table').hidden = state.accounts.length === 0;
  renderEmpty();
  if (!state.accounts.length) $('account-details').open = true;
  $('account-manage-details').hidden = state.accounts.length === 0;
  fillAccountSelect($('manage-account'), state.accounts);
  fillManageForm();
}

function renderEmpty() {
  $('accounts-empty').hidden = state.accounts.length > 0;
  $('accounts-empty').textContent = canWrite(state.role)
    ? 'まず口座（財布、銀行、Suica など）を追加してください。'
    : 'この家計簿にはまだ口座がありません。';
}

async function submitAsOf(event) {
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
}

// ---- history -----------------------------------------------------------------------------------

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

// ---- add ---------------------------------------------------------------------------------------

/** The unit the add form has chosen: JPY, the currency code typed (upper case), or points. */
function chosenUnit() {
  const kind = $('account-unit').value;
  if (kind === 'currency') return $('account-currency').value.normalize('NFKC').trim().toUpperCase();
  return kind;
}

/** The add form shows a currency's code, or a points account's value and program, as chosen. */
function syncUnit() {
  const kind = $('account-unit').value;
  $('account-currency-row').hidden = kind !== 'currency';
  $('account-points-rows').hidden = kind !== 'points';
  const unit = chosenUnit();
  $('account-opening-label').textContent = `開始残高（${kind === 'currency' && !/^[A-Z]{3}$/.test(unit) ? '外貨' : unitLabel(unit)}）`;
  $('account-opening').inputMode = kind === 'currency' ? 'decimal' : 'numeric';
}

/** The add form's field a 422 names (the unit, point value, program ...), if any. */
const ADD_FIELDS = { id: 'account-id', name: 'account-name', type: 'account-type', opening_balance: 'account-opening', point_value: 'account-point-value', program: 'account-program' };
function addFieldOf(error) {
  if (!(error instanceof ApiError && error.status === 422)) return undefined;
  const loc = error.problem?.errors?.[0]?.loc ?? [];
  if (loc.includes('unit')) return $($('account-unit').value === 'currency' ? 'account-currency' : 'account-unit');
  const name = loc.find((part) => part in ADD_FIELDS);
  return name ? $(ADD_FIELDS[name]) : undefined;
}

async function submitAccount(event) {
  event.preventDefault();
  clearError();
  const id = $('account-id').value.trim();
  const name = $('account-name').value.trim();
  const unit = chosenUnit();
  let opening;
  let pointValue;
  try {
    if (!ACCOUNT_ID.test(id)) throw new FieldError($('account-id'), 'ID は英数字で始まる 64 文字までの英数字・_ . - にしてください');
    if (!name) throw new FieldError($('account-name'), '名前を入力してください');
    if (!unit) throw new FieldError($('account-currency'), '通貨コード（USD など）を入力してください');
    if (unit === 'points') {
      try {
        pointValue = parseAmount($('account-point-value').value || '1');
      } catch (error) {
        throw new FieldError($('account-point-value'), `1 ポイントの価値: ${error.message}`);
      }
    }
    try {
      opening = parseAmountIn($('account-opening').value || '0', unit, { allowNegative: true, allowZero: true });
    } catch (error) {
      throw new FieldError($('account-opening'), error.message);
    }
  } catch (error) {
    fail(error);
    return;
  }
  const body = { id, name, type: $('account-type').value, opening_balance: opening };
  if (unit !== 'JPY') body.unit = unit;
  if (unit === 'points') {
    body.point_value = pointValue;
    const program = $('account-program').value.trim();
    if (program) body.program = program;
  }
  if ($('account-negative').checked) body.allow_negative = true;
  await busy($('account-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', at('/accounts'), { json: body });
      say(`口座を追加しました: ${data.name}（${amountIn(data.balance, data.unit)}）`);
      $('account-form').reset();
      $('account-opening').value = '0';
      syncUnit();
      const first = state.accounts.length === 0;
      await loadAccounts();
      if (first) {
        $('account-details').open = false;
        ctx.firstAccount(data.id);
      }
    } catch (error) {
      const field = error instanceof ApiError && error.code === 'already_exists' ? $('account-id') : addFieldOf(error);
      showError(error, field);
    }
  });
}

// ---- manage ------------------------------------------------------------------------------------

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
      if (conflictShown()) hideConflict();
      await ctx.refresh(); // slips name their accounts; an archived one leaves the slip form
    } catch (error) {
      if (error instanceof ApiError && (error.status === 412 || error.status === 404)) {
        // Not overwritten: show what it is now beside what was tried, and leave the choice to the person.
        await loadAccounts().catch(() => {});
        const current = state.accounts.find((a) => a.id === account.id) ?? null;
        showError(new Error(`保存できませんでした: 口座「${account.name}」は別の画面で先に変更されていました`));
        showAccountConflict(account, current, patch);
      } else {
        showError(error, on422(error, $('manage-name')));
      }
    }
  });
}

function showAccountConflict(base, current, patch) {
  const value = (field, account) => {
    if (!account) return '（なし）';
    if (field === 'name') return account.name;
    return account[field] ? 'はい' : 'いいえ';
  };
  const fields = Object.keys(ACCOUNT_FIELDS).filter((f) => f in patch || value(f, base) !== value(f, current));
  showConflict({
    title: 'この口座は先に変更されていました',
    lead: current
      ? '別の画面で先に変更されていました。あなたの保存は行っていません。最新の内容を読み込みました。'
      : 'この口座は見つかりません。あなたの保存は行っていません。',
    rows: fields.map((field) => ({
      field,
      label: ACCOUNT_FIELDS[field],
      before: value(field, base),
      now: value(field, current),
      changed: value(field, base) !== value(field, current),
      mine: field in patch ? value(field, { ...base, ...patch }) : '（変更なし）',
    })),
  });
  if (current) offerReapply(() => reapply(current.id, patch));
}

/** Only the fields this person changed go back into the account form, on top of the current account. */
function reapply(id, patch) {
  $('manage-account').value = id;
  fillManageForm();
  if ('name' in patch) $('manage-name').value = patch.name;
  if ('allow_negative' in patch) $('manage-negative').checked = patch.allow_negative;
  if ('archived' in patch) $('manage-archived').checked = patch.archived;
  say('あなたの入力を戻しました。内容を確かめて「口座を保存」を押してください');
  $('manage-submit').focus();
}
