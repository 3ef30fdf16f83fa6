// @ts-check
// The README's main flow through a TypeScript client generated from the served /openapi.json:
// types from openapi-typescript (./schema.d.ts, generated next to this file by the test), requests
// by openapi-fetch. Type-checked with tsc against those types, then run with node. Prints one JSON
// line: {"ok": true, "steps": [...]}; any surprise throws (non-zero exit).
import createClient from 'openapi-fetch';

import { base, readmeRecurrence, user } from './config.mjs';

/** @typedef {import('./schema.js').paths} paths */
/** @typedef {import('./schema.js').components['schemas']} schemas */

/** @type {import('openapi-fetch').Client<paths>} */
const client = createClient({ baseUrl: base, headers: { Authorization: `Bearer ${user}` } });
/** @type {import('openapi-fetch').Client<paths>} */
const anonymous = createClient({ baseUrl: base });

/** @type {string[]} */
const steps = [];

/**
 * @param {unknown} condition
 * @param {string} step
 * @param {unknown} [seen]
 * @returns {asserts condition}
 */
function check(condition, step, seen) {
  if (!condition) throw new Error(`${step}: unexpected ${JSON.stringify(seen)}`);
}

/** @param {Response} response */
const etagOf = (response) => response.headers.get('ETag') ?? '';

// health: public, no token
{
  const { data, response } = await anonymous.GET('/health');
  check(response.status === 200 && data?.status === 'ok', 'health', data);
  steps.push('health');
}

// accounts
for (const [id, name, type, opening] of /** @type {const} */ ([
  ['cash', '財布', 'cash', 20000],
  ['bank', 'ゆうちょ銀行', 'bank', 300000],
])) {
  const { data, response } = await client.POST('/accounts', {
    body: { id, name, type, opening_balance: opening },
    params: { header: { 'idempotency-key': crypto.randomUUID() } },
  });
  check(response.status === 201 && data?.id === id && etagOf(response) === '"1"', 'accounts', data);
}
steps.push('accounts');

// a slip created: 201 + ETag + Location
/** @type {schemas['SlipIn']} */
const lunch = { date: '2026-11-03', kind: 'expense', amount: 1200, account: 'cash', category: '食費', memo: 'ランチ' };
const created = await client.POST('/slips', {
  body: lunch,
  params: { header: { 'idempotency-key': crypto.randomUUID() } },
});
check(created.response.status === 201 && created.data, 'create', created.error);
const id = created.data.id;
check(created.response.headers.get('Location') === `/slips/2026-11-03/${id}`, 'create', created.response.headers);
let etag = etagOf(created.response);
steps.push('create');

// read
{
  const { data, response } = await client.GET('/slips/{date}/{id}', { params: { path: { date: '2026-11-03', id } } });
  check(data?.amount === 1200 && etagOf(response) === etag, 'read', data);
  steps.push('read');
}

// patched (JSON merge patch, If-Match)
{
  const { data, response } = await client.PATCH('/slips/{date}/{id}', {
    params: { path: { date: '2026-11-03', id }, header: { 'if-match': etag } },
    body: { amount: 1350 },
  });
  check(response.status === 200 && data?.amount === 1350, 'patch', data);
  etag = etagOf(response);
  steps.push('patch');
}

// moved to another date: the answer's Location names where it is now
{
  const { data, response } = await client.PATCH('/slips/{date}/{id}', {
    params: { path: { date: '2026-11-03', id }, header: { 'if-match': etag } },
    body: { date: '2026-11-05' },
  });
  check(data?.date === '2026-11-05', 'move', data);
  check(response.headers.get('Location') === `/slips/2026-11-05/${id}`, 'move', response.headers);
  const previous = etag;
  etag = etagOf(response);
  steps.push('move');

  // a stale If-Match: 412, the typed problem
  const stale = await client.PATCH('/slips/{date}/{id}', {
    params: { path: { date: '2026-11-05', id }, header: { 'if-match': previous } },
    body: { amount: 1 },
  });
  const problem = stale.error;
  // the 412's body is the typed problem: narrowing on `code` alone gives its members (API Gateway's
  // own 401 body is in the union too, and says it has no code)
  check(stale.response.status === 412 && problem?.code === 'version_mismatch', 'stale', problem);
  check(problem.current === 3 && problem.expected === 2, 'stale', problem);
  steps.push('stale');
}

