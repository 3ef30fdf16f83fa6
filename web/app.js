// The page: a month of slips, balances (today, planned, as of a day), totals by category, the year,
// budgets, recurring slips, CSV import, in the caller's personal ledger or a shared household ledger
// (members, roles, invitations). Every write carries the ETag it was based on (If-Match); when the
// API answers 412 the page shows what changed, reloads, and leaves it to the person to re-apply
// their edit: nothing is overwritten.
//
// This file starts the page and holds what spans it: the month shown, loading every view, the
// ledger's data forgotten on a switch. Each panel is a module of its own in views/, with the same
// small interface:
//
//   mount(root, ctx)  once: bind its controls (root is its element; ctx: what it may ask of the page)
//   load()            read its data for the ledger and month shown, then render (optional)
//   render()          draw from `state` (state.js)
//   clear()           forget the ledger shown (optional)
//
// Views tell each other what changed through state.js's on/emit ('accounts', 'month', ...).

import { ApiError, PERSONAL, inviteTokenOf } from './api.js';
import * as conflict from './conflict.js';
import { UNCATEGORIZED, isMonth, monthLabel, monthOf, monthRange, setLedgerTimeZone, shiftMonth, today } from './format.js';
import { dropPending, emit, on, state } from './state.js';
import { $, h, say, showError } from './ui.js';
import * as accounts from './views/accounts.js';
import * as budgets from './views/budgets.js';
import * as cards from './views/cards.js';
import * as dataio from './views/dataio.js';
import * as imports from './views/imports.js';
import * as journal from './views/journal.js';
import * as ledgers from './views/ledgers.js';
import * as recurrences from './views/recurrences.js';
import * as report from './views/report.js';
import * as rules from './views/rules.js';
import * as payer from './views/payer.js';
import * as receipts from './views/receipts.js';
import * as reconcile from './views/reconcile.js';
import * as settings from './views/settings.js';
import * as settlement from './views/settlement.js';
import * as slips from './views/slips.js';
import * as tax from './views/tax.js';
import * as trends from './views/trends.js';
import * as webhooks from './views/webhooks.js';

const COMMON_CATEGORIES = ['食費', '日用品', '交通費', '住居費', '水道光熱費', '通信費', '医療費', '娯楽費', '交際費', '衣服', '給与', '賞与'];

/** Each view and the element it lives in. */
const VIEWS = [
  [settings, 'settings'],
  [ledgers, 'household-panel'],
  [slips, 'slips-panel'],
  [payer, 'slip-payer'],
  [receipts, 'slip-receipts-field'],
  [accounts, 'balances-panel'],
  [cards, 'cards-panel'],
  [reconcile, 'reconcile-panel'],
  [report, 'report-panel'],
  [trends, 'trends-panel'],
  [budgets, 'budgets-panel'],
  [settlement, 'settlement-panel'],
  [tax, 'tax-panel'],
  [recurrences, 'recurrences-panel'],
  [imports, 'import-panel'],
  [rules, 'rules-panel'],
  [journal, 'journal-panel'],
  [webhooks, 'webhooks-panel'],
  [dataio, 'data-panel'],
];
const views = VIEWS.map(([view]) => view);

/** What a view may ask of the page. */
const ctx = {
  refresh: refreshAll,
  clearLedger,
  connect,
  setMonth,
  recheckMembership: () => ledgers.recheckMembership(),
  firstAccount: (id) => slips.useAccount(id),
};

let refreshing = 0;

