// What the page needs to enter slips without a connection, kept in this browser (localStorage), as
// the outbox keeps what waits to be sent: for the identity shown (outbox.js's identity: the API,
// the user or token), the caller's ledgers and who they are and the ledger's time zone; for each
// ledger, its accounts (what the slip forms offer, without their balances), the quick entry's chips
// and its account. Each part is written whenever it is read from the API, and read back when the
// API cannot be reached (a page opened or reloaded offline), so the forms are filled and a new slip
// can wait in the outbox for the right ledger. A ledger no longer the caller's is forgotten here
// when their ledgers are next read, and everything of theirs once their data is deleted.

import { ApiError } from './api.js';
import { identity } from './outbox.js';
import { state } from './state.js';

const PREFIX = 'kakeibo.kept';

/** The fields of an account the slip forms need (not its balance: a kept balance would be stale). */
export const ENTRY_FIELDS = ['id', 'name', 'type', 'unit', 'archived', 'point_value', 'program'];

/** Where a part is kept: per identity (`ledger` null) or per identity and ledger. Pure. */
export const keptKey = (who, ledger = null) => (ledger === null ? `${PREFIX}|${who}` : `${PREFIX}|${who}|ledger:${ledger}`);

/** Accounts as the slip forms need them, without what goes stale (balances, billing state). Pure. */
export function entryAccounts(accounts) {
  return (accounts ?? []).map((a) => Object.fromEntries(ENTRY_FIELDS.filter((f) => a[f] !== undefined).map((f) => [f, a[f]])));
}

/** A failure that means "no connection" (the API was not reached), after which what is kept is used. */
export const unreachable = (error) => error instanceof ApiError && error.status === 0;

function read(key, storage) {
  try {
    const record = JSON.parse(storage?.getItem(key) ?? 'null');
    return record && typeof record === 'object' && !Array.isArray(record) ? record : {};
  } catch {
    return {}; // storage disabled or a record not ours: nothing kept
  }
}

/** Keep `value` as `part` under `key` (storage disabled or full: nothing kept, nothing fails). */
export function keepAt(key, part, value, storage = globalThis.localStorage) {
  try {
    storage.setItem(key, JSON.stringify({ ...read(key, storage), [part]: value }));
  } catch {
    // storage disabled or full: the page works online as before
  }
}

/** What was kept as `part` under `key`, or null. */
export function keptAt(key, part, storage = globalThis.localStorage) {
  return read(key, storage)[part] ?? null;
}

/** Forget every ledger of identity `who` but those in `ledgers` (ids): their data is no longer the caller's. */
export function forgetOthers(who, ledgers, storage = globalThis.localStorage) {
  try {
    const mine = `${keptKey(who)}|ledger:`;
    const keep = new Set(ledgers.map((id) => keptKey(who, id)));
    const names = Array.from({ length: storage.length }, (_, i) => storage.key(i));
    for (const name of names) if (name?.startsWith(mine) && !keep.has(name)) storage.removeItem(name);
  } catch {
    // storage disabled: nothing was kept
  }
}

// ---- for the identity and ledger shown ---------------------------------------------------------

/** Keep a part of the ledger shown (`ledger: null`: of the identity). */
export const keep = (part, value, { ledger = state.ledger } = {}) => keepAt(keptKey(identity(), ledger), part, value);

/** A part kept for the ledger shown (`ledger: null`: for the identity), or null. */
export const kept = (part, { ledger = state.ledger } = {}) => keptAt(keptKey(identity(), ledger), part);

/** The caller's ledgers were read: anything kept of another ledger of theirs is forgotten. */
export const keepOnly = (ledgers) => forgetOthers(identity(), ledgers);

/** The caller's data was deleted (DELETE /me): nothing of it stays in this browser either. */
export function forgetAll(storage = globalThis.localStorage) {
  forgetOthers(identity(), [], storage);
  try {
    storage.removeItem(keptKey(identity()));
  } catch {
    // storage disabled: nothing was kept
  }
}
