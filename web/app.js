// The page: a month of slips, balances (today, planned, as of a day), totals by category, the year,
// budgets, recurring slips, CSV import, in the caller's personal ledger or a shared household ledger
// (members, roles, invitations). Every write carries the ETag it was based on (If-Match); when the
// API answers 412 the page shows what changed, reloads, and leaves it to the person to re-apply
// their edit: nothing is overwritten.
//
// This file starts the page and holds what spans it: the views behind hash routes (#/slips/2026-11:
// the tabs, the back button; only the panels of the route shown read their data), the month shown,
// the ledger's data forgotten on a switch. Each panel is a module of its own in views/, with the same
// small interface:
//
//   mount(root, ctx, handed)  once: bind its controls (root is its element, everything it finds is
//                     under it; ctx: what it may ask of the page; handed: what it acts on outside its
//                     root, handed by the page — the header's ledger switcher, a dialog, the foot's link)
//   load()            read its data for the ledger and month shown, then render (optional)
//   render()          draw from `state` (state.js)
//   clear()           forget the ledger shown (optional)
//
// Views tell each other what changed through state.js's on/emit ('accounts', 'month', ...).

import { Api, ApiError, PERSONAL, inviteTokenOf, normaliseBase, preferredLanguage } from './api.js';
import { Session, signInConfigured } from './auth.js';
import * as conflict from './conflict.js';
import { forgetAll, keep, kept } from './kept.js';
import * as outbox from './outbox.js';
import { UNCATEGORIZED, isMonth, monthLabel, monthOf, monthRange, setLedgerTimeZone, shiftMonth, today } from './format.js';
import { dropPending, emit, on, state } from './state.js';
import { $, h, say, showError } from './ui.js';
import * as accounts from './views/accounts.js';
import { forecast, goalsView, networth } from './views/ahead.js';
import * as alerts from './views/alerts.js';
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
import * as quick from './views/quick.js';
import * as receipts from './views/receipts.js';
import * as reconcile from './views/reconcile.js';
import * as settings from './views/settings.js';
import * as signin from './views/signin.js';
import * as settlement from './views/settlement.js';
import * as slips from './views/slips.js';
import * as tax from './views/tax.js';
import * as trends from './views/trends.js';
import * as tokens from './views/tokens.js';
import * as webhooks from './views/webhooks.js';

const COMMON_CATEGORIES = ['食費', '日用品', '交通費', '住居費', '水道光熱費', '通信費', '医療費', '娯楽費', '交際費', '衣服', '給与', '賞与'];

// ---- the views behind hash routes ---------------------------------------------------------------
// #/slips, #/accounts, … (then the month: #/slips/2026-11). A route is one entry here (its tab);
// a panel is one entry in VIEWS, naming the routes it is shown on.

/** The page's routes, in the order of the tabs. */
const ROUTES = [
  { path: 'slips', label: '伝票', icon: '✎' },
  { path: 'accounts', label: '口座', icon: '¥' },
  { path: 'reports', label: '集計', icon: '◔' },
  { path: 'budgets', label: '予算', icon: '▤' },
  { path: 'cards', label: 'カード', icon: '▭' },
  { path: 'household', label: '家族', icon: '⌂' },
  { path: 'settings', label: '設定', icon: '⚙' },
];
const HOME = 'slips';
const EVERY = ROUTES.map((r) => r.path);

/**
 * Each view, the element it lives in, and the routes it is shown on: only the views of the route
 * shown read their data. `reads`: routes that need its data without showing it (the slip form
 * offers the accounts); `EVERY`: the page as a whole (who you are, the ledger's journal). `hands`:
 * the page's own elements outside its root that it acts on, handed to its mount by name.
 */
