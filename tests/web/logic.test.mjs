// The page's pure logic (web/*.js, and the shared state the views read), with Node's own test runner: money, dates, merge patches,
// conflict diffs, the API client's headers and error handling. Run by tests/api/test_web.py.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  Api,
  ApiError,
  etagVersion,
  inviteLink,
  inviteTokenOf,
  ledgerPath,
  loadConfig,
  normaliseBase,
  preferredLanguage,
  query,
  saveConfig,
  segment,
} from '../../web/api.js';
import { chartGroups, chartRows, linePoints, shorten } from '../../web/chart.js';
import {
  FIELD_LABELS,
  authorText,
  canWrite,
  defaultDay,
  fieldText,
  filterSlips,
  isDate,
  isMonth,
  ledgerLabel,
  momentText,
  mergePatch,
  monthLabel,
  monthRange,
  parseAmount,
  setLedgerTimeZone,
  shiftMonth,
  shortDay,
  slipChanges,
  today,
  yen,
} from '../../web/format.js';
import { accountName, at, dropPending, emit, memberName, newest, on, state } from '../../web/state.js';

const slip = {
  id: '01JD',
  no: 7,
  date: '2026-11-20',
  kind: 'expense',
  amount: 1200,
  account: 'wallet',
  to_account: null,
  category: '食費',
  memo: 'スーパー',
  version: 1,
};

describe('money', () => {
  test('yen uses the ja-JP currency format', () => {
    assert.equal(yen(1200), '￥1,200');
    assert.equal(yen(-35000), '-￥35,000');
    assert.equal(yen(0), '￥0');
  });

  test('amounts typed with an IME, separators or a yen sign are understood', () => {
    // Given what people type on a Japanese keyboard
    // Then each is the same integer number of yen
    assert.equal(parseAmount('１２００'), 1200);
    assert.equal(parseAmount('1,200'), 1200);
    assert.equal(parseAmount('￥1,200'), 1200);
    assert.equal(parseAmount('1200円'), 1200);
    assert.equal(parseAmount(' 35 000 '), 35000);
    assert.equal(parseAmount('−500', { allowNegative: true }), -500);
  });

  test('anything else is refused with a message a person can act on', () => {
    for (const bad of ['', '12.5', '1e3', 'abc', '0x10', '-5', '0', '1000000000001']) {
      assert.throws(() => parseAmount(bad), /金額/, `should refuse ${JSON.stringify(bad)}`);
    }
    assert.equal(parseAmount('0', { allowZero: true }), 0);
  });
});

describe('dates and months', () => {
  test('month ranges know month lengths and leap years', () => {
    assert.deepEqual(monthRange('2026-11'), { from: '2026-11-01', to: '2026-11-30' });
    assert.deepEqual(monthRange('2028-02'), { from: '2028-02-01', to: '2028-02-29' });
    assert.deepEqual(monthRange('2026-02'), { from: '2026-02-01', to: '2026-02-28' });
  });

  test('months shift across years', () => {
    assert.equal(shiftMonth('2026-01', -1), '2025-12');
    assert.equal(shiftMonth('2026-12', 1), '2027-01');
    assert.equal(shiftMonth('2026-11', 14), '2028-01');
  });

  test('only real dates and months are accepted', () => {
    assert.ok(isDate('2028-02-29'));
    assert.ok(!isDate('2026-02-29'));
    assert.ok(!isDate('2026-13-01'));
    assert.ok(!isDate('2026-1-01'));
    assert.ok(isMonth('2026-11'));
    assert.ok(!isMonth('2026-00'));
    assert.ok(!isMonth('1899-12'));
  });

  test('a new slip defaults to today in the current month, else to the 1st', () => {
    const now = new Date('2026-11-21T23:30:00+09:00'); // late evening in Tokyo
    assert.equal(defaultDay('2026-11', now), '2026-11-21');
    assert.equal(defaultDay('2026-10', now), '2026-10-01');
  });

  test("today is the ledger's day (Asia/Tokyo), whatever the browser's time zone", () => {
    const morning = new Date('2026-11-30T15:30:00Z'); // 00:30 on 12/1 in Tokyo, still 11/30 in UTC
    assert.equal(today(morning), '2026-12-01');
    assert.equal(defaultDay('2026-12', morning), '2026-12-01');
    assert.equal(today(morning, 'UTC'), '2026-11-30');
    assert.equal(today(new Date('2026-01-01T00:00:00+09:00'), 'America/New_York'), '2025-12-31');
  });

  test('an unknown time zone leaves the one in use', () => {
    assert.equal(setLedgerTimeZone('Not/AZone'), 'Asia/Tokyo');
    assert.equal(setLedgerTimeZone('UTC'), 'UTC');
    assert.equal(today(new Date('2026-11-30T15:30:00Z')), '2026-11-30');
    assert.equal(setLedgerTimeZone('Asia/Tokyo'), 'Asia/Tokyo');
  });

  test('days and months read in Japanese', () => {
    assert.equal(shortDay('2026-11-20'), '11/20(金)');
    assert.equal(monthLabel('2026-11'), '2026年11月');
  });
});

describe('slip changes', () => {
  test('a merge patch carries only what changed', () => {
    // Given the slip as read, and the form with a new date and a cleared memo
    const wanted = { ...slip, date: '2026-11-10', memo: null };
    // Then the patch moves the date and removes the memo, nothing else
    assert.deepEqual(mergePatch(slip, wanted), { date: '2026-11-10', memo: null });
    assert.deepEqual(mergePatch(slip, { ...slip }), {});
  });

  test('turning an expense into a transfer drops its category', () => {
    const wanted = { ...slip, kind: 'transfer', to_account: 'suica', category: '食費' };
    assert.deepEqual(mergePatch(slip, wanted), { kind: 'transfer', to_account: 'suica', category: null });
  });

  test('a conflict lists exactly the fields someone else changed', () => {
    const theirs = { ...slip, amount: 1500, memo: 'コンビニ', version: 2 };
    assert.deepEqual(slipChanges(slip, theirs), [
      { field: 'amount', before: 1200, after: 1500 },
      { field: 'memo', before: 'スーパー', after: 'コンビニ' },
    ]);
    // A deleted slip: every field it had is gone
    assert.deepEqual(
      slipChanges(slip, null).map((c) => c.field),
      ['date', 'kind', 'amount', 'account', 'category', 'memo'],
    );
  });

  test("a conflict names the payee another screen changed, in words", () => {
    // Given the slip as read, then as another screen left it: paid at マルエツ instead of nowhere
    const theirs = { ...slip, payee: 'マルエツ', version: 2 };
    // When the two are compared for the conflict panel
    const changes = slipChanges(slip, theirs);
    // Then the payee is the one change, with its label
    assert.deepEqual(changes, [{ field: 'payee', before: null, after: 'マルエツ' }]);
    assert.equal(FIELD_LABELS.payee, '支払先');
  });

  test('field values read as a person expects', () => {
    const names = { wallet: '財布' };
    assert.equal(fieldText('amount', 1500), '￥1,500');
    assert.equal(fieldText('amount', 1234, undefined, 'USD'), '$12.34'); // in its account's unit (the conflict panel)
    assert.equal(fieldText('amount', 1200, undefined, 'points'), '1,200 pt');
    assert.equal(fieldText('kind', 'transfer'), '振替');
    assert.equal(fieldText('account', 'wallet', (id) => names[id] ?? id), '財布');
    assert.equal(fieldText('category', 'uncategorized'), '未分類');
    assert.equal(fieldText('memo', null), '—');
    assert.equal(fieldText('date', '2026-11-10'), '2026年11月10日(火)');
  });
});

