// すばやく記録: an everyday expense in three taps on a phone — the amount first (a numeric keypad),
// one of the household's usual categories as a chip, 記録. The chips come from what the page reads
// anyway and three months' totals by category (a few rows each, however many slips there are): the
// categories used most often among the month's slips shown, then those most spent on. The day is the
// ledger's today and the account the one this browser used last in this ledger (else the one of the
// latest expense dated today or earlier among the month's slips, else the one that spent most).
// Without a connection the slip waits in the outbox (outbox.js) and goes out when it returns; a page
// opened without one offers the chips and the account this browser kept when it last read them
// (kept.js), the accounts kept by the accounts view, and today.

import { query } from '../api.js';
import { amountIn, busiestAccount, categoryLabel, latestAccount, monthOf, parseAmount, shiftMonth, today, usualCategories } from '../format.js';
import { keep, kept, unreachable } from '../kept.js';
import { at, newest, on, state, unitOf } from '../state.js';
import { FieldError, busy, clearError, fail, fillAccountSelect, h, say, showError, within } from '../ui.js';
import { identity, sendSlip } from '../outbox.js';

let $ = null; // an element of the view by id, found under its root (#quick-panel, the element app.js hands it)

/** Offered before a household has slips of its own (and to fill up the chips). */
const EVERYDAY = ['食費', '日用品', '交通費', '外食', '娯楽費', '医療費'];
const CHIPS = 6;
const LOOK_BACK_MONTHS = 3; // the household's usual categories: its spending of the last three months

let ctx;
let totals = []; // GET /reports/monthly of the last three months (for the chips and the account)
let offline = null; // {chips, account} this browser kept, while the totals could not be read for want of a connection
let chosen = '';

const accountKey = () => `kakeibo.quick.account.${identity()}.${state.ledger}`;

function remembered() {
  try {
    return localStorage.getItem(accountKey()) ?? '';
  } catch {
    return '';
  }
}

function remember(account) {
  try {
    localStorage.setItem(accountKey(), account);
  } catch {
    // storage disabled: the latest expense's account is preselected instead
  }
}

export function mount(root, context) {
  $ = within(root);
  ctx = context;
  $('quick-date').value = today(); // whatever can be read, the day is today
  $('quick-form').addEventListener('submit', submit);
  $('quick-chips').addEventListener('click', (event) => {
    const chip = event.target.closest('button[data-category]');
    if (chip) choose(chip.dataset.category === chosen ? '' : chip.dataset.category);
  });
  $('quick-account').addEventListener('change', () => {
    $('quick-account').dataset.touched = 'yes';
  });
  on('accounts', renderAccounts);
  on('slips', render); // the month's slips count too
}

export async function load() {
  const isNewest = newest('quick');
  const latest = monthOf(today());
  const months = Array.from({ length: LOOK_BACK_MONTHS }, (_, i) => shiftMonth(latest, -i));
  let answers;
  try {
    answers = await Promise.all(months.map((month) => state.api.get(at(`/reports/monthly${query({ month })}`))));
  } catch (error) {
    if (isNewest()) {
      offline = unreachable(error) && !totals.length ? kept('quick') : null;
      render(); // today, and what was kept: the form is usable without the totals
    }
    throw error;
  }
  if (!isNewest()) return;
  totals = answers.map(({ data }) => data);
  offline = null;
  render();
}

export function clear() {
  totals = [];
  offline = null;
  chosen = '';
  $('quick-amount').value = '';
  render();
}

/** The chips offered: the household's usual categories, else (no connection) those kept, then everyday ones. */
function chipsOffered() {
  return usualCategories({ slips: state.slips, totals }, CHIPS, [...(offline?.chips ?? []), ...EVERYDAY]);
}

/** The account preselected: the one used last here, else the latest expense's (not one dated ahead), else the busiest, else the one kept. */
function defaultAccount(open) {
  const day = today();
  return [remembered(), latestAccount(state.slips, day), busiestAccount(totals), offline?.account].find((id) => id && open.some((a) => a.id === id)) ?? null;
}

export function render() {
  $('quick-date').value = today();
  const chips = chipsOffered();
  if (totals.length) keep('quick', { chips, account: defaultAccount(state.accounts.filter((a) => !a.archived)) ?? kept('quick')?.account ?? null });
  if (chosen && !chips.includes(chosen)) chips.push(chosen);
  $('quick-chips').replaceChildren(
    ...chips.map((category) =>
      h('button', { type: 'button', class: 'chip', 'aria-pressed': String(category === chosen), dataset: { category }, text: category }),
    ),
  );
  renderAccounts();
}

function renderAccounts() {
  const select = $('quick-account');
  const open = state.accounts.filter((a) => !a.archived);
  const had = select.options.length > 0;
  fillAccountSelect(select, open);
  if (had && open.some((a) => a.id === select.value) && select.dataset.touched) return; // the person chose one
  const wanted = defaultAccount(open);
  if (wanted) select.value = wanted;
}

function choose(category) {
  chosen = category;
  for (const chip of $('quick-chips').children) chip.setAttribute('aria-pressed', String(chip.dataset.category === chosen));
}

function read() {
  let amount;
  try {
    amount = parseAmount($('quick-amount').value);
  } catch (error) {
    throw new FieldError($('quick-amount'), error.message);
  }
  const account = $('quick-account').value;
  if (!account) throw new FieldError($('quick-account'), '口座を選んでください（口座と残高で追加できます）');
  const date = $('quick-date').value || today();
  return { date, kind: 'expense', amount, account, ...(chosen ? { category: chosen } : {}) };
}

async function submit(event) {
  event.preventDefault();
  clearError();
  let body;
  try {
    body = read();
  } catch (error) {
    fail(error);
    return;
  }
  await busy($('quick-submit'), async () => {
    try {
      const what = `${body.date.slice(5).replace('-', '/')} ${body.category ?? '未分類'} ${amountIn(body.amount, unitOf(body.account))}`;
      const slip = await sendSlip(at('/slips'), body, { summary: what });
      remember(body.account);
      delete $('quick-account').dataset.touched;
      if (slip.queued) {
        // no connection: it waits (shown under the header) and goes out when the connection returns
        say(`送信待ちにしました: ${what}（接続が戻ると送ります）`);
        $('quick-amount').value = '';
        choose('');
        $('quick-amount').focus();
        return;
      }
      say(`記録しました: ${slip.date.slice(5).replace('-', '/')} ${categoryLabel(slip.category)} ${amountIn(slip.amount, unitOf(slip.account))}（No. ${slip.no}）`);
      $('quick-amount').value = '';
      choose('');
      if (monthOf(slip.date) === state.month) await ctx.refresh();
      else render();
      $('quick-amount').focus();
    } catch (error) {
      showError(error, error?.status === 422 ? $('quick-amount') : undefined);
    }
  });
}
