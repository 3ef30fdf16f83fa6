// The months ahead (DESIGN §27): every balance projected day by day with the first shortfall named
// (GET /forecast), savings goals with their progress (/goals), net worth month by month
// (GET /reports/net-worth). Three panels, each with the views' small interface.

import { etagOf, query, segment } from '../api.js';
import { forecastChart, historyChart, percent } from '../chart.js';
import { amountText, isDate, longDay, monthLabel, monthOf, parseAmount, shiftMonth, shortDay, today, unitLabel, yen } from '../format.js';
import { accountName, at, newest, on, state } from '../state.js';
import { FieldError, busy, clearError, fail, fillAccountSelect, h, on422, optional, say, showError, within } from '../ui.js';

// Each panel's elements by id, found under its own root (the element app.js hands it).
let inForecast = null; // #forecast-panel
let inGoals = null; // #goals-panel
let inNetworth = null; // #networth-panel

// ---- pure ------------------------------------------------------------------------------------

/** An amount in its account's unit: ￥1,200, or 12.50 USD. */
export const money = (amount, unit = 'JPY') => (unit === 'JPY' ? yen(amount) : `${amountText(amount, unit)} ${unitLabel(unit)}`);

/** What a move is, in words: カードの引き落とし（楽天カード）, 繰り返し「家賃」, … */
export function moveText(move, name = (id) => id) {
  if (!move) return '';
  const memo = move.memo ? `「${move.memo}」` : '';
  switch (move.kind) {
    case 'card_payment':
      return `カードの引き落とし（${name(move.card ?? move.counterpart)}${move.closing_date ? `、${shortDay(move.closing_date)}締め` : ''}）`;
    case 'recurrence':
      return `繰り返しの伝票${memo}`;
    case 'lapse':
      return 'ポイントの失効';
    default:
      return `予定の伝票${memo}`;
  }
}

/**
 * An account's first shortfall in a sentence (残高不足の見込み: the day, the account, what causes it),
 * or '' when it has none. Pure.
 */
export function shortfallText(account, name = (id) => id) {
  const s = account?.first_shortfall;
  if (!s) return '';
  const unit = account.unit ?? 'JPY';
  const title = s.title || '残高不足の見込み';
  const floor = s.floor ? `（下限 ${money(s.floor, unit)}）` : '';
  const cause = s.cause ? `${moveText(s.cause, name)} ${money(s.cause.amount, unit)} で` : 'すでに';
  return `${title}: ${longDay(s.date)} ${account.name} が ${cause}${money(s.balance, unit)} になります${floor}`;
}

/** The days a card is debited from an account (the marks on its line). Pure. */
export const debitDays = (account) => (account?.days ?? []).filter((d) => d.moves.some((m) => m.kind === 'card_payment')).map((d) => d.date);

/** An account's line: today's balance, then each day it changes. Pure. */
export const forecastSeries = (account, from) => [{ date: from, balance: account.balance }, ...account.days.map((d) => ({ date: d.date, balance: d.balance }))];

