// 立替 on the slip form of a shared ledger: who paid an expense from their own pocket, and each
// member's burden — shared equally (the API splits it, and splits a new amount again), or amounts
// typed per member that add up to the slip's amount. The 精算 view (settlement.js) shows what the
// nets come to. Shown only for expenses in a shared ledger whose API knows settlements.

import { PERSONAL } from '../api.js';
import { parseAmount, parseAmountIn, yen } from '../format.js';
import { memberName, on, state } from '../state.js';
import { FieldError, h, within } from '../ui.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#slip-payer, the element app.js hands it)
let field = null; // a field of the slip form 立替 sits in (its kind, account, amount, 円換算), handed by the form's owner

/**
 * The yen a slip comes to, as typed — what shares are in (the nets are yen): yen as typed, points at
 * their value, a currency by its 円換算 (jpy_amount). Throws when what it needs is not a valid amount. Pure.
 */
export function slipYen(unit, pointValue, amountText, jpyText) {
  if (!unit || unit === 'JPY') return parseAmount(amountText);
  if (unit === 'points') return parseAmountIn(amountText, 'points') * (pointValue ?? 1);
  return parseAmount(jpyText);
}

/** The yen of the slip in the form (slipYen of its account's unit). */
export function formYen() {
  const account = (state.accounts ?? []).find((a) => a.id === field('slip-account').value);
  return slipYen(account?.unit, account?.point_value, field('slip-amount').value, field('slip-jpy-amount').value);
}

/** The yen split equally among `users`: the yen that do not divide go one each to the first in user order. Pure. */
export function equalShares(amount, users) {
  const sorted = [...users].sort();
  if (!sorted.length) return {};
  const each = Math.floor(amount / sorted.length);
  const rest = amount - each * sorted.length;
  return Object.fromEntries(sorted.map((user, i) => [user, each + (i < rest ? 1 : 0)]));
}

/** What is left of the amount once the shares are counted (negative: too much). Pure. */
export function sharesLeft(amount, shares) {
  return amount - Object.values(shares).reduce((sum, x) => sum + (Number.isFinite(x) ? x : 0), 0);
}

/**
 * The part of a merge patch that turns slip `base`'s payer and shares into `wanted`'s ({paid_by,
 * shares} as the form reads them): nothing when they are the same. Pure.
 */
export function payerPatch(base, wanted) {
  const before = base.paid_by ?? null;
  const after = wanted.paid_by ?? null;
  if (after === null) return before === null ? {} : { paid_by: null };
  const patch = before === after ? {} : { paid_by: after };
  const shares = wanted.shares ?? 'equal';
  if (shares === 'equal') {
    if (base.shares_mode !== 'equal' || patch.paid_by) patch.shares = 'equal';
  } else {
    const same = base.shares_mode === 'custom' && JSON.stringify(sortedEntries(base.shares)) === JSON.stringify(sortedEntries(shares));
    if (!same || patch.paid_by) patch.shares = shares;
  }
  return patch;
}

const sortedEntries = (shares) => Object.entries(shares ?? {}).filter(([, v]) => v !== 0).sort(([a], [b]) => (a < b ? -1 : 1));

/** Whether the form offers 立替: an expense in a shared ledger whose API has settlements. */
function offered() {
  const routes = state.routes;
  return Boolean(state.household) && state.ledger !== PERSONAL && field('slip-kind').value === 'expense' && (!routes || routes.has('/ledgers/{ledger}/settlement'));
}

function members() {
  return (state.household?.members ?? []).map((m) => m.user);
}

export function mount(root) {
  panel = root;
  $ = within(root);
  $('slip-paid-by').addEventListener('change', sync);
  $('slip-shares-mode').addEventListener('change', sync);
  on('household', () => {
    fillPayers($('slip-paid-by').value);
    sync();
  });
  on('routes', sync);
}

/** The slip form 立替 is part of, handed by its owner (the slips view): the fields it reads, followed as they are typed. */
export function useForm(form) {
  field = within(form);
  field('slip-amount').addEventListener('input', updateLeft);
  field('slip-jpy-amount').addEventListener('input', updateLeft); // a foreign slip is shared by its yen
  field('slip-kind').addEventListener('change', sync);
}

