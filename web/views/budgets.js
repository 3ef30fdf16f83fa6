// 予算: the month's budgets with what was spent and what remains, what was carried over from last
// month (繰越) and, this month, what is left per day (1日あたり); set or change one (If-Match),
// remove one, copy last month's (rollover kept). A budget set, changed or removed on another screen meanwhile is
// never overwritten: the page says so and reads the budgets again.

import { ApiError, etagOf, query, segment } from '../api.js';
import { budgetChart, monthPace } from '../chart.js';
import { categoryLabel, monthLabel, parseAmount, shiftMonth, today, yen } from '../format.js';
import { at, emit, newest, on, state } from '../state.js';
import { FieldError, busy, clearError, fail, h, optional, say, showError, within } from '../ui.js';

let $ = null; // an element of the view by id, found under its root (#budgets-panel, the element app.js hands it)

let ctx;
let panel;

export function mount(root, context) {
  $ = within(root);
  ctx = context;
  panel = root;
  $('budget-form').addEventListener('submit', submitBudget);
  $('budget-copy').addEventListener('click', copyBudgets);
  on('month', (month) => {
    $('budgets-month').textContent = monthLabel(month);
  });
}

export function load() {
  const isNewest = newest('budgets');
  return optional(panel, '/budgets', async () => {
    const { data } = await state.api.get(at(`/budgets${query({ month: state.month })}`));
    if (!isNewest()) return;
    state.budgets = data.items ?? [];
    render();
  });
}

export function clear() {
  state.budgets = [];
  render();
}

export function render() {
  const rows = state.budgets.map((b) => {
    const over = b.remaining < 0;
    const name = categoryLabel(b.category);
    const carried = b.carried ?? 0;
    const available = b.available ?? b.limit;
    return h(
      'tr',
      { dataset: { category: b.category }, class: over ? 'over' : undefined },
      h('th', { scope: 'row' }, name, b.strict ? h('span', { class: 'badge', text: '厳格' }) : null, b.rollover ? h('span', { class: 'badge', text: '繰越' }) : null),
      h('td', { class: 'num', 'data-label': '予算', text: yen(b.limit) }),
      h('td', { class: 'num', 'data-label': '使った額', text: yen(b.spent) }),
      h('td', { class: `num remaining ${over ? 'expense' : ''}`, 'data-label': '残り', text: yen(b.remaining) }),
      h(
        'td',
        { 'data-label': '進み具合' },
        h('meter', { min: 0, max: Math.max(available, 1), low: Math.round(available * 0.7), high: Math.round(available * 0.9), optimum: 0, value: Math.min(Math.max(b.spent, 0), Math.max(available, 1)), 'aria-label': `${name}: ${yen(b.spent)} / ${yen(available)}` }),
        h(
          'small',
          { class: 'pace' },
          h('span', { class: `carried ${carried < 0 ? 'expense' : ''}`, title: carryNote(b), text: `繰越 ${carried ? yen(carried) : '—'}` }),
          b.per_day == null ? null : h('span', { class: `per-day ${b.per_day < 0 ? 'expense' : ''}`, text: ` · 1日あたり ${yen(b.per_day)}` }),
        ),
        h(
          'span',
          { class: 'row-buttons' },
          h('button', { type: 'button', class: 'small edit write', 'aria-label': `予算を変更: ${name}`, text: '変更', onclick: () => editBudget(b) }),
          h('button', { type: 'button', class: 'small delete danger write', 'aria-label': `予算を削除: ${name}`, text: '削除', onclick: (event) => deleteBudget(b, event.currentTarget) }),
        ),
      ),
    );
  });
  $('budget-rows').replaceChildren(...rows);
  // each budget as a bar, with the mark where spending would be at the month's pace
  const pace = monthPace(state.month, today());
  $('budget-chart').replaceChildren(...(rows.length ? [budgetChart(state.budgets, { pace, title: `${monthLabel(state.month)}の予算の進み具合` })] : []));
  $('budgets-carry-note').hidden = !state.budgets.some((b) => b.carried || b.rollover);
  $('budgets-empty').hidden = rows.length > 0;
  $('budget-table').hidden = rows.length === 0;
  emit('budgets');
}

