// 伝票's state and its pure transitions (web/views/slips/state.js), under `node --test`, without a
// DOM: what stays chosen when the list is read again, what is listed, the key a retry goes out with,
// the months a tag's total covers, and the merge patch an edit sends.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { UNCATEGORIZED } from '../../web/format.js';
import { allChosen, chosen, editPatch, fresh, keptChosen, keyFor, shownSlips, tagOf, tagSpan } from '../../web/views/slips/state.js';

const slip = (id, version, extra = {}) => ({ id, version, date: '2026-11-20', kind: 'expense', amount: 1200, account: 'wallet', category: '食費', ...extra });

describe('the slips chosen for a bulk edit', () => {
  test('stay chosen while they are listed, at the version listed now; one no longer listed is dropped', () => {
    // Given two slips chosen at versions 1 and 4
    const before = new Map([
      ['a', slip('a', 1)],
      ['b', slip('b', 4)],
    ]);
    // When the list is read again: a changed since (version 2), b gone, c new
    const kept = keptChosen(before, [slip('a', 2), slip('c', 1)]);
    // Then a stays chosen at version 2, b is no longer chosen, c is not chosen by itself
    assert.deepEqual([...kept.keys()], ['a']);
    assert.equal(kept.get('a').version, 2);
    // And the choice before is left as it was
    assert.equal(before.get('a').version, 1);
    assert.equal(before.size, 2);
  });

  test('a row chosen, another unchosen, every row listed at once; all chosen only when some are listed', () => {
    // Given nothing chosen and two slips listed
    const listed = [slip('a', 1), slip('b', 1)];
    // When one row is ticked, then every row, then one unticked
    const one = chosen(new Map(), [listed[0]], true);
    const all = chosen(one, listed, true);
    const left = chosen(all, [listed[0]], false);
    // Then each step chose what was ticked, from a copy
    assert.deepEqual([...one.keys()], ['a']);
    assert.ok(allChosen(all, listed));
    assert.deepEqual([...left.keys()], ['b']);
    assert.ok(!allChosen(left, listed));
    assert.equal(one.size, 1);
    // And an empty list is never "all chosen"
    assert.ok(!allChosen(all, []));
  });

  test('a ledger starts with no search, no tag, nothing chosen and no bulk edit to undo', () => {
    // When the view's state is made fresh twice
    const a = fresh();
    const b = fresh();
    // Then it is empty, and the two share no selection
    assert.deepEqual({ ...a, selected: [...a.selected] }, { search: '', tag: '', selected: [], lastBulk: null });
    a.selected.set('x', slip('x', 1));
    assert.equal(b.selected.size, 0);
  });
});

describe('the slips listed', () => {
  test('are narrowed by the filters and by the tag chosen, compared as the API keeps tags', () => {
    // Given a month's slips, one tagged trip
    const slips = [slip('a', 1, { tags: ['trip'] }), slip('b', 1, { category: '交通費' }), slip('c', 1, { kind: 'income', category: '給与' })];
    const none = { account: '', category: '', kind: '', text: '', by: '' };
    // When listed without filters, by kind, and with the tag typed in full width capitals
    // Then the filters and the tag each narrow the list
    assert.deepEqual(shownSlips(slips, none, '').map((s) => s.id), ['a', 'b', 'c']);
    assert.deepEqual(shownSlips(slips, { ...none, kind: 'expense' }, '').map((s) => s.id), ['a', 'b']);
    assert.deepEqual(shownSlips(slips, none, 'ＴＲＩＰ').map((s) => s.id), ['a']);
    assert.deepEqual(shownSlips(slips, { ...none, category: '交通費' }, 'trip'), []);
    assert.equal(tagOf(' Trip '), 'trip');
    assert.equal(tagOf(''), '');
  });

  test("a tag's total covers the month shown, or while searching the 12 months to it", () => {
    assert.deepEqual(tagSpan('2026-11', ''), { from: '2026-11', to: '2026-11' });
    assert.deepEqual(tagSpan('2026-03', 'パン'), { from: '2025-04', to: '2026-03' });
  });
});

describe('the Idempotency-Key a write goes out with', () => {
  test('is the one of the attempt before for the same body, and a new one for another body', () => {
    // Given keys drawn in order
    let n = 0;
    const newKey = () => `k${(n += 1)}`;
    // When a body is sent, sent again after a failed attempt, then another body is sent
    const first = keyFor(null, '{"amount":1200}', newKey);
    const again = keyFor(first, '{"amount":1200}', newKey);
    const other = keyFor(again, '{"amount":1300}', newKey);
    // Then the retry reuses its key (the API does it once) and the other body has its own
    assert.deepEqual(first, { text: '{"amount":1200}', key: 'k1' });
    assert.equal(again.key, 'k1');
    assert.deepEqual(other, { text: '{"amount":1300}', key: 'k2' });
  });
});

