// カードの請求: each credit card with billing — this cycle so far, the next payment (date and amount),
// and its statements (締め日, 引き落とし日, 利用, 返金, 請求額, 支払済み); and the card's billing
// (締め日, 引き落とし日, 翌月/翌々月, 引き落とし口座, 土日祝の扱い) in the account editor, saved under
// the account's ETag (If-Match; a 412 reads the account again and says so).

import { ApiError, etagOf, segment } from '../api.js';
import { canWrite, longDay, shortDay, today, yen } from '../format.js';
import { at, newest, on, state } from '../state.js';
import { FieldError, busy, clearError, fail, fillAccountSelect, h, on422, say, showError, within } from '../ui.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#cards-panel, the element app.js hands it)
let editor = null; // an element of the account editor by id (the balances' 口座を管理, where a card's billing is set), handed by its owner

export const SHIFT_LABELS = { none: 'そのまま', previous_business_day: '前の営業日', next_business_day: '次の営業日' };
const STATE_LABELS = { open: '利用中', closed: '締め済み', paid: '支払済み' };

let ctx;
let statements = new Map(); // card id -> statements as last read

/** A billing day as the form shows it, and back. Pure. */
export const dayValue = (day) => (day === 'last' ? 'last' : String(day));
export const dayLabel = (day) => (day === 'last' || day === -1 ? '末日' : `${day}日`);

/** The billing the form asks for (or a FieldError naming the control at fault). Pure. */
export function billingBody({ closing, payment, offset, payFrom, shift }) {
  const day = (value, name) => {
    if (value === 'last') return 'last';
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1 || number > 31) throw new FieldError(name, '1〜31 日か末日を選んでください');
    return number;
  };
  if (!payFrom) throw new FieldError('pay_from', '引き落とし口座（銀行口座）を選んでください');
  return {
    closing_day: day(closing, 'closing_day'),
    payment_day: day(payment, 'payment_day'),
    payment_month_offset: Number(offset) === 2 ? 2 : 1,
    pay_from: payFrom,
    shift: shift in SHIFT_LABELS ? shift : 'none',
  };
}

/**
 * What the card's header says: the cycle running on `day` (its charges so far) and the next payment
 * still to be debited (the oldest cycle closed and not paid whose payment day is `day` or later:
 * cycles debited before the billing was set stay unpaid here). Pure.
 */
export function summary(items, day) {
  const open = items.find((s) => s.state === 'open') ?? null;
  const next = items.find((s) => s.state === 'closed' && s.payment_date >= day) ?? null;
  return { open, next };
}

export function mount(root, context) {
  panel = root;
  $ = within(root);
  ctx = context;
  on('accounts', () => {
    fillBillingForm();
    loadStatements().catch(showError);
  });
  on('role', render);
}

export function clear() {
  statements = new Map();
  render();
}

const cards = () => state.accounts.filter((a) => a.type === 'credit' && a.billing && !a.archived);

async function loadStatements() {
  const isNewest = newest('cards');
  const shown = cards();
  const read = await Promise.all(shown.map((card) => state.api.get(at(`/accounts/${segment(card.id)}/statements`))));
  if (!isNewest()) return;
  statements = new Map(shown.map((card, i) => [card.id, read[i].data.items]));
  render();
}

export function render() {
  const shown = cards().filter((card) => statements.has(card.id));
  panel.hidden = shown.length === 0;
  $('card-list').replaceChildren(...shown.map((card) => cardSection(card, statements.get(card.id))));
}

function cardSection(card, items) {
  const { open, next } = summary(items, today());
  const billing = card.billing;
  const terms = `${dayLabel(billing.closing_day)}締め・${billing.payment_month_offset === 2 ? '翌々月' : '翌月'}${dayLabel(billing.payment_day)}払い（${SHIFT_LABELS[billing.shift]}）`;
  const error = card.payments?.last_error;
  return h(
    'article',
    { class: 'card-statement', dataset: { card: card.id } },
    h('h3', { text: card.name }),
    h('p', { class: 'sub', text: terms }),
    h(
      'dl',
      { class: 'card-summary' },
      h('dt', { text: '次回の引き落とし' }),
      h('dd', { class: 'next', text: next ? `${longDay(next.payment_date)} ${yen(next.amount_due)}` : 'ありません' }),
      h('dt', { text: '今回の利用（締め前）' }),
      h('dd', { class: 'open', text: open ? `${yen(open.charges - open.refunds)}（${shortDay(open.closing_date)}締め）` : '—' }),
    ),
    error ? h('p', { class: 'error card-error', role: 'status', text: `前回の引き落としを記帳できませんでした: ${error.detail}` }) : null,
    h(
      'div',
      { class: 'table-box' },
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden', text: `${card.name}の請求` }),
        h(
          'thead',
          {},
          h('tr', {}, ...['締め日', '引き落とし日', '利用', '返金', '請求額', '支払済み', '状態'].map((t, i) => h('th', { scope: 'col', class: i >= 2 && i <= 5 ? 'num' : undefined, text: t }))),
        ),
        h(
          'tbody',
          {},
          ...[...items].reverse().map((s) =>
            h(
              'tr',
              { dataset: { closing: s.closing_date, state: s.state } },
              h('th', { scope: 'row', text: `${shortDay(s.closing_date)}締め` }),
              h('td', { 'data-label': '引き落とし日', text: shortDay(s.payment_date) }),
              h('td', { class: 'num charges', 'data-label': '利用', text: yen(s.charges) }),
              h('td', { class: 'num', 'data-label': '返金', text: yen(s.refunds) }),
              h('td', { class: 'num due', 'data-label': '請求額', text: yen(s.amount_due) }),
              h('td', { class: 'num paid', 'data-label': '支払済み', text: yen(s.paid) }),
              h('td', { class: 'state', 'data-label': '状態', text: STATE_LABELS[s.state] }),
            ),
          ),
        ),
      ),
    ),
  );
}

