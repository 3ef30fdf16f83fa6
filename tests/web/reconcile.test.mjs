// 残高を合わせる's pure logic (web/views/reconcile.js): the balance as typed, the difference in words,
// the cleared mark of a slip row and the reconciliation a locked slip names. Run by tests/api/test_web.py.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ADJUST_CATEGORY, clearedMark, differenceText, lockedBy, parseBalance } from '../../web/views/reconcile.js';

describe('the statement balance typed', () => {
  test('integers of yen, with commas, yen signs and full-width digits', () => {
    assert.equal(parseBalance('123,456'), 123456);
    assert.equal(parseBalance('￥１２，０００'), 12000);
    assert.equal(parseBalance('-500円'), -500);
    assert.equal(parseBalance('0'), 0);
  });
  test('anything else is no balance', () => {
    for (const text of ['', '12.5', 'abc', '1e3', null]) assert.equal(parseBalance(text), null, String(text));
  });
});

describe('the difference in words', () => {
  test('none, short, or over', () => {
    assert.match(differenceText(0), /差額はありません/);
    assert.match(differenceText(1200), /足りません/);
    assert.match(differenceText(-300), /多く残っています/);
  });
  test('the adjustment is booked as 使途不明金', () => {
    assert.equal(ADJUST_CATEGORY, '使途不明金');
  });
});

describe('the cleared mark of a slip row', () => {
  const items = [
    { id: 'r-nov', date: '2026-11-30', balance: 50000 },
    { id: 'r-oct', date: '2026-10-31', balance: 40000 },
  ];
  test('a tap clears an uncleared slip and uncleares a cleared one', () => {
    assert.deepEqual(clearedMark({ date: '2026-11-03', cleared: 'uncleared' }, items).patch, { cleared: 'cleared' });
    assert.deepEqual(clearedMark({ date: '2026-11-03', cleared: 'cleared' }, items).patch, { cleared: null });
  });
  test('a reconciled slip is locked and names the reconciliation that locked it', () => {
    const mark = clearedMark({ date: '2026-11-03', cleared: 'reconciled' }, items);
    assert.equal(mark.locked, true);
    assert.equal(mark.patch, null);
    assert.match(mark.title, /2026-11-30/);
    assert.match(mark.title, /r-nov/);
  });
  test('the reconciliation is the earliest dated that day or later', () => {
    assert.equal(lockedBy(items, '2026-10-31').id, 'r-oct');
    assert.equal(lockedBy(items, '2026-11-01').id, 'r-nov');
    assert.equal(lockedBy(items, '2026-12-01'), null);
    assert.equal(lockedBy(undefined, '2026-12-01'), null);
  });
});
