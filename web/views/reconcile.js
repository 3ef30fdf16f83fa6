// 残高を合わせる: an account against its statement, bankbook or counted wallet (照合). The form takes the
// date and the balance the statement shows; as the balance is typed, a dry run says the difference
// with the ledger's cleared balance as of that day; when they differ, booking the difference as
// 使途不明金 is offered; then the reconciliation is committed. Each slip row of the month shows the
// cleared state of each of its sides (a transfer's receiving side, `to_cleared`, too): a tap toggles
// uncleared <-> cleared (PATCH under the slip's ETag); a reconciled side shows a lock naming its
// reconciliation and cannot be toggled, and its 解除 action (after a confirmation) unlocks it with
// ?unlock=true, back to uncleared, and says which reconciliation no longer holds.

import { ApiError, etagOf, query, segment } from '../api.js';
import { amountIn, minorDigits, parseAmountIn, today, unitLabel } from '../format.js';
import { at, emit, on, state, unitOf } from '../state.js';
import { busy, clearError, fillAccountSelect, h, say, showError, within } from '../ui.js';

let $ = null; // an element of the view by id, found under its root (#reconcile-panel, the element app.js hands it)

export const ADJUST_CATEGORY = '使途不明金';
export const CLEARED_LABELS = { uncleared: '未確認', cleared: '確認済み', reconciled: '照合済み' };
const TYPING_PAUSE_MS = 300; // the dry run waits for a pause in typing

let ctx;
let timer = null;
let asked = 0; // the newest dry run: older answers are dropped
let reconciliations = new Map(); // account id -> its reconciliations as last read
let reading = new Set(); // account ids being read

/**
 * The balance typed, in the account's unit: yen (commas, ￥/円 and full-width digits allowed) or
 * points as integers; a currency with at most its minor digits (USD 98.16 -> 9816 cents). Null when
 * it is not a balance. Pure.
 */
export function parseBalance(text, unit = 'JPY') {
  if (unit && unit !== 'JPY') {
    try {
      return parseAmountIn(text, unit, { allowNegative: true, allowZero: true });
    } catch {
      return null;
    }
  }
  const plain = String(text ?? '')
    .normalize('NFKC')
    .replace(/[,\s¥￥円]/g, '')
    .replace(/^−/, '-');
  if (!/^-?\d+$/.test(plain)) return null;
  const value = Number(plain);
  return Number.isSafeInteger(value) ? value : null;
}

/** What a difference (the statement less the ledger's cleared balance, in the account's unit) says. Pure. */
export function differenceText(difference, unit = 'JPY') {
  const money = (value) => amountIn(value, unit);
  if (difference === 0) return '差額はありません。照合できます。';
  if (difference > 0) return `差額 ${money(difference)}: 明細のほうが多く、家計簿に ${money(difference)} 足りません`;
  return `差額 ${money(difference)}: 家計簿のほうが ${money(-difference)} 多く残っています`;
}

/** The reconciliation that locked a slip's side on `account` dated `date`: the earliest whose date is that day or later. Pure. */
export function lockedBy(items, date) {
  return [...(items ?? [])].filter((r) => r.date >= date).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))[0] ?? null;
}

/** A slip's sides: its `account` (state in `cleared`) and a transfer's `to_account` (`to_cleared`). Pure. */
export function slipSides(slip) {
  const sides = [{ field: 'cleared', account: slip.account, receiving: false }];
  if (slip.kind === 'transfer' && slip.to_account) sides.push({ field: 'to_cleared', account: slip.to_account, receiving: true });
  return sides;
}

/**
 * How one side of a slip (`field`: cleared, or to_cleared for a transfer's receiving side) is shown:
 * its label, the title naming it, whether it is locked, the merge patch a tap sends (null when a tap
 * does nothing), and for a locked side the reconciliation it names (`by`) and the patch that unlocks
 * it with ?unlock=true (`unlock`: back to uncleared). Pure.
 */
export function clearedMark(slip, items, field = 'cleared', unit = 'JPY') {
  const stateOf = slip[field] ?? 'uncleared';
  const side = field === 'to_cleared' ? '入金側 ' : '';
  if (stateOf === 'reconciled') {
    const by = lockedBy(items, slip.date);
    const named = by ? `照合 ${by.date}（残高 ${amountIn(by.balance, unit)}、${by.id}）` : '照合';
    return { text: '🔒', label: `${side}${CLEARED_LABELS.reconciled}`, title: `${side}照合済み: ${named}で確定しています`, locked: true, patch: null, by, unlock: { [field]: null } };
  }
  if (stateOf === 'cleared') return { text: '✓', label: `${side}${CLEARED_LABELS.cleared}`, title: `${side}確認済み（タップで未確認に戻す）`, locked: false, patch: { [field]: null } };
  return { text: '○', label: `${side}${CLEARED_LABELS.uncleared}`, title: `${side}未確認（タップで確認済みにする）`, locked: false, patch: { [field]: 'cleared' } };
}