describe('the merge patch an edit sends', () => {
  const base = slip('a', 3, { memo: 'パン', payee: 'マルエツ', tags: ['food'] });
  const form = (changes) => ({ ...base, ...changes });

  test('names only the fields changed; nothing changed is an empty patch', () => {
    // When the form comes back as it was, then with the amount and the memo changed, then the memo removed
    // Then only those fields are sent, a removed one as null
    assert.deepEqual(editPatch(base, form({})), {});
    assert.deepEqual(editPatch(base, form({ amount: 1300, memo: 'パンと牛乳' })), { amount: 1300, memo: 'パンと牛乳' });
    assert.deepEqual(editPatch(base, form({ memo: null })), { memo: null });
  });

  test('an emptied category is "uncategorized", a changed list of tags is sent whole', () => {
    assert.deepEqual(editPatch(base, form({ category: null })), { category: UNCATEGORIZED });
    assert.deepEqual(editPatch(base, form({ tags: ['food', 'trip'] })), { tags: ['food', 'trip'] });
    assert.deepEqual(editPatch(base, form({ tags: null })), { tags: null });
  });

  test("a split's lines are sent whole when they changed, never with a category; untouched, not at all", () => {
    // Given a slip split into two lines, read as the API stores them (with the words it adds)
    const split = slip('s', 2, { amount: 3000, category: null, lines: [
      { amount: 1800, category: '食費', category_label: '食費', subcategory: '食料品' },
      { amount: 1200, category: '日用品', category_label: '日用品' },
    ] });
    const same = [{ amount: 1800, category: '食費', subcategory: '食料品' }, { amount: 1200, category: '日用品' }];
    // When the form gives the same lines, other lines, or no lines (the split undone) with a category
    const untouched = editPatch(split, { ...split, lines: same });
    const changed = editPatch(split, { ...split, lines: [same[0], { amount: 1200, category: '雑費' }] });
    const undone = editPatch(split, { ...split, lines: undefined, category: '食費' });
    // Then the untouched lines are not sent; changed ones are, whole; an undone split sends null lines and the category
    assert.deepEqual(untouched, {});
    assert.deepEqual(changed, { lines: [same[0], { amount: 1200, category: '雑費' }] });
    assert.deepEqual(undone, { category: '食費', lines: null });
  });

  test("a points slip's yen is the API's, a foreign one's 円換算 is the form's; the facets' fields are joined", () => {
    // Given a slip in points whose yen the API keeps, and one in dollars with its 円換算
    const points = slip('p', 1, { account: 'points', amount: 500, jpy_amount: 500 });
    const dollars = slip('d', 1, { account: 'usd', amount: 1234, jpy_amount: 1850 });
    // When each comes back with a new amount (the points one without yen, the dollar one with new yen)
    const fromPoints = editPatch(points, { ...points, amount: 600, jpy_amount: undefined }, { foreign: false });
    const fromDollars = editPatch(dollars, { ...dollars, amount: 1300, jpy_amount: 1950 }, { foreign: true, facets: { paid_by: 'hanako', shares: 'equal' } });
    // Then the points slip sends no yen; the dollar slip sends its 円換算 and who paid
    assert.equal('jpy_amount' in fromPoints, false);
    assert.equal(fromPoints.amount, 600);
    assert.deepEqual(fromDollars, { amount: 1300, jpy_amount: 1950, paid_by: 'hanako', shares: 'equal' });
  });

  test('a payee changed alone is sent; one cleared is sent as null; one added to a slip without one is sent', () => {
    // Given the slip as read, paid at マルエツ, and one with no payee
    const none = slip('n', 1);
    // When only the payee changes on the form: another shop, emptied (the form reads it as null), one typed
    const moved = editPatch(base, form({ payee: '八百屋' }));
    const cleared = editPatch(base, form({ payee: null }));
    const added = editPatch(none, { ...none, payee: 'ドラッグストア' });
    // Then each is a merge patch of the payee alone (null removes it, as the API's SlipPatch takes it)
    assert.deepEqual(moved, { payee: '八百屋' });
    assert.deepEqual(cleared, { payee: null });
    assert.deepEqual(added, { payee: 'ドラッグストア' });
    // And the same payee typed again is no change
    assert.deepEqual(editPatch(base, form({ payee: 'マルエツ' })), {});
  });
});
