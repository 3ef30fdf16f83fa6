// 月の集計: the month's income, spending and net, by category (a donut of the spending, bars, and a
// table with the categories' subcategories).

import { query } from '../api.js';
import { categoryChart, chartRows, donutChart } from '../chart.js';
import { categoryLabel, monthLabel, yen } from '../format.js';
import { at, emit, newest, on, state } from '../state.js';
import { h, within } from '../ui.js';

let $ = null; // an element of the view by id, found under its root (#report-panel, the element app.js hands it)

export function mount(root) {
  $ = within(root);
  on('month', (month) => {
    $('report-month').textContent = monthLabel(month);
  });
}

export async function load() {
  const isNewest = newest('report');
  const { data } = await state.api.get(at(`/reports/monthly${query({ month: state.month })}`));
  if (!isNewest()) return;
  state.report = data;
  render();
}

export function clear() {
  state.report = { month: state.month, income: 0, expense: 0, net: 0, by_category: [] };
  render();
}

export function render() {
  const report = state.report;
  $('report-income').textContent = yen(report.income);
  $('report-expense').textContent = yen(report.expense);
  $('report-net').textContent = yen(report.net);
  $('report-net').className = report.net < 0 ? 'expense' : 'income';
  // the spending's shares at a glance (a donut), then each category's bar (spending and income)
  $('report-donut').replaceChildren(...(report.expense > 0 ? [donutChart(report.by_category, { title: `${monthLabel(state.month)}の分類別の支出` })] : []));
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
  emit('report');
}
