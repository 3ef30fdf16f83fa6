// The capabilities of this round on a phone (390 px) as a new user would use them, in a real browser
// (Debian's Chromium, headless, driven by playwright-core): a ledger restored from its exported
// archive (settings: アーカイブから復元, then the new ledger shown with its slips); budgets that carry
// over, with 繰越 and 1日あたり beside each; a dollar account reconciled in dollars; every view no
// wider than the phone, axe-core clean.
//
//   node tests/web/walk.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_scripts.py runs it against a strict front (the user pool's tokens only).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { harness } from './harness.mjs';
import { WAIT, openRoute } from './routing.mjs';

const { OUT, args, check, step, until, api, shot, accessible, openPage: open, run } = await harness('walk');

/** A phone-sized page of the test's user on 11/20 in Tokyo. */
const openPage = (hash) => open({ width: 390, height: 844 }, hash, new Date('2026-11-20T12:00:00+09:00'), { route: false });

/** Nothing of the page is wider than the phone. */
async function fits(page, where) {
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(widths[0] <= widths[1], `${where}: the page is ${widths[0]}px wide in a window of ${widths[1]}`);
}

await run(async () => {
  // Given a new person's ledger: a wallet and three slips of November
  check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 20000 })).status === 201, 'account');
  for (const [i, [date, category, amount]] of [['2026-11-03', '食費', 1200], ['2026-11-09', '日用品', 640], ['2026-11-15', '食費', 2300]].entries()) {
    const made = await api('POST', '/slips', { date, kind: 'expense', amount, account: 'wallet', category }, { 'Idempotency-Key': `${args.user}-${i}` });
    check(made.status === 201, `slip ${i}: ${made.status}`);
  }
  const salary = await api('POST', '/slips', { date: '2026-10-24', kind: 'income', amount: 300000, account: 'wallet', category: '給与' }, { 'Idempotency-Key': `${args.user}-salary` });
  check(salary.status === 201, `salary: ${salary.status}`);

  await step('a ledger restored from its exported archive on a phone: the new ledger shown with its slips, its owner the person', async () => {
    // Given the ledger exported (as the settings' 書き出す does) and its archive downloaded
    const deadline = Date.now() + 4 * WAIT; // the archive is written in the background, as slowly as the machine is
    let exported;
    do {
      exported = await api('POST', '/ledgers/me/exports');
      check(exported.status < 300, `export: ${exported.status} ${JSON.stringify(exported.data)}`);
      if (exported.data.state === 'ready') break;
      await new Promise((r) => setTimeout(r, 500));
    } while (Date.now() < deadline);
    check(exported.data.state === 'ready', `export not ready: ${JSON.stringify(exported.data)}`);
    const ready = await api('GET', `/ledgers/me/exports/${exported.data.id}`);
    const archive = Buffer.from(await (await fetch(ready.data.download.url)).arrayBuffer());
    const path = join(OUT, `walk-${args.user}.jsonl.gz`);
    writeFileSync(path, archive);
    // When the person opens the settings, chooses the archive, names the ledger and restores it
    const { context, page } = await openPage('#/settings/2026-11');
    await until('the restore form offered', () => page.isVisible('#restore-form'), true);
    await fits(page, 'the settings');
    await accessible(page, 'the settings with the restore form');
    await page.click('#restore-submit'); // nothing chosen yet: said at the field, nothing sent
    await until('the archive asked for', () => page.getAttribute('#restore-file', 'aria-invalid'), 'true');
    await page.setInputFiles('#restore-file', path);
    await page.fill('#restore-name', '復元した家計簿');
    await page.click('#restore-submit');
    // Then the page says so and shows the new ledger, the person its owner
    await until('restored', async () => (await page.innerText('#status')).includes('を復元しました'), true);
    const shown = await page.evaluate(() => document.querySelector('#ledger').selectedOptions[0]?.textContent ?? '');
    check(shown.includes('復元した家計簿'), `the ledger shown: ${shown}`);
    check((await page.innerText('#restore-progress')).startsWith('復元しました'), `progress: ${await page.innerText('#restore-progress')}`);
    await shot(page, 'walk-restored-390');
    // And its slips are the archive's, listed on the slips view
    await openRoute(page, 'slips');
    await until('the restored slips listed', () => page.locator('#slip-rows tr').count(), 3);
    const ledgers = (await api('GET', '/ledgers')).data.items;
    const made = ledgers.find((l) => l.name === '復元した家計簿');
    check(made && made.role === 'owner', `the new ledger: ${JSON.stringify(ledgers)}`);
    const slips = (await api('GET', `/ledgers/${made.id}/slips?from=2026-11-01&to=2026-11-30`)).data.items;
    check(JSON.stringify(slips.map((s) => [s.date, s.category, s.amount]).sort()) === JSON.stringify([['2026-11-03', '食費', 1200], ['2026-11-09', '日用品', 640], ['2026-11-15', '食費', 2300]]), `restored: ${JSON.stringify(slips)}`);
    await context.close();
  });

  await step('budgets that carry over on a phone: 繰越 and 1日あたり beside each, set from the form with 繰越', async () => {
    // Given October's 食費 budget carried over, with ￥1,000 left unspent in October
    check((await api('PUT', `/budgets/2026-10/${encodeURIComponent('食費')}`, { limit: 1000, rollover: true })).status < 300, 'October');
    // When November's is set on the page with 繰越
    const { context, page } = await openPage('#/budgets/2026-11');
    await page.fill('#budget-category', '食費');
    await page.fill('#budget-limit', '10000');
    await page.check('#budget-rollover');
    await page.click('#budget-submit');
    // Then the row says what was carried in and, this month, what is left per day
    const row = '#budget-rows tr:has-text("食費")';
    await until('carried', async () => (await page.innerText(row)).includes('繰越 ￥1,000'), true);
    const text = await page.innerText(row);
    const budgets = (await api('GET', '/budgets?month=2026-11')).data.items;
    check(budgets.length === 1 && budgets[0].rollover === true && budgets[0].available === 11000, `the budget: ${JSON.stringify(budgets)}`);
    // (the API counts the days left from its own today: 1日あたり is shown while November is its current month)
    const perDay = budgets[0].per_day;
    if (perDay == null) check(!text.includes('1日あたり'), `no pace outside the current month: ${text}`);
    else check(text.includes(`1日あたり ￥${perDay.toLocaleString('ja-JP')}`), `the row: ${text} (per_day ${perDay})`);
    await fits(page, 'the budgets');
    await accessible(page, 'the budgets with carry-over');
    await shot(page, 'walk-budgets-390');
    await context.close();
  });

  await step('a dollar account reconciled on a phone in dollars: the balance typed as $, the difference said in $', async () => {
    // Given a dollar account holding $100.00 (10,000 cents)
    check((await api('POST', '/accounts', { id: 'usd', name: 'ドル口座', type: 'cash', unit: 'USD', opening_balance: 10000 })).status === 201, 'usd');
    const { context, page } = await openPage('#/accounts/2026-11');
    await until('the account offered', () => page.locator('#reconcile-account option[value="usd"]').count(), 1);
    // When it is chosen, the statement's $99.00 typed
    await page.selectOption('#reconcile-account', 'usd');
    await until('the unit named', () => page.innerText('#reconcile-balance-label'), '明細の残高（USD）');
    check((await page.getAttribute('#reconcile-balance', 'inputmode')) === 'decimal', 'a keypad with a decimal point');
    await page.fill('#reconcile-date', '2026-11-20');
    await page.fill('#reconcile-balance', '99.00');
    // Then the difference is said in dollars
    await until('the difference', () => page.innerText('#reconcile-difference'), '差額 -$1.00: 家計簿のほうが $1.00 多く残っています');
    // When the statement's balance is the ledger's, and it is reconciled
    await page.fill('#reconcile-balance', '100');
    await until('no difference', () => page.innerText('#reconcile-difference'), '差額はありません。照合できます。');
    await fits(page, 'the accounts with the reconciliation');
    await accessible(page, 'a dollar account reconciled');
    await page.click('#reconcile-submit');
    await until('reconciled', async () => (await page.innerText('#status')).startsWith('照合しました'), true);
    // Then the API holds the statement's balance in cents
    const { data } = await api('GET', '/accounts/usd/reconciliations');
    check(JSON.stringify(data.items.map((r) => [r.date, r.balance, r.holds])) === JSON.stringify([['2026-11-20', 10000, true]]), `reconciliations: ${JSON.stringify(data.items)}`);
    await shot(page, 'walk-reconcile-usd-390');
    await context.close();
  });

  await step('every view on a phone: no wider than the window, a month\'s name on one line, axe-core clean', async () => {
    const { context, page } = await openPage('#/slips/2026-11');
    for (const route of ['slips', 'accounts', 'reports', 'budgets', 'cards', 'household', 'settings']) {
      await openRoute(page, route);
      await fits(page, `#/${route}`);
      if (route === 'reports') {
        // the year's table: a month's name on one line beside six-figure amounts
        const month = '#trends-table tbody tr[data-month="2026-10"] th';
        await until('the year read', () => page.locator(month).count(), 1);
        const lines = await page.evaluate((sel) => {
          const range = document.createRange();
          range.selectNodeContents(document.querySelector(sel));
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }, month);
        check(lines === 1, `10月 takes ${lines} lines in the year's table`);
      }
      await accessible(page, `#/${route}`);
    }
    await context.close();
  });
});