// a refusal in Japanese: typed members, Japanese detail
{
  const { error, response } = await client.POST('/slips', {
    body: { date: '2026-11-06', kind: 'expense', amount: 50000, account: 'cash' },
    headers: { 'Accept-Language': 'ja' },
  });
  check(response.status === 409 && error?.code === 'insufficient_funds', 'insufficient', error);
  check(error.account_name === '財布' && error.detail === '財布の残高 ¥18,650 では ¥50,000 を支払えません', 'insufficient', error);
  steps.push('insufficient');
}

// a CSV import: the file as it is, text/csv
{
  const csv =
    'date,kind,amount,account,to_account,category,memo,external_id\n' +
    '2026-11-06,expense,480,cash,,食費,コンビニ,shop-0001\n' +
    '2026-11-07,expense,2200,bank,,日用品,ドラッグストア,shop-0002\n';
  const { data, response } = await client.POST('/imports', {
    // the generated type of a binary body is a string: the file's text is sent as it is
    body: csv,
    bodySerializer: (/** @type {string} */ body) => body,
    headers: { 'Content-Type': 'text/csv' },
    params: { header: { 'idempotency-key': crypto.randomUUID() } },
  });
  // 200 is the import's result, or a dry run's preview (dry_run=true): narrowed by its fields
  const imported = data && !('dry_run' in data) ? data : undefined;
  check(response.status === 200 && imported?.created === 2 && imported.failed === 0, 'import', data);
  steps.push('import');
}

// list with cursor, newest first
{
  /** @type {string[]} */
  const seen = [];
  /** @type {string | undefined} */
  let cursor;
  let pages = 0;
  for (;;) {
    const { data } = await client.GET('/slips', { params: { query: { limit: 2, cursor } } });
    check(data, 'list', data);
    seen.push(...data.items.map((slip) => `${slip.date}/${slip.id}`));
    pages += 1;
    if (!data.next_cursor) break;
    cursor = data.next_cursor;
  }
  check(seen.length === 3 && pages === 2 && [...seen].sort().reverse().join() === seen.join(), 'list', seen);
  steps.push('list');
}

// balances as of a date, and now
{
  const asOf = await client.GET('/balances', { params: { query: { date: '2026-11-04' } } });
  const then = Object.fromEntries((asOf.data?.items ?? []).map((item) => [item.account, item.balance]));
  check(asOf.data?.date === '2026-11-04' && then.cash === 20000 && then.bank === 300000, 'balances', asOf.data);
  const current = await client.GET('/balances');
  const now = Object.fromEntries((current.data?.items ?? []).map((item) => [item.account, item.balance]));
  check(now.cash === 20000 - 1350 - 480 && now.bank === 300000 - 2200, 'balances', now);
  steps.push('balances');
}

// a budget: created without If-Match, then listed with what is spent
{
  const { data, response } = await client.PUT('/budgets/{month}/{category}', {
    params: { path: { month: '2026-11', category: '食費' } },
    body: { limit: 30000, strict: true },
  });
  check(response.status === 201 && data?.limit === 30000, 'budget', data);
  const listed = await client.GET('/budgets', { params: { query: { month: '2026-11' } } });
  const food = listed.data?.items.find((item) => item.category === '食費');
  check(food?.spent === 1830 && food.remaining === 30000 - 1830, 'budget', listed.data);
  steps.push('budget');
}

// the README's recurrence body as it is: the fields the server defaults (interval, shift) may be left out
{
  const { data, response } = await client.POST('/recurrences', { body: readmeRecurrence });
  check(response.status === 201 && data?.rule.interval === 1 && data.next_scheduled === '2026-11-27', 'recurrence', data);
  /** @type {schemas['RecurrenceIn']} */
  const bare = { slip: { kind: 'expense', amount: 1000, account: 'bank' }, rule: { freq: 'monthly', by_month_day: 'last', start: '2026-11-01' } };
  const defaulted = await client.POST('/recurrences', { body: bare });
  check(defaulted.response.status === 201 && defaulted.data?.shift === 'none', 'recurrence', defaulted.data);
  steps.push('recurrence');
}

// deleted: 204, no body; then 404
{
  const { response, error } = await client.DELETE('/slips/{date}/{id}', {
    params: { path: { date: '2026-11-05', id }, header: { 'if-match': etag } },
  });
  check(response.status === 204 && error === undefined, 'delete', error);
  const gone = await client.GET('/slips/{date}/{id}', { params: { path: { date: '2026-11-05', id } } });
  const missing = gone.error;
  check(gone.response.status === 404 && missing?.code === 'not_found', 'delete', missing);
  steps.push('delete');
}

console.log(JSON.stringify({ ok: true, steps }));