/** What unlocking a side asks before it is sent. Pure. */
export function unlockQuestion(by, unit = 'JPY') {
  const named = by ? `照合 ${by.date}（残高 ${amountIn(by.balance, unit)}）` : '照合';
  return `この伝票は${named}で確定しています。ロックを外して未確認に戻すと、その照合は成り立たなくなります。外しますか？`;
}

/** The reconciliations that no longer hold, in words (empty when all hold). Pure. */
export function brokenText(items, unit = 'JPY') {
  const broken = (items ?? []).filter((r) => r.holds === false);
  if (!broken.length) return '';
  return `成り立たなくなった照合: ${broken.map((r) => `${r.date}（残高 ${amountIn(r.balance, unit)}、${r.id}）`).join('、')}`;
}

/** The cleared marks of a slip row, one per side: a toggle, or a lock (with its 解除 action) for a reconciled side. */
export function clearedCell(slip, summary) {
  const cells = slipSides(slip).map((side) => sideCell(slip, side, summary));
  return cells.length === 1 ? cells[0] : h('span', { class: 'cleared-sides' }, ...cells);
}

function sideCell(slip, side, summary) {
  const mark = clearedMark(slip, reconciliations.get(side.account), side.field, unitOf(side.account));
  const current = slip[side.field] ?? 'uncleared';
  if (mark.locked) {
    return h(
      'span',
      { class: 'cleared-lock', dataset: { field: side.field } },
      h('span', { class: 'cleared-mark reconciled', role: 'img', title: mark.title, 'aria-label': `${mark.label}: ${summary}（${mark.title}）`, text: mark.text }),
      h('button', { type: 'button', class: 'unlock write', 'aria-label': `照合を解除: ${summary}`, text: '解除', onclick: (event) => unlock(event.currentTarget, slip, side, mark) }),
    );
  }
  return h('button', {
    type: 'button',
    class: `cleared-mark ${current} write`,
    dataset: { field: side.field },
    title: mark.title,
    'aria-label': `${mark.label}: ${summary}`,
    'aria-pressed': current === 'cleared' ? 'true' : 'false',
    text: mark.text,
    onclick: (event) => toggle(event.currentTarget, slip, mark.patch),
  });
}

async function toggle(button, slip, patch) {
  clearError();
  button.disabled = true;
  try {
    await state.api.request('PATCH', at(`/slips/${slip.date}/${segment(slip.id)}`), {
      json: patch,
      contentType: 'application/merge-patch+json',
      ifMatch: etagOf(slip.version),
    });
    say(Object.values(patch)[0] ? '確認済みにしました' : '未確認に戻しました');
  } catch (error) {
    if (error instanceof ApiError && (error.status === 412 || error.status === 404)) say('この伝票は先に変更されていました。読み込み直しました。');
    else showError(error);
  } finally {
    button.disabled = false;
  }
  await ctx.refresh();
}

/** A reconciled side unlocked (after a confirmation): ?unlock=true, back to uncleared; then says which reconciliation broke. */
async function unlock(button, slip, side, mark) {
  clearError();
  let told = '';
  try {
    // the reconciliation it names, read now if the row was drawn before the account's list came
    let items = reconciliations.get(side.account);
    if (!items) {
      items = (await state.api.get(at(`/accounts/${segment(side.account)}/reconciliations`))).data.items;
      reconciliations.set(side.account, items);
    }
    if (!window.confirm(unlockQuestion(lockedBy(items, slip.date), unitOf(side.account)))) return;
    button.disabled = true;
    await state.api.request('PATCH', at(`/slips/${slip.date}/${segment(slip.id)}${query({ unlock: 'true' })}`), {
      json: mark.unlock,
      contentType: 'application/merge-patch+json',
      ifMatch: etagOf(slip.version),
    });
    const { data } = await state.api.get(at(`/accounts/${segment(side.account)}/reconciliations`));
    told = `照合を解除し、未確認に戻しました。${brokenText(data.items, unitOf(side.account))}`;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 412 || error.status === 404)) told = 'この伝票は先に変更されていました。読み込み直しました。';
    else showError(error);
  } finally {
    button.disabled = false;
  }
  await ctx.refresh();
  if (told) {
    say(told);
    $('reconcile-broken').textContent = told;
  }
}

