// Slip writes that must not be lost: new slips, edits and deletes. Each goes out with its
// Idempotency-Key; without a connection it waits in IndexedDB, key and all, and goes out when the
// connection returns. The API records a new slip's key once, so however often it is sent again (an
// answer lost on the way, a second tab, a reload) there is one slip. An edit or a delete carries the
// version it was made on (If-Match), so it can happen once only: when its replay is refused (412, or
// 404 when it is gone) the slip's history says whether it was this one that landed (its answer lost)
// — then it is done — or another change came first: then it is a conflict the person resolves
// (the slips view shows it, 'outbox-conflict'), never dropped in silence. The page says what waits.

import { ApiError } from './api.js';
import { emit, state } from './state.js';
import { $, errorText, h, showError, uuid } from './ui.js';

const DB = 'kakeibo';
const STORE = 'outbox';
const RETRY_MS = 15_000; // while something waits and the page thinks it is online

/**
 * Who sends: a queued slip goes out only as the identity it was written by: the API and the person
 * signed in (their `sub`, which outlives their tokens: what waits still goes out after they sign in
 * again), or the local user name.
 */
export function identity(config = state.config) {
  return `${config.base}|${config.sub ? `sub:${config.sub}` : `user:${config.user}`}`;
}

/** Everything waiting as the identity shown is dropped (its person signed out: nothing of them stays). */
export async function forgetWaiting() {
  for (const entry of await waiting()) await drop(entry.key);
  await render();
}

/** Failures worth trying again later: no connection, or the API not answering for now. */
export function retriable(error) {
  return error instanceof ApiError && (error.status === 0 || error.status === 401 || error.status === 408 || error.status === 429 || error.status >= 500);
}

// ---- IndexedDB ---------------------------------------------------------------------------------

let opened = null;

function db() {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'key' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opened;
}