describe('chart', () => {
  const byCategory = [
    { category: '給与', income: 280000, expense: 0 },
    { category: '食費', income: 0, expense: 9680 },
    { category: '水道光熱費', income: 0, expense: 12800 },
    { category: '空', income: 0, expense: 0 },
  ];

  test('spending and income are separate groups, biggest first, empty categories left out', () => {
    assert.deepEqual(chartGroups(byCategory), [
      {
        kind: 'expense',
        label: '支出',
        rows: [
          { category: '水道光熱費', value: 12800 },
          { category: '食費', value: 9680 },
        ],
      },
      { kind: 'income', label: '収入', rows: [{ category: '給与', value: 280000 }] },
    ]);
    assert.deepEqual(
      chartRows(byCategory).map((r) => r.category),
      ['水道光熱費', '食費', '給与'],
    );
  });

  test('long labels are shortened by characters, not bytes', () => {
    assert.equal(shorten('食費'), '食費');
    assert.equal(shorten('子どもの習い事と教材'), '子どもの習…');
  });
});

describe('filters', () => {
  const slips = [
    { id: 'a', kind: 'expense', account: 'wallet', to_account: null, category: '食費', memo: 'スーパー 特売' },
    { id: 'b', kind: 'expense', account: 'card', to_account: null, category: '交通費', memo: 'ＪＲ 定期' },
    { id: 'c', kind: 'transfer', account: 'bank', to_account: 'wallet', category: null, memo: null },
    { id: 'd', kind: 'income', account: 'bank', to_account: null, category: '給与', subcategory: '基本給', memo: '' },
  ];
  const ids = (filters) => filterSlips(slips, filters).map((s) => s.id);

  test('no filter keeps every slip', () => {
    assert.deepEqual(ids({}), ['a', 'b', 'c', 'd']);
  });

  test('an account matches either side of a transfer', () => {
    assert.deepEqual(ids({ account: 'wallet' }), ['a', 'c']);
  });

  test('category and kind narrow together', () => {
    assert.deepEqual(ids({ kind: 'expense', category: '交通費' }), ['b']);
    assert.deepEqual(ids({ kind: 'income', category: '交通費' }), []);
  });

  test('every word of the search must appear, width and case folded, in memo, category or subcategory', () => {
    assert.deepEqual(ids({ text: 'jr　定期' }), ['b']); // half-width, lower case, an ideographic space
    assert.deepEqual(ids({ text: 'スーパー 定期' }), []);
    assert.deepEqual(ids({ text: '基本' }), ['d']);
    assert.deepEqual(ids({ text: '食費' }), ['a']);
  });

  test('the search finds a payee as the slip or its file wrote it, half-width katakana folded', () => {
    const paid = [
      { id: 'p', kind: 'expense', account: 'card', category: '食費', payee: 'マルエツ', imported_payee: 'ｽｰﾊﾟｰﾏﾙｴﾂ ｶﾜｸﾞﾁ' },
      { id: 'q', kind: 'expense', account: 'card', category: '食費', payee: '八百屋', memo: null },
    ];
    const found = (text) => filterSlips(paid, { text }).map((s) => s.id);
    assert.deepEqual(found('マルエツ'), ['p']);
    assert.deepEqual(found('スーパー'), ['p']);
    assert.deepEqual(found('八百屋'), ['q']);
  });
});

describe('balance history line', () => {
  test('points span the box; the lowest balance at the bottom, the highest at the top', () => {
    const items = [
      { date: '2026-11-01', balance: 100 },
      { date: '2026-11-02', balance: 50 },
      { date: '2026-11-03', balance: 150 },
    ];
    assert.deepEqual(linePoints(items, 200, 100), [
      [0, 50],
      [100, 100],
      [200, 0],
    ]);
  });

  test('a flat or empty series does not divide by zero', () => {
    assert.deepEqual(linePoints([{ date: 'd', balance: 7 }], 200, 100), [[0, 100]]);
    assert.deepEqual(linePoints([], 200, 100), []);
  });
});