export function mount(root, context) {
  $ = within(root);
  ctx = context;
  $('reconcile-form').addEventListener('submit', commit);
  for (const id of ['reconcile-account', 'reconcile-date', 'reconcile-balance']) $(id).addEventListener('input', soon);
  $('reconcile-account').addEventListener('change', () => {
    syncUnit();
    soon();
  });
  on('accounts', () => {
    fillAccountSelect($('reconcile-account'), state.accounts.filter((a) => !a.archived));
    if (!$('reconcile-date').value) $('reconcile-date').value = today();
    syncUnit();
    soon();
  });
  on('slips', readLocks);
}

export function clear() {
  reconciliations = new Map();
  reading = new Set();
  $('reconcile-balance').value = '';
  $('reconcile-broken').textContent = '';
  show(null);
}

export function load() {
  reconciliations = new Map(); // read again as the slips render
  reading = new Set();
}

/** The reconciliations of the accounts whose reconciled sides are shown (each account read once). */
async function readLocks() {
  const wanted = new Set();
  for (const slip of state.slips) for (const side of slipSides(slip)) if (slip[side.field] === 'reconciled') wanted.add(side.account);
  const missing = [...wanted].filter((id) => !reconciliations.has(id) && !reading.has(id));
  if (!missing.length) return;
  for (const id of missing) reading.add(id);
  try {
    const read = await Promise.all(missing.map((id) => state.api.get(at(`/accounts/${segment(id)}/reconciliations`))));
    missing.forEach((id, i) => reconciliations.set(id, read[i].data.items));
    emit('reconciliations');
  } catch (error) {
    showError(error);
  } finally {
    for (const id of missing) reading.delete(id);
  }
}

/** The balance is typed in the chosen account's unit: the label says which, the keypad fits it. */
function syncUnit() {
  const unit = unitOf($('reconcile-account').value);
  $('reconcile-balance-label').textContent = `明細の残高（${unitLabel(unit)}）`;
  $('reconcile-balance').inputMode = minorDigits(unit) ? 'decimal' : 'numeric';
}

function soon() {
  clearTimeout(timer);
  timer = setTimeout(() => dryRun().catch(showError), TYPING_PAUSE_MS);
}

function wanted() {
  const account = $('reconcile-account').value;
  const unit = unitOf(account);
  return { account, unit, date: $('reconcile-date').value, balance: parseBalance($('reconcile-balance').value, unit) };
}

async function dryRun() {
  const { account, unit, date, balance } = wanted();
  const mine = ++asked;
  if (!account || !date || balance === null) return show(null);
  try {
    const { data } = await state.api.request('POST', at(`/accounts/${segment(account)}/reconciliations${query({ dry_run: 'true' })}`), { json: { date, balance } });
    if (mine === asked) show(data, unit);
  } catch (error) {
    if (mine !== asked) return;
    show(null);
    showError(error);
  }
}

/** The dry run's answer (null: nothing to say yet). */
function show(answer, unit = 'JPY') {
  const shown = answer !== null;
  $('reconcile-difference').textContent = shown ? differenceText(answer.difference, unit) : '';
  $('reconcile-uncleared').textContent = shown && answer.uncleared?.length ? `この日までの未確認の伝票: ${answer.uncleared.length} 件` : '';
  const off = shown && answer.difference !== 0;
  $('reconcile-adjust-field').hidden = !off;
  if (!off) $('reconcile-adjust').checked = false;
}

async function commit(event) {
  event.preventDefault();
  clearError();
  const { account, unit, date, balance } = wanted();
  if (!account || !date || balance === null) {
    const what = minorDigits(unit) ? `${unit}、小数点以下 ${minorDigits(unit)} 桁まで` : `${unitLabel(unit)}の整数`;
    showError(new Error(`口座、日付、明細の残高（${what}）を入れてください`), balance === null ? $('reconcile-balance') : undefined);
    return;
  }
  const adjust = $('reconcile-adjust').checked;
  await busy($('reconcile-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', at(`/accounts/${segment(account)}/reconciliations`), {
        json: adjust ? { date, balance, adjust: true, category: ADJUST_CATEGORY } : { date, balance },
      });
      const adjusted = data.adjustment_slip ? `、差額 ${amountIn(data.difference, unit)} を${ADJUST_CATEGORY}として記帳` : '';
      say(`照合しました: ${data.reconciled} 件の伝票を確定${adjusted}`);
      $('reconcile-balance').value = '';
      show(null);
      await ctx.refresh();
    } catch (error) {
      showError(error);
    }
  });
}