/** The last day for a window of `months` from `day` (a year: the day before the same date next year). Pure. */
export function untilOf(day, months) {
  const [y, m, d] = day.split('-').map(Number);
  const month = shiftMonth(`${y}-${String(m).padStart(2, '0')}`, months);
  const [ny, nm] = month.split('-').map(Number);
  const last = new Date(Date.UTC(ny, nm, 0)).getUTCDate();
  const date = new Date(Date.UTC(ny, nm - 1, Math.min(d, last)));
  if (months >= 12) date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

/** A goal's share reached, 0..1. Pure. */
export const goalShare = (goal) => (goal.target > 0 ? Math.min(Math.max(goal.saved, 0) / goal.target, 1) : 1);

/** A goal's progress in words: ￥120,000 / ￥300,000（40%）・あと ￥180,000・毎月 ￥15,000・順調. Pure. */
export function goalText(goal, unit = 'JPY') {
  const parts = [`${money(goal.saved, unit)} / ${money(goal.target, unit)}（${percent(goalShare(goal))}）`];
  if (goal.remaining > 0) parts.push(`あと ${money(goal.remaining, unit)}`);
  else parts.push('達成');
  if (goal.by) parts.push(`${longDay(goal.by)}まで`);
  if (goal.remaining > 0 && goal.monthly_needed !== null && goal.monthly_needed !== undefined) parts.push(`毎月 ${money(goal.monthly_needed, unit)}`);
  if (goal.remaining > 0 && goal.on_track === true) parts.push('見通しでは間に合います');
  if (goal.remaining > 0 && goal.on_track === false) parts.push('見通しでは間に合いません');
  return parts.join('・');
}

/** The alert badge's words: お知らせ 3 件, or お知らせはありません. Pure. */
export const alertCountText = (count) => (count > 0 ? `お知らせ ${count} 件` : 'お知らせはありません');

/** Net worth month by month in words, for the picture's title and the table. Pure. */
export function netWorthSummary(items) {
  if (!items.length) return 'データなし';
  const first = items[0];
  const last = items.at(-1);
  return `${monthLabel(first.month)} ${yen(first.net)} → ${monthLabel(last.month)} ${yen(last.net)}（${last.net >= first.net ? '+' : '-'}${yen(Math.abs(last.net - first.net))}）`;
}

/** The twelve months up to `month`, never past this month: {from, to}. Pure. */
export function lastTwelve(month, now = monthOf(today())) {
  const to = month && month < now ? month : now;
  return { from: shiftMonth(to, -11), to };
}

// ---- 残高の見通し (forecast) --------------------------------------------------------------------

let forecastData = null;

export const forecast = {
  panel: null,
  mount(root) {
    this.panel = root;
    inForecast = within(root);
    inForecast('forecast-until').addEventListener('change', () => this.load().catch(showError));
    on('accounts', () => forecastData && this.render());
  },
  load() {
    const isNewest = newest('forecast');
    const until = untilOf(today(), Number(inForecast('forecast-until').value) || 3);
    return optional(this.panel, '/forecast', async () => {
      const { data } = await state.api.get(at(`/forecast${query({ until })}`));
      if (!isNewest()) return;
      forecastData = data;
      this.render();
    });
  },
  clear() {
    forecastData = null;
    this.panel.hidden = true;
  },
  render() {
    const data = forecastData;
    if (!data) return;
    const name = (id) => accountName(id);
    inForecast('forecast-range').textContent = `${shortDay(data.from)}〜${shortDay(data.until)}`;
    const short = data.items.filter((a) => a.first_shortfall);
    inForecast('forecast-shortfalls').replaceChildren(
      ...short.map((a) => h('li', { class: 'shortfall', dataset: { account: a.account }, text: shortfallText(a, name) })),
    );
    inForecast('forecast-ok').hidden = short.length > 0 || !data.items.length;
    const lines = data.items.filter((a) => a.unit === 'JPY');
    inForecast('forecast-chart').replaceChildren(
      forecastChart(
        lines.map((a) => ({ id: a.account, name: a.name, points: forecastSeries(a, data.from), marks: debitDays(a), shortfall: a.first_shortfall?.date ?? null })),
        { from: data.from, until: data.until },
      ),
    );
    inForecast('forecast-table').querySelector('tbody').replaceChildren(
      ...data.items.map((a) =>
        h(
          'tr',
          { dataset: { account: a.account } },
          h('th', { scope: 'row', text: a.name }),
          h('td', { class: 'num', text: money(a.balance, a.unit) }),
          h('td', { class: `num${a.final_balance < 0 ? ' expense' : ''}`, text: money(a.final_balance, a.unit) }),
          h('td', { text: debitDays(a).map(shortDay).join('、') || '—' }),
        ),
      ),
    );
  },
};

// ---- 目標貯金 (goals) --------------------------------------------------------------------------

let goals = [];

const unitOfAccount = (id) => state.accounts.find((a) => a.id === id)?.unit ?? 'JPY';

export const goalsView = {
  panel: null,
  mount(root) {
    this.panel = root;
    inGoals = within(root);
    inGoals('goal-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.create();
    });
    on('accounts', () => this.render());
  },
  load() {
    const isNewest = newest('goals');
    return optional(this.panel, '/goals', async () => {
      const { data } = await state.api.get(at('/goals'));
      if (!isNewest()) return;
      goals = data.items;
      this.render();
    });
  },
  clear() {
    goals = [];
    this.panel.hidden = true;
  },
  render() {
    fillAccountSelect(inGoals('goal-account'), state.accounts.filter((a) => !a.archived));
    inGoals('goal-rows').replaceChildren(
      ...goals.map((goal) => {
        const unit = unitOfAccount(goal.account);
        const id = `goal-${goal.id}`;
        return h(
          'li',
          { class: `goal${goal.on_track === false && goal.remaining > 0 ? ' behind' : ''}`, dataset: { id: goal.id } },
          h('span', { class: 'goal-name', id: `${id}-name`, text: `${goal.name}（${accountName(goal.account)}）` }),
          h('progress', { max: goal.target || 1, value: Math.min(Math.max(goal.saved, 0), goal.target || 1), 'aria-labelledby': `${id}-name`, 'aria-describedby': `${id}-text` }),
          h('span', { class: 'goal-text sub', id: `${id}-text`, text: goalText(goal, unit) }),
          h('button', { type: 'button', class: 'small danger write', 'aria-label': `削除: ${goal.name}`, text: '削除', onclick: (event) => this.remove(goal, event.currentTarget) }),
        );
      }),
    );
    inGoals('goals-empty').hidden = goals.length > 0;
  },
  async create() {
    clearError();
    const button = inGoals('goal-submit');
    const nameField = inGoals('goal-name');
    const targetField = inGoals('goal-target');
    const byField = inGoals('goal-by');
    const accountField = inGoals('goal-account');
    try {
      const name = nameField.value.trim();
      if (!name) throw new FieldError(nameField, '目標の名前を入力してください');
      let target;
      try {
        target = parseAmount(targetField.value);
      } catch (error) {
        throw new FieldError(targetField, `目標額: ${error.message}`);
      }
      const by = byField.value;
      if (by && !isDate(by)) throw new FieldError(byField, '期日は YYYY-MM-DD で入力してください');
      if (!accountField.value) throw new FieldError(accountField, '口座を選んでください');
      await busy(button, async () => {
        try {
          await state.api.request('POST', at('/goals'), { json: { name, target, account: accountField.value, ...(by ? { by } : {}) } });
        } catch (error) {
          showError(error, on422(error, targetField));
          throw null;
        }
      });
      inGoals('goal-form').reset();
      say(`目標「${name}」を追加しました`);
      await this.load();
    } catch (error) {
      if (error !== null) fail(error);
    }
  },
  async remove(goal, button) {
    if (!window.confirm(`目標「${goal.name}」を削除しますか？`)) return;
    try {
      await busy(button, () => state.api.request('DELETE', at(`/goals/${segment(goal.id)}`), { ifMatch: etagOf(goal.version) }));
      say(`目標「${goal.name}」を削除しました`);
      await this.load();
    } catch (error) {
      showError(error);
      this.load().catch(() => {});
    }
  },
};

