// Tags, bulk edits and search on the slips view (DESIGN §28), the pure part: tags as typed in the
// slip form and as the API keeps them (NFKC, case folded, each once), the body of POST /slips/bulk
// built from the slips chosen, and its answer in words. No DOM here (tests/web/tags.test.mjs).

export const MAX_TAGS = 10; // what the API accepts (core/tags.py)
export const MAX_TAG_LENGTH = 30;
export const MAX_BULK = 500;

/** One tag as the API stores and compares it: NFKC, case folded, stripped. Pure. */
export const normaliseTag = (text) => String(text ?? '').normalize('NFKC').toLowerCase().trim();

/** Tags as typed: separated by commas (、，,) or spaces (full width too); normalised, each once, in order. Pure. */
export function parseTags(text) {
  const out = [];
  for (const part of String(text ?? '').split(/[,、，\s\u3000]+/)) {
    const tag = normaliseTag(part);
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}

/** What is wrong with these tags for the API, in words; null when nothing is. Pure. */
export function tagsProblem(tags) {
  if (tags.length > MAX_TAGS) return `タグは ${MAX_TAGS} 個までです（${tags.length} 個あります）`;
  const long = tags.find((t) => t.length > MAX_TAG_LENGTH);
  if (long) return `タグは 1 つ ${MAX_TAG_LENGTH} 文字までです（「${long.slice(0, 10)}…」）`;
  return null;
}

/** A slip's tags as the form shows them (space separated). Pure. */
export const tagsText = (tags) => (tags ?? []).join(' ');

/** Do two lists of tags say the same (order kept: the API keeps the order first named)? Pure. */
export const sameTags = (a, b) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** Does the slip carry the tag (compared normalised)? Pure. */
export const hasTag = (slip, tag) => !tag || (slip.tags ?? []).includes(normaliseTag(tag));

/**
 * The body of POST /slips/bulk for the slips chosen (each where it is and the version read) and what
 * to do: {delete: true}, or {category, tagsAdd, tagsRemove} (text as typed; empty: unchanged).
 * Throws an Error in words when nothing would change or the choice is too big. Pure.
 */
export function bulkBody(slips, action) {
  if (!slips.length) throw new Error('伝票を選んでください');
  if (slips.length > MAX_BULK) throw new Error(`一度に変更できるのは ${MAX_BULK} 件までです（${slips.length} 件選んでいます）`);
  const refs = slips.map(({ date, id, version }) => ({ date, id, version }));
  if (action.delete) return { slips: refs, delete: true };
  const set = {};
  const category = (action.category ?? '').trim();
  if (category) set.category = category;
  for (const [field, text] of [['tags_add', action.tagsAdd], ['tags_remove', action.tagsRemove]]) {
    const tags = parseTags(text);
    const problem = tags.length ? tagsProblem(tags) : null;
    if (problem) throw new Error(problem);
    if (tags.length) set[field] = tags;
  }
  if (!Object.keys(set).length) throw new Error('変更する分類かタグを入力してください');
  return { slips: refs, set };
}

const REASONS = {
  stale: '先に変更されていた',
  reconciled: '照合済み',
  forbidden: '権限がない',
  not_found: '見つからない',
  invalid: '変更できない',
};

/** The journal entry whose undo takes the whole bulk edit back (null: nothing changed). Pure. */
export const undoSeqOf = (answer) => answer?.entries?.[0] ?? answer?.changed?.[0]?.seq ?? null;

/** A bulk edit's answer in words: what changed, what already was so, what was refused and why. Pure. */
export function bulkWords(answer, { delete: deleting = false } = {}) {
  const changed = answer.changed?.length ?? 0;
  const unchanged = answer.unchanged?.length ?? 0;
  const refused = answer.refused ?? [];
  const parts = [`${changed} 件を${deleting ? '削除' : '変更'}しました`];
  if (unchanged) parts.push(`${unchanged} 件はすでにその内容でした`);
  if (refused.length) {
    const counts = new Map();
    for (const r of refused) counts.set(r.reason, (counts.get(r.reason) ?? 0) + 1);
    const why = [...counts].map(([reason, n]) => `${REASONS[reason] ?? reason} ${n} 件`).join('、');
    parts.push(`${refused.length} 件はできませんでした（${why}）`);
  }
  return parts.join('。');
}

/** A tag's total (GET /reports/tags) in words; its slips counted even when none of them has an amount. Pure. */
export function tagTotalWords(total, yen) {
  if (!total) return 'この期間にこのタグの伝票はありません';
  return `収入 ${yen(total.income)}・支出 ${yen(total.expense)}（差引 ${yen(total.net ?? total.income - total.expense)}）・${total.count} 件`;
}
