// 伝票's API calls: the month's slips (or those a search found) page by page with their cursors, one
// slip with its ETag, a new slip, an edit and a delete through the outbox (a new slip's and a bulk
// edit's Idempotency-Key reused when the same body is sent again after a failed attempt), the month
// as CSV, a tag's total, bulk edits and their undo. No DOM here: the view decides what is shown.

import { ApiError, query, segment } from '../../api.js';
import { monthRange } from '../../format.js';
import { sendChange, sendSlip } from '../../outbox.js';
import { at, state } from '../../state.js';
import { uuid } from '../../ui.js';
import { keyFor } from './state.js';

const PAGE_SIZE = 100;
const MAX_PAGES = 50;

let bulkKey = null; // {text, key}: the Idempotency-Key of a bulk edit not yet answered

/** Where a slip is read, changed and deleted: under its date. */
const slipPath = (slip) => at(`/slips/${slip.date}/${segment(slip.id)}`);

/**
 * The month's slips, every page (at most MAX_PAGES), or with `search` one page of those matching the
 * words in the last 12 months (the API's window, newest first); `by`: the member filter. {items,
 * truncated}: truncated when there were more pages than are read.
 */
export async function readSlips({ month, search, by }) {
  const { from, to } = monthRange(month);
  const items = [];
  let cursor = null;
  let truncated = false;
  for (let page = 0; ; page += 1) {
    if (page === (search ? 1 : MAX_PAGES)) {
      truncated = true;
      break;
    }
    const params = search ? { q: search, by, limit: PAGE_SIZE, cursor } : { from, to, by, limit: PAGE_SIZE, cursor };
    const { data } = await state.api.get(at(`/slips${query(params)}`));
    items.push(...data.items);
    cursor = data.next_cursor;
    if (!cursor) break;
  }
  return { items, truncated };
}

/** One slip as it is now, with its ETag: {data, etag}. */
export const readSlip = (slip) => state.api.get(slipPath(slip));

/**
 * A new slip (its body without nulls). Without a connection it waits in the outbox, key and all:
 * {queued: true}. The same body sent again after a failed attempt reuses its Idempotency-Key (kept
 * in state.idempotency): never two slips; an answer that refused it (not a lost connection) forgets it.
 */
export async function createSlip(body, summary) {
  state.idempotency = keyFor(state.idempotency, JSON.stringify(body), uuid);
  try {
    const data = await sendSlip(at('/slips'), body, { key: state.idempotency.key, summary });
    state.idempotency = null;
    return data;
  } catch (error) {
    if (error instanceof ApiError && error.status !== 0) state.idempotency = null;
    throw error;
  }
}

/** An edit of `made` (the slip at the version it was made on) by a merge patch: {data} or {queued: true}. */
export const updateSlip = (made, patch, summary) => sendChange('PATCH', slipPath(made), made, { body: patch, summary });

/** A slip deleted (at the version listed): {data} or {queued: true}. */
export const deleteSlip = (slip, summary) => sendChange('DELETE', slipPath(slip), slip, { summary });

/** The month's slips as CSV (the import format), every page of it (later pages' header lines dropped). */
export async function readCsv({ month, by }) {
  const { from, to } = monthRange(month);
  let path = at(`/slips.csv${query({ from, to, by })}`);
  let csv = '';
  for (let page = 0; path && page < MAX_PAGES; page += 1) {
    const { text, link } = await state.api.request('GET', path);
    // later pages repeat the header line
    csv += page === 0 ? text : text.slice(text.indexOf('\n') + 1);
    path = /<([^>]+)>;\s*rel="next"/.exec(link ?? '')?.[1] ?? null;
  }
  return csv;
}

/** A tag's income, expense and count over the months from `from` to `to` (undefined: none). */
export async function readTagTotal({ from, to, tag }) {
  const { data } = await state.api.get(at(`/reports/tags${query({ from, to, tag })}`));
  return data.items.find((item) => item.tag === tag);
}

/** The slips chosen changed (or deleted) in one bulk edit: its answer. */
export async function bulkEdit(body) {
  // the same bulk sent again after a failed attempt reuses its key: carried on, never applied twice
  bulkKey = keyFor(bulkKey, JSON.stringify(body), uuid);
  const { data } = await state.api.request('POST', at('/slips/bulk'), { json: body, headers: { 'Idempotency-Key': bulkKey.key } });
  bulkKey = null;
  return data;
}

/** A journal entry taken back (a bulk edit's). */
export async function undoChange(seq) {
  await state.api.request('POST', at(`/changes/${seq}/undo`));
}