/** The carry in one line: where it came from and what it makes available. */
export function carryNote(b) {
  const carried = b.carried ?? 0;
  if (!carried) return b.rollover ? '残りは翌月の予算に繰り越されます' : '前月からの繰越はありません';
  const what = carried < 0 ? `前月の使い過ぎ ${yen(-carried)} を差し引き` : `前月の残り ${yen(carried)} を足して`;
  return `${what}、この月に使えるのは ${yen(b.available)} です`;
}

function editBudget(budget) {
  $('budget-category').value = budget.category;
  $('budget-limit').value = budget.limit;
  $('budget-strict').checked = Boolean(budget.strict);
  $('budget-rollover').checked = Boolean(budget.rollover);
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
        json: { limit, strict: $('budget-strict').checked, rollover: $('budget-rollover').checked },
        ifMatch,
      });
      say(`${monthLabel(state.month)}の「${category}」の予算を ${yen(limit)} にしました`);
      $('budget-form').reset();
      await load();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && !error.code) {
        panel.hidden = true;
        showError(new Error('この API には予算の機能がありません'));
      } else if (error instanceof ApiError && (error.status === 412 || error.status === 428)) {
        const what = existing ? '変更されていました' : '設定されていました';
        showError(new Error(`「${category}」の予算は別の画面で先に${what}。上書きせずに最新の内容を読み込みました: ${error.detail}`));
        await load();
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
      await load();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && !error.code) {
        showError(new Error('この API には予算の削除がありません'));
      } else if (error instanceof ApiError && (error.status === 412 || error.status === 404)) {
        // Changed (412) or already removed (404) on another screen: nothing removed, the list read again
        const what = error.status === 412 ? '変更されていました。削除せずに' : '削除されていました。';
        showError(new Error(`${name}は別の画面で先に${what}最新の内容を読み込みました: ${error.detail}`));
        await load().catch(showError);
        // on a shared ledger a 404 may instead mean the caller is no longer a member
        if (error.status === 404) await ctx.recheckMembership();
      } else {
        showError(error);
      }
    }
  });
}

/** Last month's budgets into this month, in one action (POST .../copy-from/...): limit, strictness
 * and rollover as they were; categories already set here are kept. */
async function copyBudgets() {
  clearError();
  const previous = shiftMonth(state.month, -1);
  await busy($('budget-copy'), async () => {
    try {
      let copied;
      let kept;
      try {
        const { data } = await state.api.request('POST', at(`/budgets/${state.month}/copy-from/${previous}`));
        copied = data.copied.length;
        kept = data.kept.length;
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404 && !error.code)) throw error;
        ({ copied, kept } = await copyOneByOne(previous)); // an API without the copy route
      }
      await load();
      if (!copied && !kept) say(`${monthLabel(previous)}の予算はありません`);
      else say(`${monthLabel(previous)}の予算を ${copied} 件コピーしました${kept ? `（${kept} 件はこの月に設定済みのため変えていません）` : ''}`);
    } catch (error) {
      await load().catch(() => {});
      showError(error);
    }
  });
}

async function copyOneByOne(previous) {
  const { data } = await state.api.get(at(`/budgets${query({ month: previous })}`));
  const here = new Set(state.budgets.map((b) => b.category));
  const todo = (data.items ?? []).filter((b) => !here.has(b.category));
  let copied = 0;
  let kept = (data.items ?? []).length - todo.length;
  for (const b of todo) {
    try {
      // no If-Match: created only if still absent (428 when another screen set it meanwhile)
      await state.api.request('PUT', at(`/budgets/${state.month}/${segment(b.category)}`), { json: { limit: b.limit, strict: Boolean(b.strict), rollover: Boolean(b.rollover) } });
      copied += 1;
    } catch (error) {
      if (error instanceof ApiError && (error.status === 412 || error.status === 428)) kept += 1;
      else throw error;
    }
  }
  return { copied, kept };
}
