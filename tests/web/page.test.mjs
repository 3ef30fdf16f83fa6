// The everyday page's pure logic under Node's test runner: the usual categories offered as chips and
// the account preselected for a quick entry (from the month's slips and three months' totals). Run by tests/api/test_web.py with the other *.test.mjs.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { SYSTEM_CATEGORIES, busiestAccount, latestAccount, usualCategories } from '../../web/format.js';
import { entryAccounts, forgetAll, forgetOthers, keepAt, keptAt, keptKey } from '../../web/kept.js';
import { identity } from '../../web/outbox.js';

const slip = (date, category, account = 'wallet', kind = 'expense', lines = undefined) => ({ date, category, account, kind, lines });

describe('the usual categories', () => {
  const totals = (rows) => ({ by_category: rows.map(([category, expense, income = 0]) => ({ category, expense, income })) });

  test("most used among the month's expenses first, then most spent on in the months' totals, then the fallback", () => {
    // Given 食費 twice and 交通費 once this month (an income and an uncategorized one beside),
    // and three months' totals where 日用品 was spent on most, then 交通費
    const slips = [
      slip('2026-11-01', '食費'),
      slip('2026-11-03', '給与', 'bank', 'income'),
      slip('2026-11-04', '食費'),
      slip('2026-11-05', '交通費'),
      slip('2026-11-06', 'uncategorized'),
    ];
    const months = [totals([['日用品', 3000], ['交通費', 800], ['給与', 0, 250000]]), totals([['日用品', 1200], ['uncategorized', 9000]])];
    // Then 食費, 交通費 (by use), 日用品 (by spending), then the fallback without repeats
    assert.deepEqual(usualCategories({ slips, totals: months }, 5, ['食費', '外食', '娯楽費']), ['食費', '交通費', '日用品', '外食', '娯楽費']);
  });

  test('equal use goes to the one spent on more, then by name (the same chips every time)', () => {
    const slips = [slip('2026-11-01', '日用品'), slip('2026-11-02', '交通費')];
    assert.deepEqual(usualCategories({ slips, totals: [totals([['交通費', 900], ['日用品', 100]])] }, 2), ['交通費', '日用品']);
    assert.deepEqual(usualCategories({ slips }, 2), ['交通費', '日用品']); // by name: 交 before 日
  });

  test("a split slip counts each of its lines' categories", () => {
    const split = slip('2026-11-02', '食費', 'wallet', 'expense', [
      { amount: 500, category: '日用品' },
      { amount: 300, category: '日用品' },
    ]);
    assert.deepEqual(usualCategories({ slips: [slip('2026-11-01', '食費'), split] }, 2), ['日用品', '食費']);
  });

  test('nothing yet: the fallback, cut to the count', () => {
    assert.deepEqual(usualCategories({}, 2, ['食費', '日用品', '交通費']), ['食費', '日用品']);
  });

  test('the categories the API books by itself are never offered, however often they were booked', () => {
    // Given a month whose most frequent expenses are points lapsing (the daily job's ポイント失効) and a
    // reconciliation's 使途不明金, and totals where they were spent on most
    const slips = [
      slip('2026-11-01', 'ポイント失効', 'pts'), slip('2026-11-02', 'ポイント失効', 'pts'), slip('2026-11-03', 'ポイント失効', 'pts'),
      slip('2026-11-04', '使途不明金'), slip('2026-11-05', '使途不明金'), slip('2026-11-06', '食費'),
    ];
    const months = [totals([['使途不明金', 90000], ['ポイント失効', 5000], ['日用品', 800]])];
    // Then the chips are the household's own categories only, the fallback too without them
    assert.deepEqual(usualCategories({ slips, totals: months }, 4, ['ポイント失効', '交通費']), ['食費', '日用品', '交通費']);
    assert.deepEqual(SYSTEM_CATEGORIES, ['ポイント失効', '使途不明金']);
  });
});

describe('the account preselected', () => {
  test("the latest expense's account, a later one listed wins a tie; none without expenses", () => {
    const slips = [slip('2026-11-05', '食費', 'card'), slip('2026-11-03', '食費', 'wallet'), slip('2026-11-05', '日用品', 'bank'), slip('2026-11-09', '給与', 'payroll', 'income')];
    assert.equal(latestAccount(slips, '2026-11-20'), 'bank');
    assert.equal(latestAccount([slip('2026-11-09', '給与', 'payroll', 'income')], '2026-11-20'), null);
  });

  test('a slip dated after today (rent recorded ahead) does not choose the account', () => {
    // Given today's lunch from the wallet and next week's rent from the bank, recorded ahead
    const slips = [slip('2026-11-20', '食費', 'wallet'), slip('2026-11-27', '住居費', 'bank'), slip('2026-11-19', '日用品', 'card')];
    // Then on 11/20 the account is the wallet's (the last slip dated today or earlier)
    assert.equal(latestAccount(slips, '2026-11-20'), 'wallet');
    // And once that day has come, the rent's
    assert.equal(latestAccount(slips, '2026-11-27'), 'bank');
    // And with only slips dated ahead, none
    assert.equal(latestAccount([slip('2026-11-27', '住居費', 'bank')], '2026-11-20'), null);
  });

  test("else the account that spent most in the months' totals; none when nothing was spent", () => {
    const month = (rows) => ({ by_account: rows.map(([account, expense]) => ({ account, expense, income: 0, net: -expense })) });
    assert.equal(busiestAccount([month([['wallet', 800], ['card', 600]]), month([['card', 700]])]), 'card');
    assert.equal(busiestAccount([month([['bank', 0]])]), null);
    assert.equal(busiestAccount([]), null);
  });
});

