import assert from 'node:assert/strict';
import { test } from 'node:test';

import { bulkBody, bulkWords, hasTag, parseTags, sameTags, tagTotalWords, tagsProblem, tagsText, undoSeqOf } from '../../web/tags.js';

const yen = (n) => `￥${n.toLocaleString('en-US')}`;

test('tags as typed: commas or spaces, normalised as the API keeps them, each once', () => {
  assert.deepEqual(parseTags('旅行, 京都　ＴＲＩＰ、trip  '), ['旅行', '京都', 'trip']);
  assert.deepEqual(parseTags(''), []);
  assert.deepEqual(parseTags(' , ,'), []);
  assert.equal(tagsText(['旅行', 'trip']), '旅行 trip');
  assert.deepEqual(parseTags(tagsText(['a', 'b'])), ['a', 'b']);
  assert.ok(sameTags(undefined, []));
  assert.ok(!sameTags(['a'], ['b']));
  assert.ok(hasTag({ tags: ['trip'] }, 'ＴＲＩＰ'));
  assert.ok(!hasTag({}, 'trip'));
  assert.ok(hasTag({}, ''));
});

test('too many or too long tags are said before anything is sent', () => {
  assert.equal(tagsProblem(['a']), null);
  assert.match(tagsProblem(Array.from({ length: 11 }, (_, i) => `t${i}`)), /10 個まで/);
  assert.match(tagsProblem(['x'.repeat(31)]), /30 文字まで/);
  assert.equal(tagsProblem(['x'.repeat(30)]), null);
});

const chosen = [
  { date: '2026-11-20', id: 'a', version: 3, amount: 100, tags: ['x'] },
  { date: '2026-11-21', id: 'b', version: 1, amount: 200 },
];

test('the bulk body names each slip with the version read, and only what changes', () => {
  assert.deepEqual(bulkBody(chosen, { category: ' 交通費 ', tagsAdd: 'Trip 京都', tagsRemove: '' }), {
    slips: [
      { date: '2026-11-20', id: 'a', version: 3 },
      { date: '2026-11-21', id: 'b', version: 1 },
    ],
    set: { category: '交通費', tags_add: ['trip', '京都'] },
  });
  assert.deepEqual(bulkBody(chosen, { tagsRemove: 'x' }).set, { tags_remove: ['x'] });
  assert.deepEqual(bulkBody(chosen, { delete: true }), { slips: bulkBody(chosen, { tagsAdd: 'y' }).slips, delete: true });
});

test('a bulk with nothing chosen, nothing to change, or too much is refused in words', () => {
  assert.throws(() => bulkBody([], { delete: true }), /選んでください/);
  assert.throws(() => bulkBody(chosen, { category: ' ', tagsAdd: '' }), /入力してください/);
  assert.throws(() => bulkBody(chosen, { tagsAdd: 'x'.repeat(31) }), /30 文字/);
  const many = Array.from({ length: 501 }, (_, i) => ({ date: '2026-11-01', id: `s${i}`, version: 1 }));
  assert.throws(() => bulkBody(many, { delete: true }), /500 件まで/);
});

test('the answer in words, and the entry whose undo takes it all back', () => {
  const answer = {
    bulk: 'b1',
    changed: [{ id: 'a', date: '2026-11-20', version: 4, seq: 17 }],
    unchanged: [{ id: 'c', date: '2026-11-22', version: 1 }],
    refused: [
      { id: 'b', date: '2026-11-21', reason: 'stale', current: 2 },
      { id: 'd', date: '2026-11-23', reason: 'reconciled' },
      { id: 'e', date: '2026-11-24', reason: 'stale', current: 5 },
    ],
    entries: [17],
  };
  assert.equal(bulkWords(answer), '1 件を変更しました。1 件はすでにその内容でした。3 件はできませんでした（先に変更されていた 2 件、照合済み 1 件）');
  assert.equal(bulkWords({ changed: [], unchanged: [], refused: [], entries: [] }, { delete: true }), '0 件を削除しました');
  assert.equal(undoSeqOf(answer), 17);
  assert.equal(undoSeqOf({ changed: [], entries: [] }), null);
  assert.equal(undoSeqOf({ changed: [{ seq: 9 }] }), 9);
});

test("a tag's total in words", () => {
  assert.equal(tagTotalWords({ tag: 'trip', income: 0, expense: 12000, net: -12000, count: 3 }, yen), '収入 ￥0・支出 ￥12,000（差引 ￥-12,000）・3 件');
  assert.match(tagTotalWords(undefined, yen), /ありません/);
});
