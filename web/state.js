// What the page knows, in one object every view reads and writes, and the few notices views send
// each other when something they show has changed ("the accounts arrived": the slips and the
// recurring slips name their accounts again). No DOM here.

import { Api, PERSONAL, ledgerPath, loadConfig } from './api.js';

export const state = {
  config: loadConfig(),
  api: null,
  route: 'slips', // the view shown (#/slips, #/accounts, …)
  month: null,
  asOf: null,
  today: null, // the ledger's date (Asia/Tokyo unless the API says otherwise) when the balances were read
  accounts: [],
  current: new Map(), // every slip recorded, future-dated ones too
  todayBalances: new Map(), // as of the end of today
  asOfBalances: new Map(),
  expiring: new Map(), // points account id -> its lots lapsing soon (accounts view)
  slips: [],
  slipsTruncated: false,
  slipsShown: false,
  report: null,
  budgets: [],
  routes: null, // Set of the API's paths, or null when unknown
  editing: null, // {id, date, etag, base}
  idempotency: null, // {text, key}: a retried identical POST of a new slip reuses its key (views/slips/state.js keyFor)
  previewed: null, // {file, createAccounts}: the import a dry run showed, ready to commit
  filters: { account: '', category: '', kind: '', text: '', by: '' },
  ledger: PERSONAL, // the ledger shown: 'me' or a shared ledger's id
  ledgers: null, // GET /ledgers: [{id, name, role}], personal first; null when this API has none
  household: null, // GET /ledgers/{ledger}: {id, name, role, members: [{user, role, version}]}
  role: 'owner', // the caller's role in the ledger shown: what the page offers
  me: null, // the caller's user id (the API's name for them), from GET /ledgers/me
  yearly: null,
  recurrences: [],
  history: null, // the account whose balance history is shown
  seq: {},
};
state.api = new Api(state.config);

/** A data route in the ledger shown: unprefixed for the personal one, else under /ledgers/{ledger}. */
export const at = (path) => ledgerPath(state.ledger, path);

/** Start a load of `kind`; the function returned says whether it is still the newest (month switches race). */
export function newest(kind) {
  const mine = (state.seq[kind] = (state.seq[kind] ?? 0) + 1);
  return () => state.seq[kind] === mine;
}

/** Answers still on their way are dropped (another ledger or identity is about to load). */
export function dropPending() {
  for (const kind of Object.keys(state.seq)) newest(kind);
}

// ---- notices between views ---------------------------------------------------------------------
// 'accounts'  the accounts and balances were read        'slips', 'report', 'budgets'  likewise
// 'household' the shared ledger's members were read       'role'   what the caller may do changed
// 'month'     another month is shown (before it loads)    'routes' the API's routes are known
// 'forbidden' a write was refused for the caller's role

const listeners = new Map();

export function on(topic, listener) {
  if (!listeners.has(topic)) listeners.set(topic, []);
  listeners.get(topic).push(listener);
}

export function emit(topic, detail) {
  for (const listener of listeners.get(topic) ?? []) listener(detail);
}

// ---- names -------------------------------------------------------------------------------------

export function accountName(id) {
  const account = state.accounts.find((a) => a.id === id);
  return account ? account.name : id;
}

/** The unit of an account the page knows (JPY when it does not know it): its amounts are shown in it (amountIn). */
export function unitOf(id) {
  return state.accounts.find((a) => a.id === id)?.unit ?? 'JPY';
}

/** How a member is named on the page: "あなた" for the caller. */
export function memberName(user) {
  return user && user === state.me ? `${user}（あなた）` : user;
}