describe('API client', () => {
  function fakeFetch(reply) {
    const calls = [];
    const fetch = async (url, init) => {
      calls.push({ url, init });
      return reply(url, init);
    };
    return { calls, fetch };
  }

  const response = (status, body, headers = {}) =>
    new Response(body === null ? null : typeof body === 'string' ? body : JSON.stringify(body), { status, headers });

  test('the user is the bearer token locally; a person signed in sends their ID token', async () => {
    const { calls, fetch } = fakeFetch(() => response(200, { items: [] }));
    await new Api({ user: 'hanako', base: '' }, fetch).get('/accounts');
    const session = { signedIn: true, bearer: async () => 'eyJ.x.y' };
    await new Api({ user: 'local', base: 'https://api.example.test' }, fetch, 'ja', session).get('/accounts');
    assert.equal(calls[0].url, '/accounts');
    assert.equal(calls[0].init.headers.Authorization, 'Bearer hanako');
    assert.equal(calls[1].url, 'https://api.example.test/accounts');
    assert.equal(calls[1].init.headers.Authorization, 'Bearer eyJ.x.y');
  });

  test('writes send JSON, If-Match and extra headers; ETag and Location come back', async () => {
    const { calls, fetch } = fakeFetch(() =>
      response(200, { ...slip, version: 2 }, { ETag: '"2"', Location: '/slips/2026-11-10/01JD' }),
    );
    const api = new Api({ user: 'local', base: '', token: '' }, fetch);
    const out = await api.request('PATCH', '/slips/2026-11-20/01JD', {
      json: { date: '2026-11-10' },
      contentType: 'application/merge-patch+json',
      ifMatch: '"1"',
      headers: { 'Idempotency-Key': 'k1' },
    });
    const { init } = calls[0];
    assert.equal(init.method, 'PATCH');
    assert.equal(init.body, '{"date":"2026-11-10"}');
    assert.equal(init.headers['Content-Type'], 'application/merge-patch+json');
    assert.equal(init.headers['If-Match'], '"1"');
    assert.equal(init.headers['Idempotency-Key'], 'k1');
    assert.equal(out.etag, '"2"');
    assert.equal(out.location, '/slips/2026-11-10/01JD');
    assert.equal(etagVersion(out.etag), 2);
    assert.equal(etagVersion('W/"5"'), 5);
    assert.equal(etagVersion('*'), null);
  });

  test('errors are asked for in the browser\'s language, Japanese by default', async () => {
    assert.equal(preferredLanguage({ language: 'en-US' }), 'en-US');
    assert.equal(preferredLanguage({ language: 'ja-JP' }), 'ja-JP');
    assert.equal(preferredLanguage(undefined), 'ja');
    assert.equal(preferredLanguage({ language: 'x y' }), 'ja');
    const { fetch, calls } = fakeFetch(() => response(200, {}));
    await new Api({ user: 'local' }, fetch, 'ja').get('/accounts');
    assert.equal(calls[0].init.headers['Accept-Language'], 'ja');
  });

  test("a problem's detail is what the person sees", async () => {
    const problem = { type: 'x', title: 'Insufficient funds', status: 409, detail: "account 'wallet' has ￥800", code: 'insufficient_funds' };
    const { fetch } = fakeFetch(() => response(409, problem, { 'Content-Type': 'application/problem+json' }));
    const error = await new Api({ user: 'local' }, fetch).get('/x').catch((e) => e);
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 409);
    assert.equal(error.code, 'insufficient_funds');
    assert.equal(error.message, "account 'wallet' has ￥800");
  });

  test("an undeclared route (API Gateway's own 404) has no code: the page hides that panel", async () => {
    const { fetch } = fakeFetch(() => response(404, { message: 'Not Found' }));
    const error = await new Api({ user: 'local' }, fetch).get('/budgets?month=2026-11').catch((e) => e);
    assert.equal(error.status, 404);
    assert.equal(error.code, null);
    assert.equal(error.detail, 'Not Found');
  });

  test('a network failure is status 0 with a readable message', async () => {
    const fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    const error = await new Api({ user: 'local', base: 'http://127.0.0.1:9' }, fetch).get('/accounts').catch((e) => e);
    assert.equal(error.status, 0);
    assert.match(error.message, /接続できません/);
  });

  test('the API routes come from its OpenAPI document, or are unknown', async () => {
    const ok = fakeFetch(() => response(200, { paths: { '/slips': {}, '/budgets': {} } }));
    const routes = await new Api({ user: 'local' }, ok.fetch).routes();
    assert.ok(routes.has('/budgets'));
    assert.ok(!routes.has('/imports'));
    assert.equal(ok.calls[0].init.headers.Authorization, undefined); // public route
    const down = fakeFetch(() => response(500, 'oops'));
    assert.equal(await new Api({ user: 'local' }, down.fetch).routes(), null);
  });

  test('settings round-trip through storage; blanks fall back to the local user', () => {
    const store = new Map();
    const storage = {
      getItem: (k) => store.get(k) ?? null,
      setItem: (k, v) => store.set(k, v),
      removeItem: (k) => store.delete(k),
    };
    assert.deepEqual(loadConfig(storage), { user: 'local', base: '', sub: null });
    saveConfig({ user: ' taro ', base: 'https://api.example.test' }, storage);
    assert.deepEqual(loadConfig(storage), { user: 'taro', base: '', sub: null }); // the API's URL is config.json's
    assert.deepEqual([...store.keys()], ['kakeibo.user']);
  });

  test('base URLs and query strings', () => {
    assert.equal(normaliseBase(' https://api.example.test/ '), 'https://api.example.test');
    assert.equal(normaliseBase(''), '');
    assert.throws(() => normaliseBase('ftp://x'), /http/);
    assert.throws(() => normaliseBase('not a url'), /URL/);
    assert.equal(query({ from: '2026-11-01', cursor: null, limit: 100 }), '?from=2026-11-01&limit=100');
    assert.equal(segment('食費/外食'), '%E9%A3%9F%E8%B2%BB%2F%E5%A4%96%E9%A3%9F');
  });
});

describe('shared ledgers', () => {
  test('data routes stay unprefixed for the personal ledger and go under /ledgers/{ledger} for a shared one', () => {
    assert.equal(ledgerPath('me', '/slips?from=2026-11-01'), '/slips?from=2026-11-01');
    assert.equal(ledgerPath(undefined, '/accounts'), '/accounts');
    assert.equal(ledgerPath('01JD7Q2W3E4R5T6Y7U8I9O0P1A', '/slips/2026-11-03/X'), '/ledgers/01JD7Q2W3E4R5T6Y7U8I9O0P1A/slips/2026-11-03/X');
  });

  test('an invitation is found in a pasted token or a link, and nothing else passes for one', () => {
    const token = 'Ab_9-'.repeat(6) + 'xy'; // 32 characters of the token alphabet
    const where = { origin: 'https://kakeibo.example', pathname: '/' };
    // Given a link made for the token, the bare token, or either with spaces around it
    const link = inviteLink(token, where);
    assert.equal(link, `https://kakeibo.example/#invite=${token}`);
    // Then the token comes back out of each
    assert.equal(inviteTokenOf(link), token);
    assert.equal(inviteTokenOf(`  ${token}\n`), token);
    assert.equal(inviteTokenOf(`#invite=${token}`), token);
    // And what is not a whole token is refused
    assert.equal(inviteTokenOf(''), null);
    assert.equal(inviteTokenOf(token.slice(1)), null);
    assert.equal(inviteTokenOf(`${token}x`), null);
    assert.equal(inviteTokenOf('https://kakeibo.example/#invite=short'), null);
    assert.equal(inviteTokenOf(`https://kakeibo.example/#invite=${token}x`), null);
    // A link pasted from a message with its punctuation still gives the token
    assert.equal(inviteTokenOf(`参加してね: ${link}。`), token);
    assert.equal(inviteTokenOf('#2026-11'), null);
  });

  test('only owners and editors write; the switcher names each ledger with the caller\'s role', () => {
    assert.deepEqual(['owner', 'editor', 'viewer', undefined].map(canWrite), [true, true, false, false]);
    assert.equal(ledgerLabel({ id: 'me', name: null, role: 'owner' }), '自分の家計簿（個人）');
    assert.equal(ledgerLabel({ id: '01JD', name: '山田家', role: 'viewer' }), '山田家（閲覧者）');
  });

  test('a slip names who wrote it, and who changed it last when that is someone else', () => {
    const name = (u) => (u === 'hanako' ? 'hanako（あなた）' : u);
    assert.equal(authorText({ created_by: 'hanako', updated_by: 'hanako' }, name), 'hanako（あなた）');
    assert.equal(authorText({ created_by: 'hanako', updated_by: 'taro' }, name), 'hanako（あなた）（更新: taro）');
    assert.equal(authorText({ created_by: 'taro', updated_by: null }), 'taro');
    assert.equal(authorText({ created_by: null, updated_by: null }), ''); // slips from before
    assert.equal(authorText({}), '');
  });
});