// ---- 資産推移 (net worth) ------------------------------------------------------------------------

let netWorth = null;

export const networth = {
  panel: null,
  mount(root) {
    this.panel = root;
    inNetworth = within(root);
  },
  load() {
    const isNewest = newest('networth');
    const { from, to } = lastTwelve(state.month);
    return optional(this.panel, '/reports/net-worth', async () => {
      const { data } = await state.api.get(at(`/reports/net-worth${query({ from, to })}`));
      if (!isNewest()) return;
      netWorth = data;
      this.render();
    });
  },
  clear() {
    netWorth = null;
    this.panel.hidden = true;
  },
  render() {
    if (!netWorth) return;
    const items = netWorth.items;
    const last = items.at(-1);
    inNetworth('networth-range').textContent = items.length ? `${monthLabel(items[0].month)}〜${monthLabel(last.month)}` : '';
    inNetworth('networth-now').textContent = last ? yen(last.net) : '—';
    inNetworth('networth-now').className = last && last.net < 0 ? 'expense' : 'income';
    inNetworth('networth-assets').textContent = last ? yen(last.assets) : '—';
    inNetworth('networth-liabilities').textContent = last ? yen(last.liabilities) : '—';
    inNetworth('networth-chart').replaceChildren(
      historyChart(items.map((m) => ({ date: monthLabel(m.month), balance: m.net })), { title: `純資産の推移（${netWorthSummary(items)}）` }),
    );
    inNetworth('networth-table').querySelector('tbody').replaceChildren(
      ...items.map((m) =>
        h(
          'tr',
          { dataset: { month: m.month } },
          h('th', { scope: 'row', text: monthLabel(m.month) }),
          h('td', { class: 'num', text: yen(m.assets) }),
          h('td', { class: 'num', text: yen(m.liabilities) }),
          h('td', { class: `num${m.net < 0 ? ' expense' : ''}`, text: yen(m.net) }),
        ),
      ),
    );
    inNetworth('networth-unvalued').hidden = !netWorth.unvalued?.length;
    inNetworth('networth-unvalued').textContent = netWorth.unvalued?.length ? `換算できない口座は含めていません: ${netWorth.unvalued.map(accountName).join('、')}` : '';
  },
};
