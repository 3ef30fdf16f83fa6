// 年の推移: the year's income and spending month by month (GET /reports/yearly), shown when the
// API has the route.

import { query } from '../api.js';
import { trendChart } from '../chart.js';
import { yen } from '../format.js';
import { at, newest, state } from '../state.js';
import { h, optional, within } from '../ui.js';

let $ = null; // an element of the view by id, found under its root (#trends-panel, the element app.js hands it)

let panel;

export function mount(root) {
  $ = within(root);
  panel = root;
}

export function load() {
  const isNewest = newest('trends');
  const year = state.month.slice(0, 4);
  return optional(panel, '/reports/yearly', async () => {
    const { data } = await state.api.get(at(`/reports/yearly${query({ year })}`));
    if (!isNewest()) return;
    state.yearly = data;
    render();
  });
}

export function clear() {
  state.yearly = null;
  panel.hidden = true;
}

export function render() {
  const y = state.yearly;
  $('trends-year').textContent = `${y.year}年`;
  $('trends-income').textContent = yen(y.income);
  $('trends-expense').textContent = yen(y.expense);
  $('trends-net').textContent = yen(y.net);
  $('trends-net').className = y.net < 0 ? 'expense' : 'income';
  $('trends-chart').replaceChildren(trendChart(y.months, { title: `${y.year}年の月ごとの収支` }));
  $('trends-table').querySelector('caption').textContent = `${y.year}年の月ごとの収入と支出`;
  $('trends-table').querySelector('tbody').replaceChildren(
    ...y.months.map((m) =>
      h(
        'tr',
        { dataset: { month: m.month } },
        h('th', { scope: 'row', text: `${Number(m.month.slice(5))}月` }), // the year is in the title and the caption: short on a phone
        h('td', { class: 'num income', text: yen(m.income) }),
        h('td', { class: 'num expense', text: yen(m.expense) }),
        h('td', { class: 'num', text: yen(m.net) }),
      ),
    ),
  );
}