describe('the shared state of the views (state.js)', () => {
  test('a notice reaches every view listening for it, in the order they listened', () => {
    const heard = [];
    on('test-accounts', (detail) => heard.push(`slips ${detail}`));
    on('test-accounts', (detail) => heard.push(`recurrences ${detail}`));
    emit('test-accounts', 2);
    emit('test-nobody-listens');
    assert.deepEqual(heard, ['slips 2', 'recurrences 2']);
  });

  test('only the newest load of a kind may draw; a ledger switch drops every load on its way', () => {
    const first = newest('slips');
    const second = newest('slips');
    const report = newest('report');
    assert.deepEqual([first(), second(), report()], [false, true, true]);
    dropPending();
    assert.deepEqual([second(), report()], [false, false]);
  });

  test('accounts and members by their names; routes of the ledger shown', () => {
    state.accounts = [{ id: 'bank', name: '銀行' }];
    assert.equal(accountName('bank'), '銀行');
    assert.equal(accountName('gone'), 'gone'); // not (yet) read: its id
    state.me = 'hanako';
    assert.equal(memberName('hanako'), 'hanako（あなた）');
    assert.equal(memberName('taro'), 'taro');
    state.ledger = 'me';
    assert.equal(at('/slips'), '/slips');
    state.ledger = '01JD';
    assert.equal(at('/slips'), '/ledgers/01JD/slips');
  });
});

describe('the journal view (views/journal.js)', async () => {
  const { changedText, describeEntry, othersOf } = await import('../../web/views/journal.js');
  const lunch = { type: 'slip', id: 'S1', op: 'create', version: 1, before: null, after: { amount: 1200, category: '食費' } };

  test('an entry in words: who, what, how much', () => {
    const entry = { seq: 3, by: 'hanako', origin: 'api', changes: [lunch] };
    assert.equal(describeEntry(entry, { me: 'taro' }), 'hanako さんが伝票を追加しました（食費 ￥1,200）');
    assert.equal(describeEntry(entry, { me: 'hanako' }), 'あなたが伝票を追加しました（食費 ￥1,200）');
  });

  test('an import batch, an undo and a split are said as such', () => {
    const batch = { by: 'hanako', origin: 'import', changes: [lunch, lunch, lunch] };
    assert.equal(describeEntry(batch, { me: 'x' }), 'hanako さんが取り込みで伝票ほか 2 件を追加しました（食費 ￥1,200）');
    const undone = { by: 'taro', origin: 'undo', changes: [{ ...lunch, op: 'delete', after: null, before: lunch.after }] };
    assert.equal(describeEntry(undone, { me: 'x' }), 'taro さんが伝票を元に戻しました（食費 ￥1,200）');
    const split = { by: 'taro', origin: 'api', changes: [{ ...lunch, after: { amount: 3000, lines: [{}, {}, {}] } }] };
    assert.equal(describeEntry(split, { me: 'x' }), 'taro さんが伝票を追加しました（3 分類 ￥3,000）');
  });

  test('only other members\' entries make a notice', () => {
    const entries = [{ by: 'me' }, { by: 'hanako' }];
    assert.deepEqual(othersOf(entries, 'me'), [{ by: 'hanako' }]);
  });

  test('a slip\'s changed fields in words', () => {
    assert.equal(changedText({ amount: [1200, 1300] }), ' 金額 ￥1,200 → ￥1,300');
    assert.equal(changedText({ memo: [null, 'ランチ'], date: ['2026-11-03', '2026-11-04'] }), ' メモ — → ランチ、 日付 2026-11-03 → 2026-11-04');
  });

  test('a rule and a reconciliation are named in Japanese, never by their API type', () => {
    // Given a rule made and a reconciliation of a wallet
    const rule = { by: 'me', origin: 'api', changes: [{ type: 'rule', id: 'R1', op: 'create', before: null, after: { name: 'スーパーは食費' } }] };
    const reconciled = { by: 'hanako', origin: 'api', changes: [{ type: 'reconciliation', id: 'C1', op: 'create', before: null, after: { account: 'wallet', balance: 12520 } }] };
    // When they are said
    const names = { wallet: '財布' };
    const said = [describeEntry(rule, { me: 'me' }), describeEntry(reconciled, { me: 'me', accountOf: (id) => names[id] })];
    // Then in words, with what they were about
    assert.deepEqual(said, ['あなたが自動分類のルールを追加しました（スーパーは食費）', 'hanako さんが残高の照合を追加しました（財布 ￥12,520）']);
    assert.ok(said.every((text) => !/rule|reconciliation/.test(text)), said.join(' / '));
  });

  test("amounts of a dollar and a points account are said in the account's unit", () => {
    // Given a dollar expense, points earned, and a dollar account reconciled, each from an account the page knows the unit of
    const units = { usd: 'USD', pts: 'points' };
    const unitOf = (id) => units[id] ?? 'JPY';
    const dinner = { by: 'hanako', origin: 'api', changes: [{ ...lunch, after: { amount: 1234, category: '外食', account: 'usd' } }] };
    const earned = { by: 'hanako', origin: 'api', changes: [{ ...lunch, after: { amount: 300, category: 'ポイント', account: 'pts' } }] };
    const reconciled = { by: 'hanako', origin: 'api', changes: [{ type: 'reconciliation', id: 'C1', op: 'create', after: { account: 'usd', balance: 9816 } }] };
    // Then each amount is in its unit: dollars with cents, points as pt
    assert.equal(describeEntry(dinner, { me: 'x', unitOf }), 'hanako さんが伝票を追加しました（外食 $12.34）');
    assert.equal(describeEntry(earned, { me: 'x', unitOf }), 'hanako さんが伝票を追加しました（ポイント 300 pt）');
    assert.equal(describeEntry(reconciled, { me: 'x', unitOf }), 'hanako さんが残高の照合を追加しました（usd $98.16）');
    // And a slip's history says its changed amount in its account's unit too
    assert.equal(changedText({ amount: [1234, 1500] }, 'USD'), ' 金額 $12.34 → $15.00');
    assert.equal(changedText({ amount: [300, 200] }, 'points'), ' 金額 300 pt → 200 pt');
  });

  test('an entry of the daily job (no member) and a lapse say where they came from', () => {
    const lapse = { by: null, origin: 'point_lapse', changes: [{ ...lunch, after: { amount: 120, category: 'ポイント失効', account: 'pts' } }] };
    assert.equal(describeEntry(lapse, { me: 'x', unitOf: () => 'points' }), 'ポイントの失効で伝票を追加しました（ポイント失効 120 pt）');
  });

  test("the accounts' units as the journal from its start says them (made in a unit, changed later)", async () => {
    const { unitsOf } = await import('../../web/views/journal.js');
    const account = (id, op, unit) => ({ changes: [{ type: 'account', id, op, after: { id, unit } }] });
    const entries = [account('usd', 'create', 'USD'), { changes: [lunch] }, account('pts', 'create', 'points'), account('usd', 'update', 'EUR')];
    assert.deepEqual([...unitsOf(entries)], [['usd', 'EUR'], ['pts', 'points']]);
    assert.deepEqual([...unitsOf([account('bank', 'create', 'JPY')], new Map([['usd', 'USD']]))], [['usd', 'USD'], ['bank', 'JPY']]);
  });
});

