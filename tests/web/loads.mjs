// What each view reads, in a real browser (Debian's Chromium, headless, driven by playwright-core) at
// 390 px: the API calls the page makes when it opens and when each tab is tapped, counted. A view
// reads only what it shows (the slip form the accounts, not their balances; the quick entry's usual
// categories from three months' totals, not a list of slips); nothing is read twice for one view;
// the journal is followed from where the page got to, not read again from its start; a role change
// (another ledger) reads no settings while the settings are not shown.
//
//   node tests/web/loads.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_scripts.py runs it against a strict front (the user pool's tokens only).

import { harness } from './harness.mjs';
import { WAIT, settled as notBusy } from './routing.mjs';

const { BASE, args, problems, log, check, step, until, api, signedInContext, accessible, run } = await harness('loads');

/** The API calls a page makes (method, path and query), its own files left out. */
function callsOf(page) {
  const asked = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== new URL(BASE).origin || /\.(js|css|html|json|webmanifest|png|svg)$|^\/$/.test(url.pathname)) return;
    asked.push(`${request.method()} ${url.pathname}${url.search}`);
  });
  return asked;
}

/** Wait until the page has read what the view shown needs (nothing busy, no request for a moment). */
async function settled(page) {
  await notBusy(page);
  await page.waitForLoadState('networkidle', { timeout: WAIT });
}

const reads = (asked, prefix) => asked.filter((call) => call.startsWith(`GET ${prefix}`));

/** No call made twice while one view was opened. */
function once(asked, where) {
  const twice = asked.filter((call, i) => asked.indexOf(call) !== i);
  check(twice.length === 0, `${where}: read twice: ${JSON.stringify(twice)} of ${JSON.stringify(asked)}`);
}

function none(asked, prefixes, where) {
  const found = asked.filter((call) => prefixes.some((prefix) => call.startsWith(`GET ${prefix}`)));
  check(found.length === 0, `${where} read ${JSON.stringify(found)}`);
}

await run(async () => {
  // Given a household with a wallet, a few weeks of slips over two months and a budget
  check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 50000 })).status === 201, 'account');
  const past = [['2026-10-20', '日用品'], ['2026-11-02', '食費'], ['2026-11-05', '食費'], ['2026-11-08', '交通費']];
  for (const [i, [date, category]] of past.entries()) {
    const made = await api('POST', '/slips', { date, kind: 'expense', amount: 500 + i, account: 'wallet', category }, { 'Idempotency-Key': `${args.user}-${i}` });
    check(made.status === 201, `slip ${i}: ${made.status}`);
  }
  check((await api('PUT', `/budgets/2026-11/${encodeURIComponent('食費')}`, { limit: 30000 })).status < 300, 'budget');

  await step('each view reads only what it shows: the API calls of the slips and of each tab tapped, counted', async () => {
    const context = await signedInContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.clock.setFixedTime(new Date('2026-11-20T12:00:00+09:00'));
    const asked = callsOf(page);
    // When the slips of November are opened
    await page.goto(`${BASE}/#/slips/2026-11`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    await settled(page);
    // Then the month's slips are read once, the quick entry's chips come from three months' totals,
    // the slip form's accounts without their balances, and nothing of the other views
    const slips = reads(asked, '/slips');
    check(slips.length === 1 && slips[0].startsWith('GET /slips?from=2026-11-01&to=2026-11-30'), `the slips read: ${JSON.stringify(slips)}`);
    const totals = reads(asked, '/reports/monthly').sort();
    check(JSON.stringify(totals) === JSON.stringify(['2026-09', '2026-10', '2026-11'].map((m) => `GET /reports/monthly?month=${m}`)), `the totals read: ${JSON.stringify(totals)}`);
    check(reads(asked, '/accounts').length === 1, `the accounts read: ${JSON.stringify(reads(asked, '/accounts'))}`);
    none(asked, ['/balances', '/budgets', '/rules', '/ledgers/me/webhooks', '/exports', '/reports/yearly', '/reports/medical', '/reports/donations'], 'the slips view');
    once(asked, 'the slips view');
    await until('the usual categories', () => page.locator('#quick-chips .chip').allInnerTexts().then((c) => c.slice(0, 3)), ['食費', '交通費', '日用品']);
    check(reads(asked, '/changes?since=0').length === 1, `the journal read from its start once: ${JSON.stringify(reads(asked, '/changes'))}`);

    // When each tab is tapped, then back to the slips
    const expected = {
      accounts: { must: ['/accounts', '/balances'], not: ['/slips', '/reports', '/budgets', '/rules'] },
      reports: { must: ['/reports/monthly?month=2026-11', '/reports/yearly'], not: ['/slips', '/balances', '/budgets', '/accounts', '/rules'] },
      budgets: { must: ['/budgets?month=2026-11'], not: ['/slips', '/balances', '/reports', '/accounts', '/rules'] },
      settings: { must: ['/rules', '/ledgers/me/webhooks'], not: ['/slips', '/balances', '/reports', '/budgets', '/accounts'] },
      slips: { must: ['/slips?from=2026-11-01', '/reports/monthly', '/accounts'], not: ['/balances', '/budgets', '/rules', '/ledgers/me/webhooks'] },
    };
    const counts = {};
    for (const [route, { must, not }] of Object.entries(expected)) {
      asked.length = 0;
      await page.click(`#views-nav a[data-route="${route}"]`);
      await page.waitForSelector(`body[data-route="${route}"]`, { timeout: WAIT });
      await settled(page);
      // Then it reads what it shows, nothing of the other views, nothing twice
      for (const prefix of must) check(reads(asked, prefix).length > 0, `#/${route} did not read ${prefix}: ${JSON.stringify(asked)}`);
      none(asked, not, `#/${route}`);
      once(asked, `#/${route}`);
      // And the journal is followed from where the page got to, never read again from its start
      none(asked, ['/changes?since=0'], `#/${route}`);
      counts[route] = asked.length;
    }
    log({ calls: counts });
    await context.close();
  });

  await step('a role change (another ledger chosen) reads no settings while they are not shown', async () => {
    // Given a shared ledger of the user's (its owner), and the page open on the slips
    const shared = await api('POST', '/ledgers', { name: '我が家' });
    check(shared.status === 201, `ledger: ${shared.status}`);
    const context = await signedInContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(`${BASE}/#/slips/2026-11`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    await settled(page);
    const asked = callsOf(page);
    // When the shared ledger is chosen
    await page.selectOption('#ledger', shared.data.id);
    await until('the shared ledger read', () => reads(asked, `/ledgers/${shared.data.id}/slips`).length > 0, true);
    await settled(page);
    // Then its slips are read, not its webhooks or exports
    check(reads(asked, `/ledgers/${shared.data.id}/slips`).length > 0, `the shared ledger's slips: ${JSON.stringify(asked)}`);
    none(asked, [`/ledgers/${shared.data.id}/webhooks`, `/ledgers/${shared.data.id}/exports`, `/ledgers/${shared.data.id}/rules`], 'a ledger switch on the slips');
    // When the settings are opened, then the owner's webhooks are read there
    asked.length = 0;
    await page.click('#views-nav a[data-route="settings"]');
    await page.waitForSelector('body[data-route="settings"]', { timeout: WAIT });
    await settled(page);
    check(reads(asked, `/ledgers/${shared.data.id}/webhooks`).length === 1, `the settings: ${JSON.stringify(asked)}`);
    await accessible(page, 'the settings of a shared ledger');
    await context.close();
  });
});