/** Every view reads its data again; true when all of them could. */
async function refreshAll() {
  const main = document.querySelector('main');
  refreshing += 1;
  main.setAttribute('aria-busy', 'true'); // every panel is being read again
  // An API that declares no ledger routes under /ledgers/{ledger}: a shared ledger has members only
  const dataless = state.ledger !== PERSONAL && state.routes && !state.routes.has('/ledgers/{ledger}/slips');
  const loads = dataless
    ? [ledgers.load(), Promise.reject(new Error('この API は共有の家計簿の伝票・口座・予算にまだ対応していません（メンバーと招待は使えます）'))]
    : views.filter((v) => v.load).map((v) => v.load());
  const results = await Promise.allSettled(loads);
  refreshing -= 1;
  if (!refreshing) main.removeAttribute('aria-busy');
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    showError(failed.reason);
    // a shared ledger answering 404 or 403: the caller may have been removed, or their role changed
    const refused = (r) => r.status === 'rejected' && r.reason instanceof ApiError && r.reason.code && [403, 404].includes(r.reason.status);
    if (results.some(refused)) await ledgers.recheckMembership();
  }
  return !failed;
}

/** Forget the shown ledger (another ledger or identity is about to load, or could not). */
function clearLedger() {
  dropPending(); // answers still on their way are dropped
  conflict.hideConflict();
  for (const view of views) view.clear?.();
}

async function detectRoutes() {
  state.routes = await state.api.routes();
  emit('routes');
}

/** The API's routes, who is asking, and every view's data; true when all of it could be read. */
async function connect() {
  await detectRoutes();
  return (await ledgers.identify()) && (await refreshAll());
}

// ---- the month ---------------------------------------------------------------------------------

function setMonth(month, { reload = true } = {}) {
  if (!isMonth(month)) return;
  state.month = month;
  state.asOf = monthRange(month).to;
  // What was said about the month before (its as-of status, the last import) no longer applies.
  say('');
  if (location.hash !== `#${month}`) history.replaceState(null, '', `#${month}`);
  $('month').value = month;
  $('asof-date').value = state.asOf ?? '';
  document.title = `家計簿 ${monthLabel(month)}`;
  emit('month', month);
  if (reload) refreshAll();
}

/** The categories offered while typing one: common ones, and those of the month's slips, totals and budgets. */
function renderCategories() {
  const seen = new Set(COMMON_CATEGORIES);
  for (const slip of state.slips) if (slip.category && slip.category !== UNCATEGORIZED) seen.add(slip.category);
  for (const c of state.report?.by_category ?? []) if (c.category !== UNCATEGORIZED) seen.add(c.category);
  for (const b of state.budgets) seen.add(b.category);
  $('category-list').replaceChildren(...[...seen].map((c) => h('option', { value: c })));
}

function bind() {
  $('month').addEventListener('change', () => setMonth($('month').value));
  $('month-prev').addEventListener('click', () => setMonth(shiftMonth(state.month, -1)));
  $('month-next').addEventListener('click', () => setMonth(shiftMonth(state.month, 1)));
  $('month-today').addEventListener('click', () => setMonth(monthOf(today())));
  window.addEventListener('hashchange', () => {
    const invited = inviteTokenOf(location.hash);
    if (invited) {
      history.replaceState(null, '', `#${state.month}`);
      ledgers.offerInvite(invited);
      return;
    }
    const month = location.hash.slice(1);
    if (isMonth(month) && month !== state.month) setMonth(month);
  });
  for (const topic of ['slips', 'report', 'budgets']) on(topic, renderCategories);
  on('forbidden', () => ledgers.recheckMembership());
}

/** "Today" is the ledger's day: the API says which time zone its days are counted in (Asia/Tokyo by default). */
async function readTimeZone() {
  try {
    const { data } = await state.api.request('GET', '/health', { auth: false });
    if (data?.time_zone) setLedgerTimeZone(data.time_zone);
  } catch {
    // an API that does not answer yet: the default (Asia/Tokyo) until it does
  }
}

async function main() {
  conflict.mount();
  for (const [view, id] of VIEWS) view.mount($(id), ctx);
  bind();
  const fromHash = location.hash.slice(1);
  const invited = inviteTokenOf(location.hash); // a link to join a shared ledger: #invite=<token>
  await readTimeZone();
  setMonth(isMonth(fromHash) ? fromHash : monthOf(today()), { reload: false });
  await connect();
  if (invited) ledgers.offerInvite(invited);
  document.body.dataset.ready = 'true';
}

main();