describe("the journal's moments (format.js momentText)", () => {
  test("a moment the API wrote in UTC is shown in the ledger's time zone, for people", () => {
    // Given 15:30 UTC on 11/30, which is 00:30 on 12/1 in Tokyo
    const at = '2026-11-30T15:30:00.000Z';
    // Then it reads as Tokyo's day and time, not the raw UTC text
    assert.equal(momentText(at), '12/1(火) 0:30');
    assert.equal(momentText(at, { year: true }), '2026/12/1(火) 0:30');
    // And in another ledger zone as that zone's
    assert.equal(momentText(at, { zone: 'UTC' }), '11/30(月) 15:30');
    assert.equal(momentText('2026-02-28T23:59:00Z', { zone: 'Asia/Tokyo' }), '3/1(日) 8:59');
  });

  test('follows the zone the API named (GET /health), and leaves a text it cannot read as it is', () => {
    setLedgerTimeZone('America/New_York');
    try {
      assert.equal(momentText('2026-11-30T15:30:00Z'), '11/30(月) 10:30');
    } finally {
      setLedgerTimeZone('Asia/Tokyo');
    }
    assert.equal(momentText('not a time'), 'not a time');
  });
});

describe('the webhooks view (views/webhooks.js)', async () => {
  const { deliveryText } = await import('../../web/views/webhooks.js');

  test('a delivery in words: delivered, or why not, and how many attempts', () => {
    assert.equal(deliveryText({ seq: 7, delivered: true, attempts: 1, last: { status: 204 } }), '#7 届きました・1 回');
    assert.equal(deliveryText({ seq: 8, delivered: false, attempts: 3, last: { status: 500 } }), '#8 届いていません（HTTP 500）・3 回');
    assert.equal(deliveryText({ seq: 9, delivered: false, attempts: 2, last: { status: null, error: 'timed out' } }), '#9 届いていません（timed out）・2 回');
  });
});

describe('the data view (views/dataio.js)', async () => {
  const { blockingLedgers, deletionText, nameConfirms, phraseConfirms, progressText } = await import('../../web/views/dataio.js');

  test('an export in words: how far it got while building, what it holds once ready', () => {
    assert.equal(progressText({ state: 'building', items: 400, receipts: 2, parts: 1 }), '書き出し中…（400 件・レシート 2 枚、1 区切り保存済み）');
    assert.equal(progressText({ state: 'ready', items: 812, receipts: 3, parts: 2 }), '書き出しました（812 件・レシート 3 枚）');
  });

  test('a ledger is deleted only once its very name is typed', () => {
    assert.equal(nameConfirms('山田家', '山田家'), true);
    assert.equal(nameConfirms(' 山田家 ', '山田家'), true);
    assert.equal(nameConfirms('山田', '山田家'), false);
    assert.equal(nameConfirms('', ''), false);
    assert.equal(nameConfirms('山田家', null), false);
  });

  test('a deletion in words: how far it got, and when it is done', () => {
    assert.equal(deletionText({ state: 'deleting', items: 200 }), '削除中…（200 件削除済み）');
    assert.equal(deletionText({ state: 'deleted', items: 1234 }), '削除しました（1234 件）');
  });

  test('one\'s own data is deleted only once the phrase itself is typed', () => {
    assert.equal(phraseConfirms('すべて削除'), true);
    assert.equal(phraseConfirms(' すべて削除 '), true);
    assert.equal(phraseConfirms('削除'), false);
    assert.equal(phraseConfirms(''), false);
  });

  test('the ledgers a 409 sole_owner names, in words', () => {
    const problem = { code: 'sole_owner', ledgers: [{ id: '01KAJ', name: '山田家' }, { id: '01KAK', name: '' }] };
    assert.deepEqual(blockingLedgers(problem), ['山田家（01KAJ）', '01KAK']);
    assert.deepEqual(blockingLedgers({ code: 'sole_owner' }), []);
    assert.deepEqual(blockingLedgers(null), []);
  });
});

describe('which journal entries the page offers to undo', async () => {
  const { undoable } = await import('../../web/views/journal.js');

  test('slips, budgets, recurrences and account edits; not members, the ledger or an undone one', () => {
    const of = (type, op = 'create', extra = {}) => ({ changes: [{ type, op }], ...extra });
    assert.equal(undoable(of('slip')), true);
    assert.equal(undoable(of('budget', 'update')), true);
    assert.equal(undoable(of('account', 'update')), true);
    assert.equal(undoable(of('account', 'create')), false);
    assert.equal(undoable(of('member')), false);
    assert.equal(undoable(of('slip', 'create', { undone_by: 9 })), false);
  });
});

