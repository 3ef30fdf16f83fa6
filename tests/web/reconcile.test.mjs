// 残高を合わせる's pure logic (web/views/reconcile.js): the balance as typed, the difference in words,
// the cleared mark of each side of a slip row, the reconciliation a locked side names, and what
// unlocking one asks and tells. Run by tests/api/test_web.py.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ADJUST_CATEGORY, brokenText, clearedMark, differenceText, lockedBy, parseBalance, slipSides, unlockQuestion } from '../../web/views/reconcile.js';

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

describe("a transfer's receiving side", () => {
  const transfer = { date: '2026-11-05', kind: 'transfer', account: 'bank', to_account: 'cash', cleared: 'cleared', to_cleared: 'uncleared' };
  test('a transfer has two sides, anything else one', () => {
    assert.deepEqual(slipSides(transfer).map((s) => [s.field, s.account]), [['cleared', 'bank'], ['to_cleared', 'cash']]);
    assert.deepEqual(slipSides({ kind: 'expense', account: 'bank' }).map((s) => s.field), ['cleared']);
  });
  test('a tap on the receiving side sends to_cleared, and leaves the paying side alone', () => {
    const mark = clearedMark(transfer, [], 'to_cleared');
    assert.deepEqual(mark.patch, { to_cleared: 'cleared' });
    assert.match(mark.label, /入金側/);
    assert.deepEqual(clearedMark({ ...transfer, to_cleared: 'cleared' }, [], 'to_cleared').patch, { to_cleared: null });
    assert.deepEqual(clearedMark(transfer, []).patch, { cleared: null });
  });
});

describe('unlocking a reconciled side', () => {
  const items = [{ id: 'r-nov', date: '2026-11-30', balance: 50000, holds: true }];
  test('a locked side offers the patch that unlocks it back to uncleared, naming its reconciliation', () => {
    const mark = clearedMark({ date: '2026-11-03', kind: 'transfer', cleared: 'cleared', to_cleared: 'reconciled' }, items, 'to_cleared');
    assert.equal(mark.locked, true);
    assert.deepEqual(mark.unlock, { to_cleared: null });
    assert.equal(mark.by.id, 'r-nov');
    assert.deepEqual(clearedMark({ date: '2026-11-03', cleared: 'reconciled' }, items).unlock, { cleared: null });
  });
  test('the question names the reconciliation it breaks', () => {
    assert.match(unlockQuestion(items[0]), /2026-11-30/);
    assert.match(unlockQuestion(items[0]), /成り立たなく/);
    assert.match(unlockQuestion(null), /照合/);
  });
  test('what no longer holds, in words; nothing when all hold', () => {
    assert.equal(brokenText(items), '');
    assert.equal(brokenText(undefined), '');
    const said = brokenText([...items, { id: 'r-oct', date: '2026-10-31', balance: 40000, holds: false }]);
    assert.match(said, /成り立たなくなった照合/);
    assert.match(said, /2026-10-31/);
    assert.match(said, /r-oct/);
    assert.doesNotMatch(said, /r-nov/);
  });
});

describe("an account in another unit is reconciled in its unit (a dollar statement, a points balance)", () => {
  test('the balance typed in the account unit: dollars to cents with integer arithmetic, points whole', () => {
    assert.equal(parseBalance('98.16', 'USD'), 9816);
    assert.equal(parseBalance('１００', 'USD'), 10000);
    assert.equal(parseBalance('-12.5', 'USD'), -1250);
    assert.equal(parseBalance('0', 'USD'), 0);
    assert.equal(parseBalance('1,200', 'points'), 1200);
    for (const text of ['', '98.165', 'abc', '1e3']) assert.equal(parseBalance(text, 'USD'), null, text);
    assert.equal(parseBalance('12.5', 'points'), null);
  });

  test('the difference said in the account unit', () => {
    assert.match(differenceText(1250, 'USD'), /差額 \$12\.50: 明細のほうが多く/);
    assert.match(differenceText(-30, 'points'), /家計簿のほうが 30 pt 多く残っています/);
    assert.match(differenceText(1200), /￥1,200/); // yen unless told
  });
});