function fillPayers(chosen, extra = null) {
  const users = members();
  if (extra && !users.includes(extra)) users.push(extra);
  $('slip-paid-by').replaceChildren(
    h('option', { value: '', text: 'なし（家計のお金で払った）' }),
    ...users.map((u) => h('option', { value: u, text: members().includes(u) ? memberName(u) : `${u}（退出済み）` })),
  );
  $('slip-paid-by').value = users.includes(chosen) ? chosen : '';
}

/** Show or hide the parts of 立替 the form's choices call for. */
export function sync() {
  const shown = offered();
  panel.hidden = !shown;
  const paid = shown && $('slip-paid-by').value !== '';
  $('slip-shares-row').hidden = !paid;
  const custom = paid && $('slip-shares-mode').value === 'custom';
  $('slip-share-rows').hidden = !custom;
  $('slip-shares-left').hidden = !paid;
  if (custom && $('slip-share-rows').children.length === 0) fillShares({});
  updateLeft();
}

function fillShares(shares) {
  const users = members();
  for (const user of Object.keys(shares)) if (!users.includes(user)) users.push(user);
  $('slip-share-rows').replaceChildren(
    ...users.map((user) =>
      h(
        'li',
        { class: 'share-row', dataset: { user } },
        h('label', { for: `share-${user}`, text: memberName(user) }),
        h('input', { id: `share-${user}`, class: 'share-amount', inputmode: 'numeric', autocomplete: 'off', placeholder: '0', value: shares[user] ?? '', oninput: updateLeft }),
      ),
    ),
  );
}

function typedShares() {
  return Object.fromEntries(
    [...$('slip-share-rows').children].map((row) => {
      const text = row.querySelector('.share-amount').value.trim();
      let value = 0;
      try {
        value = text ? parseAmount(text, { allowZero: true }) : 0;
      } catch {
        value = NaN;
      }
      return [row.dataset.user, value];
    }),
  );
}

function updateLeft() {
  if ($('slip-shares-left').hidden) return;
  let amount = 0;
  try {
    amount = formYen();
  } catch {
    amount = 0;
  }
  if ($('slip-shares-mode').value !== 'custom') {
    const each = Object.entries(equalShares(amount, members())).map(([user, share]) => `${memberName(user)} ${yen(share)}`);
    $('slip-shares-left').textContent = amount > 0 ? `均等: ${each.join('・')}` : '';
    return;
  }
  const left = sharesLeft(amount, typedShares());
  $('slip-shares-left').textContent = left === 0 ? '負担の合計は金額と一致しています' : left > 0 ? `負担の残り ${yen(left)}` : `負担が ${yen(-left)} 多すぎます`;
}

/** The form's {paid_by, shares} (nulls when nobody paid from their pocket), `amount` the slip's yen; throws FieldError naming the field to fix. */
export function readPayer(amount) {
  if (!offered() || !$('slip-paid-by').value) return { paid_by: null, shares: null };
  const paidBy = $('slip-paid-by').value;
  if ($('slip-shares-mode').value !== 'custom') return { paid_by: paidBy, shares: 'equal' };
  const shares = {};
  for (const row of $('slip-share-rows').children) {
    const input = row.querySelector('.share-amount');
    const text = input.value.trim();
    if (!text) continue;
    try {
      const value = parseAmount(text, { allowZero: true });
      if (value > 0) shares[row.dataset.user] = value;
    } catch (error) {
      throw new FieldError(input, `${memberName(row.dataset.user)}の負担: ${error.message}`);
    }
  }
  const left = sharesLeft(amount, shares);
  if (left !== 0) {
    const first = $('slip-share-rows').querySelector('.share-amount');
    throw new FieldError(first, `負担の合計が金額と一致しません（${left > 0 ? `残り ${yen(left)}` : `${yen(-left)} 多すぎます`}）`);
  }
  return { paid_by: paidBy, shares };
}

/** Put a slip's payer and shares into the form (none: nobody paid from their pocket). */
export function setPayer(slip) {
  fillPayers(slip.paid_by ?? '', slip.paid_by ?? null);
  $('slip-shares-mode').value = slip.paid_by && slip.shares_mode === 'custom' ? 'custom' : 'equal';
  $('slip-share-rows').replaceChildren();
  if (slip.paid_by && slip.shares_mode === 'custom') fillShares(slip.shares ?? {});
  sync();
}

/** Who paid, in the list of slips. */
export function payerText(slip) {
  return slip.paid_by ? `${memberName(slip.paid_by)}の立替` : '';
}