// ---- billing in the account editor -------------------------------------------------------------

/** The account editor a card's billing is set in (its 請求の設定 form, the account chosen), handed by its owner (the balances view). */
export function useEditor(element) {
  editor = within(element);
  editor('billing-form').addEventListener('submit', submitBilling);
  editor('billing-remove').addEventListener('click', removeBilling);
  editor('manage-account').addEventListener('change', fillBillingForm);
  const days = () => [...Array.from({ length: 31 }, (_, i) => h('option', { value: String(i + 1), text: `${i + 1}日` })), h('option', { value: 'last', text: '末日' })];
  editor('billing-closing').replaceChildren(...days());
  editor('billing-payment').replaceChildren(...days());
}

/** The billing fieldset shows for a credit card, filled with its billing as last read. */
function fillBillingForm() {
  const account = state.accounts.find((a) => a.id === editor('manage-account').value);
  const credit = account?.type === 'credit';
  editor('billing-form').hidden = !credit || !canWrite(state.role);
  if (!credit) return;
  fillAccountSelect(editor('billing-pay-from'), state.accounts.filter((a) => a.type === 'bank' && !a.archived), { placeholder: '銀行口座を選ぶ' });
  const billing = account.billing;
  editor('billing-closing').value = billing ? dayValue(billing.closing_day) : '15';
  editor('billing-payment').value = billing ? dayValue(billing.payment_day) : '10';
  editor('billing-offset').value = String(billing?.payment_month_offset ?? 1);
  editor('billing-pay-from').value = billing?.pay_from ?? '';
  editor('billing-shift').value = billing?.shift ?? 'next_business_day';
  editor('billing-remove').hidden = !billing;
  editor('billing-state').textContent = billing
    ? `次回の引き落とし: ${account.payments ? longDay(account.payments.next_payment) : '—'}`
    : '締め日と引き落とし日を設定すると、請求額が計算され、引き落とし日に銀行口座から自動で振り替えます。';
}

async function saveBilling(account, billing, button, said) {
  await busy(button, async () => {
    try {
      await state.api.request('PATCH', at(`/accounts/${segment(account.id)}`), {
        json: { billing },
        contentType: 'application/merge-patch+json',
        ifMatch: etagOf(account.version),
      });
      say(said);
      await ctx.refresh();
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) {
        await ctx.refresh();
        showError(new Error(`保存できませんでした: 口座「${account.name}」は別の画面で先に変更されていました。最新の内容を読み込みました`));
      } else {
        const fields = { closing_day: 'billing-closing', payment_day: 'billing-payment', pay_from: 'billing-pay-from', shift: 'billing-shift' };
        const named = error instanceof ApiError ? (error.problem?.errors ?? []).map((e) => fields[e.loc?.at(-1)]).find(Boolean) : undefined;
        showError(error, on422(error, editor(named ?? 'billing-closing')));
      }
    }
  });
}

async function submitBilling(event) {
  event.preventDefault();
  clearError();
  const account = state.accounts.find((a) => a.id === editor('manage-account').value);
  if (!account) return;
  let billing;
  try {
    billing = billingBody({
      closing: editor('billing-closing').value,
      payment: editor('billing-payment').value,
      offset: editor('billing-offset').value,
      payFrom: editor('billing-pay-from').value,
      shift: editor('billing-shift').value,
    });
  } catch (error) {
    const controls = { closing_day: 'billing-closing', payment_day: 'billing-payment', pay_from: 'billing-pay-from' };
    fail(error instanceof FieldError && typeof error.field === 'string' ? new FieldError(editor(controls[error.field]), error.message) : error);
    return;
  }
  await saveBilling(account, billing, editor('billing-submit'), `締め日と引き落とし日を保存しました: ${account.name}`);
}

async function removeBilling() {
  clearError();
  const account = state.accounts.find((a) => a.id === editor('manage-account').value);
  if (!account?.billing) return;
  await saveBilling(account, null, editor('billing-remove'), `締め日と引き落とし日の設定を外しました: ${account.name}`);
}
