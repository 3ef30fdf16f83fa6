// New slips that must not be lost. Each goes out with its Idempotency-Key; without a connection it
// waits in IndexedDB, key and all, and goes out when the connection returns. The API records a key
// once, so however often a slip is sent again (an answer lost on the way, a second tab, a reload)
// there is one slip. The page says what is waiting (#outbox).

import { ApiError } from './api.js';
import { emit, state } from './state.js';
import { $, errorText, h, showError, uuid } from './ui.js';

const DB = 'kakeibo';
const STORE = 'outbox';
const RETRY_MS = 15_000; // while something waits and the page thinks it is online

/** Who sends: a queued slip goes out only as the identity it was written by (API, user or token). */
export function identity(config = state.config) {
  return `${config.base}|${config.token ? `token:${config.token.slice(-24)}` : `user:${config.user}`}`;
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

const post = (entry) => state.api.request('POST', entry.path, { json: entry.body, headers: { 'Idempotency-Key': entry.key } });

/**
 * POST a new slip to `path` (the ledger's /slips) with its Idempotency-Key. The API's slip, or
 * {queued: true} when there is no connection: it waits here and goes out when the connection returns.
 */
export async function sendSlip(path, body, { key = uuid(), summary = '' } = {}) {
  const entry = { key, path, body, summary, who: identity(), queued: Date.now() };
  if (navigator.onLine === false) return queue(entry);
  try {
    const { data } = await post(entry);
    return data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 0) return queue(entry); // it may have arrived: the key says so
    throw error;
  }
}

async function queue(entry) {
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
        await post(entry);
      } catch (error) {
        if (retriable(error)) break; // still offline: it waits, in order
        // refused for good (a 409 insufficient funds, a 422): said, and not sent again
        showError(new Error(`送信待ちの伝票を送れませんでした（${entry.summary}）: ${errorText(error)}`));
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

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    if ((await waiting()).length && navigator.onLine !== false) flush();
  }, RETRY_MS);
}

/** What waits, shown under the header; the connection's state. */
export async function render() {
  const entries = await waiting().catch(() => []);
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