async function tx(mode, work) {
  const store = (await db()).transaction(STORE, mode).objectStore(STORE);
  return new Promise((resolve, reject) => {
    const request = work(store);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** The slips waiting to go out as the identity shown, oldest first. */
export async function waiting() {
  const entries = await tx('readonly', (store) => store.getAll());
  return entries.filter((e) => e.who === identity()).sort((a, b) => a.queued - b.queued);
}

const keep = (entry) => tx('readwrite', (store) => store.put(entry));
const drop = (key) => tx('readwrite', (store) => store.delete(key));

// ---- sending -----------------------------------------------------------------------------------

/** One attempt at what an entry asks (a new slip before edits and deletes existed is a POST). */
function send(entry) {
  const method = entry.method ?? 'POST';
  return state.api.request(method, entry.path, {
    json: entry.body ?? undefined,
    contentType: entry.contentType,
    ifMatch: entry.ifMatch,
    headers: { 'Idempotency-Key': entry.key },
  });
}

/**
 * POST a new slip to `path` (the ledger's /slips) with its Idempotency-Key. The API's slip, or
 * {queued: true} when there is no connection: it waits here and goes out when the connection returns.
 */
export async function sendSlip(path, body, { key = uuid(), summary = '' } = {}) {
  const sent = await attempt({ key, method: 'POST', path, body, summary, who: identity(), queued: Date.now() });
  return sent.queued ? sent : sent.data;
}

/**
 * Change (`PATCH`, with the merge patch `body`) or delete (`DELETE`) the slip `base` (as read, its
 * version the If-Match) at `path`. The API's answer ({data}), or {queued: true} when there is no
 * connection. A change to a slip that already has one waiting joins it (an edit's fields are merged;
 * a delete replaces it), so the version it was made on stays the one it is sent with.
 */
export async function sendChange(method, path, base, { body = null, key = uuid(), summary = '' } = {}) {
  const entry = {
    key,
    method,
    path,
    body,
    contentType: method === 'PATCH' ? 'application/merge-patch+json' : undefined,
    ifMatch: `"${base.version}"`,
    slip: slipOf(base),
    summary,
    who: identity(),
    queued: Date.now(),
  };
  const before = (await waiting()).find((e) => e.slip?.id === base.id);
  if (before) {
    // one write per slip waits: this one goes out on the version the first was made on
    if (before.method === 'DELETE') throw new Error(`この伝票の削除が送信待ちです（${before.summary}）`);
    const joined = { ...before, method, summary, body: method === 'PATCH' ? { ...before.body, ...body } : null };
    if (method === 'DELETE') joined.contentType = undefined;
    const queued = await queue(joined);
    if (navigator.onLine !== false) flush();
    return queued;
  }
  return attempt(entry);
}

/** What the slips list needs of a slip to show it and its conflict again (no receipts' blobs). */
const slipOf = (slip) => JSON.parse(JSON.stringify(slip));

let pending = new Map(); // slip id -> 'PATCH' | 'DELETE' waiting (as last shown)

/** The write waiting for the slip `id` ('PATCH' or 'DELETE', or null), for the list to mark it. */
export const pendingFor = (id) => pending.get(id) ?? null;

async function attempt(entry) {
  if (navigator.onLine === false) return queue(entry);
  try {
    const { data } = await send(entry);
    return { data };
  } catch (error) {
    if (error instanceof ApiError && error.status === 0) return queue(entry); // it may have arrived: the key (or the version) says so
    throw error;
  }
}

async function queue(entry) {
  const before = await waiting();
  if (!before.some((e) => e.key === entry.key)) {
    // after everything waiting, even within one millisecond (or under a clock that stands still)
    entry.queued = Math.max(entry.queued, ...before.map((e) => e.queued + 1));
  }
  await keep(entry);
  await render();
  schedule();
  return { queued: true, entry };
}

let flushing = null;
let timer = null;

/** Send what waits, oldest first, one tab at a time; how many went out. */
export function flush() {
  flushing ??= sendWaiting().finally(() => {
    flushing = null;
  });
  return flushing;
}

async function sendWaiting() {
  const once = (work) => (navigator.locks ? navigator.locks.request('kakeibo-outbox', work) : work());
  const sent = await once(async () => {
    let count = 0;
    for (const entry of await waiting()) {
      try {
        await send(entry);
      } catch (error) {
        if (retriable(error)) break; // still offline: it waits, in order
        if (!(await settled(entry, error))) {
          // refused for good (a 409 insufficient funds, a 422): said, and not sent again
          showError(new Error(`送信待ちの伝票を送れませんでした（${entry.summary}）: ${errorText(error)}`));
        }
      }
      await drop(entry.key);
      count += 1;
    }
    return count;
  });
  await render();
  schedule();
  if (sent) emit('outbox-sent', sent);
  return sent;
}

/**
 * An edit or a delete refused on its replay: was it this very write that landed before (its answer
 * lost on the way back), or did another change come first? The slip's history answers: the change
 * right after the version it was made on is this one when it did what this one asks. Another change
 * (or a 409) is a conflict, handed to the slips view to show; true when the entry is accounted for.
 */
async function settled(entry, error) {
  if (!entry.slip || !(error instanceof ApiError) || ![404, 409, 412].includes(error.status)) return false;
  if (error.status !== 409 && (await landed(entry))) return true;
  emit('outbox-conflict', { entry, error });
  return true;
}

async function landed(entry) {
  const prefix = entry.path.slice(0, entry.path.indexOf('/slips/'));
  let items;
  try {
    ({ data: { items } } = await state.api.get(`${prefix}/slips/${encodeURIComponent(entry.slip.id)}/history`));
  } catch {
    return false;
  }
  const next = items.find((item) => item.version === entry.slip.version + 1);
  if (!next) return false;
  if (entry.method === 'DELETE') return next.op === 'delete';
  return next.op === 'update' && Object.entries(entry.body ?? {}).every(([field, value]) => same(next.changed[field]?.[1], value));
}

/** The value a change left equals the one asked for (null and absent alike; a line's own fields only). */
export function same(left, asked) {
  if (asked === null || asked === undefined) return left === null || left === undefined;
  if (Array.isArray(asked)) return Array.isArray(left) && left.length === asked.length && asked.every((a, i) => same(left[i], a));
  if (typeof asked === 'object') return left !== null && typeof left === 'object' && Object.entries(asked).every(([k, v]) => same(left[k], v));
  return left === asked;
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    if ((await waiting()).length && navigator.onLine !== false) flush();
  }, RETRY_MS);
}

/** What waits, shown under the header; the connection's state. */
export async function render() {
  const entries = await waiting().catch(() => []);
  pending = new Map(entries.filter((e) => e.slip).map((e) => [e.slip.id, e.method]));
  const box = $('outbox');
  box.hidden = entries.length === 0 && navigator.onLine !== false;
  $('outbox-text').textContent = entries.length
    ? `送信待ち ${entries.length}件${navigator.onLine === false ? '（オフライン: 接続が戻ると送ります）' : '（送信中…）'}`
    : 'オフラインです。記録した伝票は接続が戻ると送ります';
  $('outbox-list').replaceChildren(...entries.map((e) => h('li', { text: e.summary })));
  emit('outbox', entries.length);
}

/** Start: show what waits from before (a reload, another day), and send it when the connection returns. */
export function mount() {
  window.addEventListener('online', () => {
    render();
    flush();
  });
  window.addEventListener('offline', render);
  return render();
}
