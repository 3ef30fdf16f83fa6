// 伝票's own state, beside what the page knows (state.js: the month's slips, the filters, the slip
// being edited): the words searched, the tag the list is narrowed to, the slips chosen for a bulk
// edit and the bulk edit just made; and the pure transitions of the slips view — what stays chosen,
// what is listed, what an edit sends, a split's lines, when a retry reuses its Idempotency-Key. No
// DOM and no API here (tests/web/slips.test.mjs); fetch.js reads and writes, view.js draws.

import { UNCATEGORIZED, filterSlips, mergePatch, shiftMonth, unitPatch } from '../../format.js';
import { hasTag, normaliseTag, sameTags } from '../../tags.js';

export const MAX_LINES = 10; // what the API accepts (a slip change stays within one transaction)

/** Is the unit a foreign currency (a slip in it has its 円換算: the yen it cost)? Pure. */
export const isForeign = (unit) => unit !== 'JPY' && unit !== 'points';

/** The view's state as a ledger starts: no search, no tag, nothing chosen, no bulk edit to undo. */
export function fresh() {
  return {
    search: '', // words searched in the last 12 months (GET /slips?q=): the list shows what was found, not the month
    tag: '', // the tag the list is narrowed to (a chip clicked)
    selected: new Map(), // id -> the slip as listed (its version), chosen for a bulk edit
    lastBulk: null, // {seq, words}: the bulk edit just made, offered to undo
  };
}

/** The slips view's state (one object, replaced field by field by the transitions below). */
export const held = fresh();

/** Forget the ledger shown: back to a fresh state. */
export function forget() {
  Object.assign(held, fresh());
}

/** The slips listed: the month's (or those found), narrowed by the filters and the tag chosen. Pure. */
export const shownSlips = (slips, filters, tag) => filterSlips(slips, filters).filter((slip) => hasTag(slip, tag));

/** What was chosen stays chosen while it is listed, at the version listed now. Pure. */
export function keptChosen(selected, items) {
  const listed = new Map(items.map((slip) => [slip.id, slip]));
  const kept = new Map();
  for (const id of selected.keys()) if (listed.has(id)) kept.set(id, listed.get(id));
  return kept;
}

/** The slips chosen with `slips` chosen (`on`) or not: a row's checkbox, or every row listed. Pure. */
export function chosen(selected, slips, on) {
  const next = new Map(selected);
  for (const slip of slips) {
    if (on) next.set(slip.id, slip);
    else next.delete(slip.id);
  }
  return next;
}

/** Are all the slips listed chosen (and at least one listed)? Pure. */
export const allChosen = (selected, shown) => shown.length > 0 && shown.every((slip) => selected.has(slip.id));

/** The tag as the API compares it (a chip clicked), empty for every slip. Pure. */
export const tagOf = (tag) => (tag ? normaliseTag(tag) : '');

/** The months a tag's total covers: the month shown, or, searching, the last 12 months to it. Pure. */
export function tagSpan(month, search) {
  return { from: search ? shiftMonth(month, -11) : month, to: month };
}

/**
 * The key a write goes out with: the same body sent again after a failed attempt reuses the key it
 * had (`before`: {text, key} of the attempt before), so the API does it once; another body gets a new
 * one from `newKey`. Pure (but for `newKey`).
 */
export function keyFor(before, text, newKey) {
  return before?.text === text ? before : { text, key: newKey() };
}

/** A slip with a merge patch applied as the API would (null removes a field); its version kept. Pure. */
export function applied(slip, patch) {
  const next = { ...slip };
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete next[field];
    else next[field] = value;
  }
  return next;
}

/**
 * The merge patch an edit sends: the fields of `wanted` (the form, read) that differ from `base` (the
 * slip as read). An emptied category is "uncategorized" on the server, not a change; a split's lines
 * are sent whole when they changed (and carry the categories); the units' fields as unitPatch says
 * (`foreign`: the slip's account is in a foreign currency, whose 円換算 is the form's; a points slip's
 * yen is the API's); `facets`: what the payer, receipts and tax parts of the form patch; the tags
 * whole when they changed. Empty: nothing changed. Pure.
 */
export function editPatch(base, wanted, { foreign = false, facets = {} } = {}) {
  const split = Boolean(wanted.lines);
  const { paid_by: _paidBy, shares: _shares, receipts: _receipts, medical: _medical, donation: _donation, tags: _tags, ...fields } = wanted;
  const target = { ...fields, category: wanted.kind === 'transfer' || split ? null : wanted.category ?? UNCATEGORIZED };
  delete target.lines;
  const patch = mergePatch(base, target);
  if (JSON.stringify(plainLines(base.lines)) !== JSON.stringify(wanted.lines ?? null)) {
    patch.lines = wanted.lines ?? null; // replaced whole
    if (!split && patch.category === undefined) patch.category = target.category;
  }
  if (split) delete patch.category; // the lines have the categories
  const units = unitPatch(base, wanted);
  if (!foreign && wanted.kind !== 'transfer' && base.account === wanted.account) delete units.jpy_amount; // a points slip's yen is the API's
  Object.assign(patch, facets, units);
  if (!sameTags(base.tags, wanted.tags ?? [])) patch.tags = wanted.tags ?? null; // replaced whole
  return patch;
}

// ---- 内訳を分ける: a split slip's lines ---------------------------------------------------------

/** The lines as the API stores them (without the words it adds for categories). Pure. */
export function plainLines(lines) {
  if (!lines?.length) return null;
  return lines.map((l) => Object.fromEntries(Object.entries({ amount: l.amount, category: l.category, subcategory: l.subcategory ?? null, memo: l.memo ?? null }).filter(([, v]) => v !== null)));
}

/**
 * A line as the form gives it, as the API stores it: the subcategory it was loaded with (the form has
 * no field for it) stays while its category does; another category drops it, as the API does. Pure.
 */
export function lineOf({ amount, category, memo }, loaded = {}) {
  const subcategory = loaded.subcategory && loaded.category === category ? loaded.subcategory : null;
  return plainLines([{ amount, category, subcategory, memo: memo || null }])[0];
}

/** What is left of the amount once the lines are counted (negative: the lines are too much). Pure. */
export function linesLeft(amount, lineAmounts) {
  return amount - lineAmounts.reduce((sum, x) => sum + (Number.isFinite(x) ? x : 0), 0);
}