describe('立替 on the slip form (views/payer.js)', async () => {
  const { equalShares, payerPatch, sharesLeft, slipYen } = await import('../../web/views/payer.js');

  test('shares are in yen: a slip in dollars by its 円換算, points at their value, yen as typed', () => {
    assert.equal(slipYen('JPY', undefined, '1,200', ''), 1200);
    assert.equal(slipYen(undefined, undefined, '1200', ''), 1200);
    assert.equal(slipYen('USD', undefined, '12.34', '1850'), 1850);
    assert.equal(slipYen('points', 2, '150', ''), 300);
    assert.throws(() => slipYen('USD', undefined, '12.34', ''));
  });

  test('equal shares: the yen that do not divide go one each to the first members in user order', () => {
    assert.deepEqual(equalShares(1000, ['taro', 'hanako', 'jiro']), { hanako: 334, jiro: 333, taro: 333 });
    assert.deepEqual(equalShares(3000, ['b', 'a']), { a: 1500, b: 1500 });
    assert.deepEqual(equalShares(500, []), {});
  });

  test('what the shares leave of the amount', () => {
    assert.equal(sharesLeft(3000, { a: 1000, b: 1500 }), 500);
    assert.equal(sharesLeft(3000, { a: 2000, b: 1500 }), -500);
    assert.equal(sharesLeft(3000, { a: 3000, b: NaN }), 0);
  });

  test('the payer\'s part of a merge patch: only what changed', () => {
    const equal = { paid_by: 'hanako', shares: { hanako: 500, taro: 500 }, shares_mode: 'equal' };
    const custom = { paid_by: 'hanako', shares: { hanako: 200, taro: 800 }, shares_mode: 'custom' };
    assert.deepEqual(payerPatch({}, { paid_by: null, shares: null }), {});
    assert.deepEqual(payerPatch(equal, { paid_by: 'hanako', shares: 'equal' }), {});
    assert.deepEqual(payerPatch(equal, { paid_by: null, shares: null }), { paid_by: null });
    assert.deepEqual(payerPatch(equal, { paid_by: 'taro', shares: 'equal' }), { paid_by: 'taro', shares: 'equal' });
    assert.deepEqual(payerPatch(equal, { paid_by: 'hanako', shares: { taro: 1000 } }), { shares: { taro: 1000 } });
    assert.deepEqual(payerPatch(custom, { paid_by: 'hanako', shares: { taro: 800, hanako: 200 } }), {});
    assert.deepEqual(payerPatch(custom, { paid_by: 'hanako', shares: 'equal' }), { shares: 'equal' });
    assert.deepEqual(payerPatch({}, { paid_by: 'taro', shares: { taro: 1000 } }), { paid_by: 'taro', shares: { taro: 1000 } });
  });
});

describe('精算 (views/settlement.js)', async () => {
  const { named, netText } = await import('../../web/views/settlement.js');

  test('a member who left with a net open is named 退出済み', () => {
    const members = [{ user: 'taro', member: true }, { user: 'jiro', member: false }];
    assert.equal(named('jiro', members), 'jiro（退出済み）');
    assert.equal(named('taro', members), 'taro');
  });

  test('a net in words: owed, owes, settled', () => {
    assert.equal(netText(1500), '￥1,500 受け取る');
    assert.equal(netText(-1500), '￥1,500 払う');
    assert.equal(netText(0), '精算済み');
  });
});