const VIEWS = [
  { view: settings, id: 'settings', on: EVERY, hands: { docs: 'swagger-link' } },
  { view: alerts, id: 'alerts', on: EVERY },
  { view: ledgers, id: 'household-panel', on: ['household'], reads: EVERY, hands: { switcher: 'ledger-nav' } },
  { view: quick, id: 'quick-panel', on: ['slips'] },
  { view: slips, id: 'slips-panel', on: ['slips'] },
  { view: payer, id: 'slip-payer', on: ['slips'] },
  { view: receipts, id: 'slip-receipts-field', on: ['slips'] },
  { view: accounts, id: 'balances-panel', on: ['accounts', 'cards'], reads: ['slips'] }, // a card's billing is set on its account
  { view: cards, id: 'cards-panel', on: ['cards'] },
  { view: reconcile, id: 'reconcile-panel', on: ['accounts'], reads: ['slips'] }, // each slip row's cleared mark
  { view: forecast, id: 'forecast-panel', on: ['accounts'] },
  { view: goalsView, id: 'goals-panel', on: ['accounts'] },
  { view: report, id: 'report-panel', on: ['reports'] },
  { view: networth, id: 'networth-panel', on: ['reports'] },
  { view: trends, id: 'trends-panel', on: ['reports'] },
  { view: budgets, id: 'budgets-panel', on: ['budgets'] },
  { view: settlement, id: 'settlement-panel', on: ['household'] },
  { view: tax, id: 'tax-panel', on: ['reports'] },
  { view: recurrences, id: 'recurrences-panel', on: ['slips'] },
  { view: imports, id: 'import-panel', on: ['slips'] },
  { view: rules, id: 'rules-panel', on: ['settings'] },
  { view: journal, id: 'journal-panel', on: ['household'], reads: EVERY, hands: { history: 'slip-history-dialog' } },
  { view: webhooks, id: 'webhooks-panel', on: ['settings'] },
  { view: tokens, id: 'tokens-panel', on: ['settings'] },
  { view: dataio, id: 'data-panel', on: ['settings'] },
];
const views = VIEWS.map(({ view }) => view);

/** The views whose data the route shown needs. */
const viewsOf = (route) => VIEWS.filter((v) => v.on.includes(route) || v.reads?.includes(route)).map(({ view }) => view);

/** What a view may ask of the page. */
const ctx = {
  refresh: refreshAll,
  clearLedger,
  connect,
  setMonth,
  recheckMembership: () => ledgers.recheckMembership(),
  firstAccount: (id) => slips.useAccount(id),
  language: preferredLanguage(),
  session: () => session,
  localNames: () => localNames,
  useApi,
  askSignIn,
  cancelSignIn,
  signedIn,
  signOut,
};

// ---- who is asking -------------------------------------------------------------------------------
// The page's config.json (published beside it by `make deploy`; served by the local front) names the
// API and the user pool. Signed in: the person's tokens (auth.js). Not signed in: the sign-in panel,
// unless config.json allows local user names (`local_names`: the local front without LOCAL_AUTH=strict).

const PAGE_CONFIG_KEY = 'kakeibo.pageConfig'; // the last config.json read: the page also starts offline
let pageConfig = {};
let session = null; // auth.js Session when config.json names a user pool
let localNames = true; // `Bearer <name>` is how this page speaks when nobody is signed in