describe('the journal followed from where the page got to (views/journal.js followed)', async () => {
  const { followed } = await import('../../web/views/journal.js');
  const entry = (seq, extra = {}) => ({ seq, by: 'hanako', origin: 'api', changes: [], ...extra });

  test('new entries are added and the last ones kept', () => {
    assert.deepEqual(followed([entry(1), entry(2)], [entry(3)], 2).map((e) => e.seq), [2, 3]);
  });

  test('an entry an undo among the new ones took back is marked, as a read from the start shows it', () => {
    const kept = followed([entry(4), entry(5)], [entry(6, { origin: 'undo', undoes: 5 })], 10);
    assert.deepEqual(kept.map((e) => [e.seq, e.undone_by ?? null]), [[4, null], [5, 6], [6, null]]);
  });
});

describe('what the page keeps for entering slips without a connection (kept.js)', () => {
  /** A localStorage of our own (Node has none). */
  const storage = () => {
    const items = new Map();
    return {
      get length() {
        return items.size;
      },
      key: (i) => [...items.keys()][i] ?? null,
      getItem: (k) => (items.has(k) ? items.get(k) : null),
      setItem: (k, v) => items.set(k, String(v)),
      removeItem: (k) => items.delete(k),
      items,
    };
  };

  test('each part is kept per identity and ledger, and read back as it was', () => {
    // Given the accounts and the quick entry's chips of two ledgers of one person, and a second person's
    const store = storage();
    keepAt(keptKey('|user:hanako', 'me'), 'accounts', [{ id: 'wallet', name: '財布', type: 'cash' }], store);
    keepAt(keptKey('|user:hanako', 'me'), 'quick', { chips: ['食費'], account: 'wallet' }, store);
    keepAt(keptKey('|user:hanako', 'L1'), 'accounts', [{ id: 'bank', name: '共有口座', type: 'bank' }], store);
    keepAt(keptKey('|user:taro', 'me'), 'accounts', [], store);
    // Then each reads back its own, and nothing of another ledger or person
    assert.deepEqual(keptAt(keptKey('|user:hanako', 'me'), 'accounts', store), [{ id: 'wallet', name: '財布', type: 'cash' }]);
    assert.deepEqual(keptAt(keptKey('|user:hanako', 'me'), 'quick', store), { chips: ['食費'], account: 'wallet' });
    assert.deepEqual(keptAt(keptKey('|user:hanako', 'L1'), 'accounts', store), [{ id: 'bank', name: '共有口座', type: 'bank' }]);
    assert.deepEqual(keptAt(keptKey('|user:taro', 'me'), 'accounts', store), []);
    assert.equal(keptAt(keptKey('|user:taro', 'L1'), 'accounts', store), null);
  });

  test('the accounts are kept without their balances (stale once offline)', () => {
    const read = [{ id: 'usd', name: 'ドル', type: 'bank', unit: 'USD', balance: 12345, opening_balance: 0, archived: false, version: 3, billing: null }];
    assert.deepEqual(entryAccounts(read), [{ id: 'usd', name: 'ドル', type: 'bank', unit: 'USD', archived: false }]);
  });

  test("a ledger no longer the caller's is forgotten; their other ledgers and other people's stay", () => {
    const store = storage();
    for (const [who, ledger] of [['|user:hanako', 'me'], ['|user:hanako', 'L1'], ['|user:hanako', 'L2'], ['|user:taro', 'L2']]) keepAt(keptKey(who, ledger), 'accounts', [], store);
    keepAt(keptKey('|user:hanako'), 'ledgers', { items: [] }, store);
    forgetOthers('|user:hanako', ['me', 'L1'], store);
    assert.deepEqual([...store.items.keys()].sort(), [keptKey('|user:hanako'), keptKey('|user:hanako', 'L1'), keptKey('|user:hanako', 'me'), keptKey('|user:taro', 'L2')].sort());
  });

  test("once the caller's data is deleted (DELETE /me), nothing of theirs stays kept; another person's does", () => {
    const store = storage();
    for (const ledger of ['me', 'L1']) keepAt(keptKey(identity(), ledger), 'accounts', [{ id: 'wallet' }], store);
    keepAt(keptKey(identity()), 'ledgers', { items: [{ id: 'me' }, { id: 'L1' }] }, store);
    keepAt(keptKey('|user:someone-else', 'me'), 'accounts', [], store);
    forgetAll(store);
    assert.deepEqual([...store.items.keys()], [keptKey('|user:someone-else', 'me')]);
  });

  test('storage disabled or holding something else: nothing kept, nothing thrown', () => {
    const broken = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('denied'); } };
    assert.doesNotThrow(() => keepAt('k', 'accounts', [], broken));
    assert.equal(keptAt('k', 'accounts', broken), null);
    const odd = storage();
    odd.setItem('k', '[1, 2]');
    assert.equal(keptAt('k', 'accounts', odd), null);
  });
});
