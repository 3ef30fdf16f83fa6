// くり返しの伝票: recurring slips (rent, salary, subscriptions) with their rule, next date and why
// the last one could not be posted; a new one shows the dates it will post on, holidays shifted.
// Shown when the API has /recurrences.

import { query, segment } from '../api.js';
import { KIND_LABELS, UNCATEGORIZED, amountIn, categoryLabel, isDate, longDay, parseAmount, shortDay, today } from '../format.js';
import { accountName, at, newest, on, state, unitOf } from '../state.js';
import { FieldError, busy, clearError, fail, fillAccountSelect, h, on422, optional, say, showError, uuid, within } from '../ui.js';

let $ = null; // an element of the view by id, found under its root (#recurrences-panel, the element app.js hands it)

const FREQ_LABELS = { daily: '毎日', weekly: '毎週', monthly: '毎月', yearly: '毎年' };
const EVERY_UNITS = { daily: '日', weekly: '週', monthly: 'か月', yearly: '年' };
const SHIFT_LABELS = { none: '', previous_business_day: '休日は前の営業日', next_business_day: '休日は次の営業日' };

let ctx;
let panel;

export function mount(root, context) {
  $ = within(root);
  ctx = context;
  panel = root;
  $('recurrence-form').addEventListener('submit', submitRecurrence);
  $('rec-start').value = today();
  // The table names accounts: drawn again when they arrive (they may come after the recurrences).
  on('accounts', () => {
    fillAccountSelect($('rec-account'), state.accounts.filter((a) => !a.archived));
    render();
  });
}

export function load() {
  const isNewest = newest('recurrences');
  return optional(panel, '/recurrences', async () => {
    const { data } = await state.api.get(at('/recurrences'));
    if (!isNewest()) return;
    state.recurrences = data.items ?? [];
    render();
  });
}

export function clear() {
  state.recurrences = [];
  render();
}

/** A date that never breaks inside itself ("1/27(水)"). */
const day = (date, text = shortDay(date)) => h('time', { datetime: date, class: 'nowrap', text });

/** "毎月（11/1(日)から）", "2か月ごと（…から…まで）", then how a holiday moves it. */
function ruleCell(r) {
  const every = r.rule.interval > 1 ? `${r.rule.interval}${EVERY_UNITS[r.rule.freq]}ごと` : FREQ_LABELS[r.rule.freq];
  const shift = SHIFT_LABELS[r.shift];
  return h(
    'td',
    { class: 'rule' },
    h('span', { class: 'nowrap', text: every }),
    '（',
    day(r.rule.start),
    'から',
    r.rule.until ? [day(r.rule.until), 'まで'] : null,
    '）',
    shift ? h('small', { text: shift }) : null,
  );
}

export function render() {
  const rows = state.recurrences.map((r) => {
    const slip = r.slip;
    const what = [
      KIND_LABELS[slip.kind],
      slip.kind === 'transfer' ? `${accountName(slip.account)}→${accountName(slip.to_account)}` : categoryLabel(slip.category ?? UNCATEGORIZED),
      slip.memo,
    ].filter(Boolean).join(' ');
    return h(
      'tr',
      { dataset: { id: r.id } },
      h('td', { class: 'what' }, what, h('small', { class: 'account', text: accountName(slip.account) })),
      h('td', { class: `num ${slip.kind}`, text: amountIn(slip.amount, unitOf(slip.account)) }),
      ruleCell(r),
      h(
        'td',
        { class: 'next', 'data-label': '次回' },
        r.next_due ? day(r.next_due) : '終了',
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
      say(`くり返しを追加しました: ${memo || category || KIND_LABELS[slip.kind]} ${amountIn(amount, unitOf(slip.account))}`);
      $('recurrence-form').reset();
      $('rec-start').value = today();
      await ctx.refresh();
    } catch (error) {
      showError(error, on422(error, $('rec-amount')));
    }
  });
}