async function readPageConfig() {
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (response.ok) {
      const config = await response.json();
      try {
        localStorage.setItem(PAGE_CONFIG_KEY, JSON.stringify(config));
      } catch {
        // storage disabled: read again at the next start
      }
      return config;
    }
    if (response.status === 404) return {}; // no config.json: a page beside an API with names only (as before sign-in)
  } catch {
    // no connection: the config read last time
  }
  try {
    return JSON.parse(localStorage.getItem(PAGE_CONFIG_KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
}

/** 'in' (a person signed in), 'names' (a local user name), or 'out' (the sign-in panel). */
function authMode() {
  if (session?.signedIn) return 'in';
  return localNames ? 'names' : 'out';
}

/** The API client for who is asking now; the outbox and what is kept follow that identity. */
function useApi() {
  const mode = authMode();
  let base = '';
  try {
    base = normaliseBase(pageConfig.api ?? '');
  } catch {
    base = '';
  }
  // signed in, or signed out after a refused refresh: their `sub` (their outbox waits for them)
  const sub = mode === 'names' ? null : (session?.who?.sub ?? null);
  state.config = { ...state.config, base, sub };
  state.api = new Api(state.config, undefined, ctx.language, mode === 'in' ? session : null);
  document.body.dataset.auth = mode;
}

/** The sign-in panel (the rest of the page hidden unless local names let it be used without). */
function askSignIn({ note = '', cancel = localNames } = {}) {
  document.body.dataset.signin = 'true';
  signin.show({ note, cancel, email: session?.who?.email ?? null });
  $('signin-title').focus();
}

function cancelSignIn() {
  signin.hide();
  delete document.body.dataset.signin;
}

/** Someone signed in: their page, what waits in their outbox sent, an invitation kept for them offered. */
async function signedIn() {
  // their page is being read from the moment it shows (main says so: aria-busy) until every view has its data
  await reading(async () => {
    delete document.body.dataset.signin;
    useApi();
    settings.render();
    clearLedger();
    await outbox.render();
    await connect();
  });
  if (navigator.onLine !== false) outbox.flush();
  const invited = signin.takeInvite();
  if (invited) offerInvite(invited);
}

/** Sign out: RevokeToken, then nothing of the person stays here (what waits, what was kept, the tokens). */
async function signOut() {
  const words = signin.currentWords();
  const waiting = await outbox.waiting();
  if (waiting.length && !window.confirm(words.discard(waiting.length))) return false;
  await outbox.forgetWaiting();
  forgetAll();
  try {
    localStorage.removeItem('kakeibo.ledger');
    for (const key of Object.keys(localStorage)) if (key.startsWith('kakeibo.quick.') || key.startsWith('kakeibo.kept')) localStorage.removeItem(key);
  } catch {
    // storage disabled: nothing was kept
  }
  const revoked = await session.signOut();
  say(''); // nothing said about their ledger stays either
  useApi();
  clearLedger();
  settings.render();
  await outbox.render();
  const note = revoked ? words.signedOut : words.signedOutOffline;
  if (authMode() === 'out') askSignIn({ note });
  else {
    say(note);
    await connect();
  }
  return true;
}

/** The tokens were refused (a refresh the pool would not do): sign in again; the outbox stays. */
function expired() {
  useApi();
  settings.render();
  askSignIn({ note: signin.currentWords().expired });
}

function offerInvite(token) {
  history.replaceState(null, '', hashOf('household', state.month));
  showRoute('household');
  refreshAll();
  ledgers.offerInvite(token);
}

let readsRunning = 0; // reads under way (reading): main is aria-busy while any runs
let connected = false; // the last read of the page's data succeeded (not so after a start without a connection)

/** While `work` runs, main is marked busy (aria-busy): its panels are being read; nested reads keep the mark until the last ends. */
async function reading(work) {
  const main = document.querySelector('main');
  readsRunning += 1;
  main.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    readsRunning -= 1;
    if (!readsRunning) main.removeAttribute('aria-busy');
  }
}

/** Every view of the route shown reads its data again; true when all of them could. */
async function refreshAll() {
  // An API that declares no ledger routes under /ledgers/{ledger}: a shared ledger has members only
  const dataless = state.ledger !== PERSONAL && state.routes && !state.routes.has('/ledgers/{ledger}/slips');
  const loads = dataless
    ? [ledgers.load(), Promise.reject(new Error('この API は共有の家計簿の伝票・口座・予算にまだ対応していません（メンバーと招待は使えます）'))]
    : viewsOf(state.route).filter((v) => v.load).map((v) => v.load());
  const results = await reading(() => Promise.allSettled(loads)); // every panel is being read again
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    showError(failed.reason);
    if (failed.reason instanceof ApiError && failed.reason.status === 0) connected = false; // read again when the connection returns
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

/**
 * The API's routes, who is asking, and every view's data; true when all of it could be read.
 * Without a connection the views still load: each fills what it can from what this browser kept
 * (kept.js: the accounts, the quick entry's chips), so a slip can be entered and wait in the outbox.
 */
async function connect() {
  return reading(async () => {
    await detectRoutes();
    const identified = await ledgers.identify();
    const read = identified !== false && (await refreshAll());
    connected = identified === true && read;
    return connected;
  });
}

let reconnecting = null;

/**
 * The connection is back: a page that could not read its data (opened offline, or cut off while
 * reading) reads it now. The first requests after the browser says so may still fail: tried again,
 * a little later each time, while the browser stays online.
 */
function reconnect() {
  if (authMode() === 'out') return null; // nobody to read the data of
  reconnecting ??= (async () => {
    for (let attempt = 0; attempt < 4 && !connected && navigator.onLine !== false; attempt += 1) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      if (await connect()) say('接続が戻りました');
    }
  })().finally(() => {
    reconnecting = null;
  });
  return reconnecting;
}

// ---- the month ---------------------------------------------------------------------------------

/** The address of a route and month: #/slips/2026-11. */
const hashOf = (route, month) => `#/${route}/${month}`;

/** What an address asks for: {route, month} (either may be null), or null when it names neither. */
export function parseHash(hash) {
  const text = (hash ?? '').replace(/^#/, '');
  const match = /^\/([a-z-]+)\/?(\d{4}-\d{2})?$/.exec(text);
  if (match) return { route: EVERY.includes(match[1]) ? match[1] : HOME, month: isMonth(match[2]) ? match[2] : null };
  if (isMonth(text)) return { route: null, month: text }; // an older link: #2026-11
  return null;
}

function setMonth(month, { reload = true } = {}) {
  if (!isMonth(month)) return;
  state.month = month;
  state.asOf = monthRange(month).to;
  // What was said about the month before (its as-of status, the last import) no longer applies.
  say('');
  const hash = hashOf(state.route, month);
  if (location.hash !== hash) history.replaceState(null, '', hash);
  $('month').value = month;
  $('asof-date').value = state.asOf ?? '';
  document.title = `家計簿 ${monthLabel(month)}`;
  emit('month', month);
  if (reload) refreshAll();
}

/** Show a route's panels (the others are hidden, not removed) and mark its tab. */
function showRoute(route) {
  state.route = route;
  document.body.dataset.route = route;
  for (const { id, on: shownOn } of VIEWS) $(id).classList.toggle('off-route', !shownOn.includes(route));
  for (const link of $('views-nav').querySelectorAll('a')) {
    if (link.dataset.route === route) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

/** The tabs: one link per route (the back button walks through them). */
function renderNav() {
  $('views-nav-list').replaceChildren(
    ...ROUTES.map(({ path, label, icon }) =>
      h(
        'li',
        {},
        h(
          'a',
          { href: `#/${path}`, dataset: { route: path }, onclick: (event) => goRoute(event, path) },
          h('span', { class: 'tab-icon', 'aria-hidden': 'true', text: icon }),
          h('span', { class: 'tab-label', text: label }),
        ),
      ),
    ),
  );
}

/** A tab: a new history entry with the month kept (so the back button comes back here). */
function goRoute(event, route) {
  event.preventDefault();
  if (route === state.route) return;
  history.pushState(null, '', hashOf(route, state.month));
  followHash();
}

/** The address changed (a tab, the back button, a link): show its route and month. */
function followHash() {
  const invited = inviteTokenOf(location.hash);
  if (invited) {
    if (authMode() === 'out') {
      signin.keepInvite(invited); // offered once they are signed in (or signed up and confirmed)
      history.replaceState(null, '', hashOf('household', state.month));
      askSignIn();
      return;
    }
    offerInvite(invited);
    return;
  }
  const wanted = parseHash(location.hash);
  if (!wanted) return; // an anchor inside the page
  const route = wanted.route ?? state.route;
  const month = wanted.month ?? state.month;
  const moved = route !== state.route;
  if (moved) showRoute(route);
  if (month !== state.month) setMonth(month);
  else {
    const hash = hashOf(route, month);
    if (location.hash !== hash) history.replaceState(null, '', hash);
    if (moved) refreshAll();
  }
  if (moved) window.scrollTo(0, 0);
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
  window.addEventListener('hashchange', followHash);
  for (const topic of ['slips', 'report', 'budgets']) on(topic, renderCategories);
  on('forbidden', () => ledgers.recheckMembership());
}

/** "Today" is the ledger's day: the API says which time zone its days are counted in (Asia/Tokyo by default). */
async function readTimeZone() {
  try {
    const { data } = await state.api.request('GET', '/health', { auth: false });
    if (data?.time_zone) {
      setLedgerTimeZone(data.time_zone);
      keep('time_zone', data.time_zone, { ledger: null });
    }
  } catch {
    // an API that does not answer yet: the zone it named last time (kept.js), else the default (Asia/Tokyo)
    const known = kept('time_zone', { ledger: null });
    if (known) setLedgerTimeZone(known);
  }
}

/** Installable and usable without a connection: the service worker keeps the page's files (its SHELL). */
async function installable() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  try {
    await navigator.serviceWorker.register('sw.js');
  } catch {
    // no service worker (a private window, an old browser): the page works online as before
  }
}

async function main() {
  pageConfig = await readPageConfig();
  if (signInConfigured(pageConfig)) {
    session = new Session(pageConfig);
    session.on((event) => {
      if (event === 'expired') expired();
    });
    localNames = pageConfig.local_names === true;
  }
  useApi();
  conflict.mount();
  await outbox.mount(); // what waits from before (written without a connection), shown at once
  on('outbox-sent', () => refreshAll());
  renderNav();
  signin.mount($('signin-panel'), ctx);
  for (const { view, id, on: shownOn, hands = {} } of VIEWS) {
    $(id).dataset.routes = shownOn.join(' '); // where it is shown (a link into it opens its route)
    view.mount($(id), ctx, Object.fromEntries(Object.entries(hands).map(([name, part]) => [name, $(part)])));
  }
  bind();
  window.addEventListener('online', reconnect);
  const invited = inviteTokenOf(location.hash); // a link to join a shared ledger: #invite=<token>
  const wanted = parseHash(location.hash) ?? { route: null, month: null };
  showRoute(invited ? 'household' : wanted.route ?? HOME);
  await readTimeZone();
  setMonth(wanted.month ?? monthOf(today()), { reload: false });
  if (authMode() === 'out') {
    if (invited) signin.keepInvite(invited); // offered once they are signed in (or signed up and confirmed)
    askSignIn({ note: session?.who ? signin.currentWords().expired : '' });
  } else {
    await connect();
    if (invited) ledgers.offerInvite(invited);
    if (navigator.onLine !== false) outbox.flush();
  }
  document.body.dataset.ready = 'true';
  installable();
}

main();
