// The everyday page's pure logic under Node's test runner: the usual categories offered as chips and
// the account preselected for a quick entry. Run by tests/api/test_web.py with the other *.test.mjs.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { latestAccount, usualCategories } from '../../web/format.js';

const slip = (date, category, account = 'wallet', kind = 'expense', lines = undefined) => ({ date, category, account, kind, lines });

describe('the usual categories', () => {
  test('most used expenses first, a tie to the one used last, then the fallback to fill up', () => {
    // Given 食費 twice, 日用品 and 交通費 once each (交通費 later), an income and an uncategorized one
    const slips = [
      slip('2026-11-01', '食費'),
      slip('2026-11-02', '日用品'),
      slip('2026-11-03', '給与', 'bank', 'income'),
      slip('2026-11-04', '食費'),
      slip('2026-11-05', '交通費'),
      slip('2026-11-06', 'uncategorized'),
    ];
    // Then 食費, then 交通費 (used last of the ties), then 日用品, then the fallback without repeats
    assert.deepEqual(usualCategories(slips, 5, ['食費', '外食', '娯楽費']), ['食費', '交通費', '日用品', '外食', '娯楽費']);
  });

  test("a split slip counts each of its lines' categories", () => {
    const split = slip('2026-11-02', '食費', 'wallet', 'expense', [
      { amount: 500, category: '日用品' },
      { amount: 300, category: '日用品' },
    ]);
    assert.deepEqual(usualCategories([slip('2026-11-01', '食費'), split], 2), ['日用品', '食費']);
  });

  test('no slips: the fallback, cut to the count', () => {
    assert.deepEqual(usualCategories([], 2, ['食費', '日用品', '交通費']), ['食費', '日用品']);
  });
});

describe('the account preselected', () => {
  test("the latest expense's account, a later one listed wins a tie; none without expenses", () => {
    const slips = [slip('2026-11-05', '食費', 'card'), slip('2026-11-03', '食費', 'wallet'), slip('2026-11-05', '日用品', 'bank'), slip('2026-11-09', '給与', 'payroll', 'income')];
    assert.equal(latestAccount(slips), 'bank');
    assert.equal(latestAccount([slip('2026-11-09', '給与', 'payroll', 'income')]), null);
  });
});