describe('確定申告 (views/tax.js)', async () => {
  const { choiceText, oneStopText, yearOf } = await import('../../web/views/tax.js');

  test('the year is the one typed, else the month shown\'s', () => {
    assert.equal(yearOf('2025', '2026-11'), '2025');
    assert.equal(yearOf('', '2026-11'), '2026');
    assert.equal(yearOf('20x5', '2026-11'), '2026');
  });

  test('which deduction to claim, in words', () => {
    assert.equal(choiceText({ larger: 'self_medication', self_medication: 48000 }), 'セルフメディケーション税制のほうが有利です（￥48,000）');
    assert.equal(choiceText({ larger: 'medical', deduction: 22000 }), '医療費控除のほうが有利です（￥22,000）');
    assert.equal(choiceText({ larger: 'none' }), '今年はどちらの控除もありません');
  });

  test('a slip\'s medical payment and donation become a merge patch only when they changed', async () => {
    const { taxPatch } = await import('../../web/views/tax.js');
    const medical = { patient: 'taro', provider: '中央病院', kind: 'treatment', reimbursed: 0, otc: false };
    assert.deepEqual(taxPatch({ medical }, { medical: { ...medical } }), {});
    assert.deepEqual(taxPatch({ medical }, { medical: null }), { medical: null });
    assert.deepEqual(taxPatch({}, { donation: { municipality: '紋別市', one_stop: true } }), { donation: { municipality: '紋別市', one_stop: true } });
  });

  test('the e-Tax form of a year as a file: where it is served, its name and type', async () => {
    const { formFile } = await import('../../web/views/tax.js');
    assert.deepEqual(formFile('2026', 'xlsx', '/ledgers/L1/reports'), {
      path: '/ledgers/L1/reports/medical.xlsx?year=2026',
      name: '医療費集計フォーム-2026.xlsx',
      type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    assert.deepEqual(formFile('2025', 'csv'), { path: '/reports/medical.csv?year=2025', name: '医療費集計フォーム-2025.csv', type: 'text/csv' });
  });

  test('ワンストップ特例: usable, or why not', () => {
    assert.equal(oneStopText({ municipalities: 5, one_stop: true }), 'ワンストップ特例が使えます（5 自治体）');
    const over = { municipalities: 6, one_stop: false, reasons_text: ['今年の寄附先が 5 自治体を超えています（ワンストップ特例は 5 自治体まで）'] };
    assert.equal(oneStopText(over), 'ワンストップ特例は使えません: 今年の寄附先が 5 自治体を超えています（ワンストップ特例は 5 自治体まで）');
    assert.equal(oneStopText({ municipalities: 0 }), 'ふるさと納税はまだありません');
  });
});

describe('カードの請求 (views/cards.js)', async () => {
  const { billingBody, dayLabel, summary } = await import('../../web/views/cards.js');

  test('the billing form becomes the API body: days, 末日, the month offset and the shift', () => {
    const body = billingBody({ closing: 'last', payment: '27', offset: '2', payFrom: 'bank', shift: 'next_business_day' });
    assert.deepEqual(body, { closing_day: 'last', payment_day: 27, payment_month_offset: 2, pay_from: 'bank', shift: 'next_business_day' });
    assert.equal(billingBody({ closing: '15', payment: '10', offset: '1', payFrom: 'bank', shift: 'x' }).shift, 'none');
  });

  test('a day outside 1-31 or no bank account is refused before anything is sent, naming the field', () => {
    assert.throws(() => billingBody({ closing: '32', payment: '10', offset: '1', payFrom: 'bank', shift: 'none' }), (e) => e.field === 'closing_day');
    assert.throws(() => billingBody({ closing: '15', payment: '0', offset: '1', payFrom: 'bank', shift: 'none' }), (e) => e.field === 'payment_day');
    assert.throws(() => billingBody({ closing: '15', payment: '10', offset: '1', payFrom: '', shift: 'none' }), (e) => e.field === 'pay_from');
  });

  test('the summary: the cycle running now and the oldest closed cycle still to be debited', () => {
    const items = [
      { closing_date: '2026-08-15', payment_date: '2026-09-10', state: 'closed' }, // before the billing was set
      { closing_date: '2026-09-15', payment_date: '2026-10-10', state: 'paid' },
      { closing_date: '2026-10-15', payment_date: '2026-11-10', state: 'closed' },
      { closing_date: '2026-11-15', payment_date: '2026-12-10', state: 'closed' },
      { closing_date: '2026-12-15', payment_date: '2027-01-12', state: 'open' },
    ];
    const { open, next } = summary(items, '2026-11-10');
    assert.equal(open.closing_date, '2026-12-15');
    assert.equal(next.closing_date, '2026-10-15');
    assert.equal(summary(items, '2026-11-11').next.closing_date, '2026-11-15');
    assert.deepEqual(summary([{ closing_date: '2026-09-15', payment_date: '2026-10-10', state: 'paid' }], '2026-11-01'), { open: null, next: null });
    assert.equal(dayLabel('last'), '末日');
    assert.equal(dayLabel(15), '15日');
  });

  test("the next payment on Tokyo's today at the calendar's edges (UTC still the day before until 09:00)", async () => {
    const { today } = await import('../../web/format.js');
    // A card closing at the month's end, paid at the end of the month after next, as the statements
    // API lists it on each day: the cycle of two months ago is the next one debited
    const lastDay = (year, month) => new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    const listed = (year, month) => {
      const at = (n) => { const i = year * 12 + month - 1 - n; return [Math.floor(i / 12), (i % 12) + 1]; };
      return [3, 2, 1].map((n) => {
        const [y, m] = at(n);
        const [py, pm] = at(n - 2);
        return { closing_date: lastDay(y, m), payment_date: lastDay(py, pm), state: 'closed' };
      }).concat([{ closing_date: lastDay(year, month), payment_date: lastDay(...at(-2)), state: 'open' }]);
    };
    const edges = [
      ['2026-11-30T15:30:00Z', 2026, 12], // 12/1 00:30 in Tokyo
      ['2026-12-01T19:50:00Z', 2026, 12], // 12/2 04:50 in Tokyo
      ['2026-12-31T14:59:00Z', 2026, 12], // 12/31 23:59 in Tokyo
      ['2026-12-31T23:59:00Z', 2027, 1], // 1/1 08:59 in Tokyo
      ['2028-02-28T23:59:00Z', 2028, 2], // 2/29 08:59 in Tokyo
      ['2027-02-28T15:00:00Z', 2027, 3], // 3/1 00:00 in Tokyo
    ];
    for (const [instant, year, month] of edges) {
      const day = today(new Date(instant));
      const { open, next } = summary(listed(year, month), day);
      assert.equal(open.closing_date, lastDay(year, month), instant);
      assert.equal(next.payment_date, lastDay(year, month), instant);
      assert.ok(next.payment_date >= day, instant);
    }
  });
});

describe('取込の確認 (views/imports.js)', async () => {
  const { IMPORT_ACTIONS, previewCounts, writesAnything } = await import('../../web/views/imports.js');

  test('the outcomes of a later download have words of their own', () => {
    for (const action of ['changed', 'conflict', 'missing_in_file', 'possibly_replaced', 'deleted']) assert.ok(IMPORT_ACTIONS[action], action);
    assert.equal(IMPORT_ACTIONS.missing_in_file, 'ファイルにない');
    assert.equal(IMPORT_ACTIONS.possibly_replaced, '置き換え?');
  });

  test('a dry run in words, zero counts left out', () => {
    const report = { created: 1, not_counted: 0, skipped: 2, changed: 1, conflicts: 0, missing_in_file: 1, possibly_replaced: 0, failed: 0 };
    assert.deepEqual(previewCounts(report), ['追加 1 件', '取込済み 2 件', 'アプリで変更 1 件', 'ファイルにない 1 件']);
  });

  test('deletions and replacements are written only when the person asks', () => {
    const onlyMissing = { created: 0, not_counted: 0, changed: 0, missing_in_file: 2, possibly_replaced: 0 };
    assert.equal(writesAnything(onlyMissing, false), false);
    assert.equal(writesAnything(onlyMissing, true), true);
    assert.equal(writesAnything({ created: 0, not_counted: 0, changed: 1 }, false), true);
    assert.equal(writesAnything({ created: 2, not_counted: 2, changed: 0 }, false), true);
  });
});

describe('領収書 (views/receipts.js)', async () => {
  const { hex, refusal, receiptsPatch, MAX_RECEIPT_BYTES } = await import('../../web/views/receipts.js');

  test('a digest in hex, as the API names receipts', () => {
    assert.equal(hex(new Uint8Array([0, 15, 255]).buffer), '000fff');
  });

  test('only photos and PDFs up to 10 MB are sent', () => {
    assert.equal(refusal({ name: 'r.jpg', type: 'image/jpeg', size: 1000 }), null);
    assert.match(refusal({ name: 'r.txt', type: 'text/plain', size: 10 }), /PDF/);
    assert.match(refusal({ name: 'big.pdf', type: 'application/pdf', size: MAX_RECEIPT_BYTES + 1 }), /10 MB/);
  });

  test('an edit sends the receipts only when they changed, whole', () => {
    assert.deepEqual(receiptsPatch({ receipts: ['b', 'a'] }, { receipts: ['a', 'b'] }), {});
    assert.deepEqual(receiptsPatch({ receipts: ['a'] }, {}), { receipts: [] });
    assert.deepEqual(receiptsPatch({}, { receipts: ['c'] }), { receipts: ['c'] });
  });
});

describe('内訳を分ける (views/slips/state.js, views/slips/view.js)', async () => {
  const { lineOf, plainLines } = await import('../../web/views/slips/state.js');
  const { slipSummary } = await import('../../web/views/slips/view.js');
  const split = {
    ...slip,
    amount: 3000,
    category: null,
    lines: [
      { amount: 1800, category: '食費', category_label: '食費', subcategory: '食料品', memo: null },
      { amount: 1200, category: '日用品', category_label: '日用品', subcategory: null, memo: 'ティッシュ' },
    ],
  };

  test('a line read from the form keeps the subcategory it had while its category stays', () => {
    const loaded = split.lines[0];
    assert.deepEqual(lineOf({ amount: 1800, category: '食費', memo: '' }, loaded), { amount: 1800, category: '食費', subcategory: '食料品' });
    assert.deepEqual(lineOf({ amount: 1800, category: '食費', memo: '特売' }, loaded), { amount: 1800, category: '食費', subcategory: '食料品', memo: '特売' });
    // A subcategory belongs to its category: another category drops it, as the API does
    assert.deepEqual(lineOf({ amount: 1800, category: '外食', memo: '' }, loaded), { amount: 1800, category: '外食' });
    assert.deepEqual(lineOf({ amount: 500, category: '雑費', memo: '' }), { amount: 500, category: '雑費' });
  });

  test('the lines of an untouched split read back as the API stores them: an edit of the memo alone sends no lines', () => {
    const read = split.lines.map((l) => lineOf({ amount: l.amount, category: l.category, memo: l.memo ?? '' }, l));
    assert.equal(JSON.stringify(read), JSON.stringify(plainLines(split.lines)));
  });

  test('a split slip is summed up by its lines\' categories, never "null"', () => {
    assert.equal(slipSummary(split), '11/20(金) 分割（食費・日用品） ￥3,000');
    assert.equal(slipSummary(slip), '11/20(金) 食費 ￥1,200');
    assert.equal(slipSummary({ ...split, lines: [...split.lines, { amount: 1, category: '食費' }] }), '11/20(金) 分割（食費・日用品） ￥3,000');
  });
});

describe('予算の繰越 (views/budgets.js)', async () => {
  const { carryNote } = await import('../../web/views/budgets.js');

  test('the carry explained in one line: kept, overspent, or none', () => {
    assert.equal(carryNote({ carried: 5000, available: 35000, rollover: false }), '前月の残り ￥5,000 を足して、この月に使えるのは ￥35,000 です');
    assert.equal(carryNote({ carried: -6000, available: 24000, rollover: true }), '前月の使い過ぎ ￥6,000 を差し引き、この月に使えるのは ￥24,000 です');
    assert.equal(carryNote({ carried: 0, available: 30000, rollover: true }), '残りは翌月の予算に繰り越されます');
    assert.equal(carryNote({ carried: 0, available: 30000, rollover: false }), '前月からの繰越はありません');
  });
});

describe('the rules view (views/rules.js)', async () => {
  const { alwaysRule, conditionText, ruleText } = await import('../../web/views/rules.js');

  test('words a rule: its conditions, then what it sets', () => {
    const rule = {
      match: 'all',
      conditions: [
        { field: 'memo', op: 'contains', value: 'ﾏﾙｴﾂ' },
        { field: 'amount', op: 'between', value: [5000, 100000] },
      ],
      actions: { category: '食費', subcategory: '食料品', memo_append: '#まとめ買い' },
    };
    assert.equal(ruleText(rule), 'メモに「ﾏﾙｴﾂ」を含む かつ 金額が 5000〜100000 円 → カテゴリを食費（食料品）に、メモに「#まとめ買い」を追記');
    assert.equal(conditionText({ field: 'payee', op: 'one_of', value: ['Amazon', 'アマゾン'] }), '支払先が「Amazon」「アマゾン」のどれか');
  });

  test('says what applying the rules changes on a slip', async () => {
    const { changeText } = await import('../../web/views/rules.js');
    const change = { id: 'x', date: '2026-11-10', rules: ['r'], before: { category: 'uncategorized', subcategory: null }, after: { category: '食費', subcategory: null } };
    assert.equal(changeText(change), '2026-11-10 カテゴリ: uncategorized → 食費');
  });

  test('makes 「この店はいつも○○」 typed a payee condition and a category', () => {
    assert.deepEqual(alwaysRule('スーパーマルエツ', '食費'), {
      name: 'スーパーマルエツはいつも食費',
      conditions: [{ field: 'payee', op: 'contains', value: 'スーパーマルエツ' }],
      actions: { category: '食費' },
    });
  });

  test('makes 「この店はいつも○○」 from a slip its payee, or the payee its file wrote', async () => {
    const { ruleFromSlip } = await import('../../web/views/rules.js');
    const slip = { kind: 'expense', payee: 'マルエツ', imported_payee: 'ｽｰﾊﾟｰﾏﾙｴﾂ', memo: 'ｽｰﾊﾟｰﾏﾙｴﾂ ﾃﾝ3' };
    assert.deepEqual(ruleFromSlip(slip, '食費').conditions, [{ field: 'payee', op: 'is', value: 'マルエツ' }]);
    assert.deepEqual(ruleFromSlip({ ...slip, payee: null }, '食費'), {
      name: 'ｽｰﾊﾟｰﾏﾙｴﾂはいつも食費',
      conditions: [{ field: 'imported_payee', op: 'is', value: 'ｽｰﾊﾟｰﾏﾙｴﾂ' }],
      actions: { category: '食費' },
    });
    assert.equal(ruleFromSlip({ kind: 'expense', memo: 'ｽｰﾊﾟｰﾏﾙｴﾂ' }, '食費'), null); // no shop: no rule
    assert.equal(ruleFromSlip(slip, ''), null);
    assert.equal(ruleFromSlip(slip, 'uncategorized'), null);
    assert.equal(ruleFromSlip({ ...slip, kind: 'transfer' }, '食費'), null);
  });
});

describe('the tokens view (views/tokens.js)', async () => {
  const { daysOf, tokenText } = await import('../../web/views/tokens.js');

  test('a token in words: its name, scope, prefix, expiry and last use', () => {
    const token = { name: 'シート', scope: 'read', prefix: 'kk_Ab12', expires_at: '2027-03-01T00:00:00Z', last_used_at: null };
    const now = new Date('2026-12-01T00:00:00Z');
    assert.equal(tokenText(token, now), 'シート（読み取りのみ・kk_Ab12…）2027-03-01 まで・まだ使われていません');
    const used = { ...token, scope: 'write', last_used_at: '2026-11-30' };
    assert.equal(tokenText(used, new Date('2027-03-02T00:00:00Z')), 'シート（読み書き・kk_Ab12…）2027-03-01 に期限切れ・最後に使われた日 2026-11-30');
  });

  test('the days a token lasts: 1 to 365, 90 when left empty, anything else refused', () => {
    assert.equal(daysOf(''), 90);
    assert.equal(daysOf(' 30 '), 30);
    assert.equal(daysOf('365'), 365);
    for (const bad of ['0', '366', '1.5', '-3', 'abc', '1000']) assert.equal(daysOf(bad), null, bad);
  });
});
