// 残高を合わせる in a real browser (Debian's Chromium, headless, driven by playwright-core) against the
// local front: a tap clears a slip (PATCH under its ETag), the reconcile form says the difference as
// the balance is typed, books it as 使途不明金 when asked and commits; the reconciled slip then shows a
// lock naming its reconciliation and no toggle. axe-core finds nothing serious or critical.
//
//   node tests/web/reconcile.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_scripts.py runs it against a strict front (the user pool's tokens only).

import { harness } from './harness.mjs';
import { openRoute } from './routing.mjs';

const { check, step, until, api, shot, accessible, openPage, run } = await harness('reconcile');

await run(async () => {
  await step('a tap clears a slip; the difference shows as the balance is typed; 使途不明金 books it; the reconciled slip is locked', async () => {
    // Given a bank account of 10,000 and two uncleared expenses in November
    const bank = await api('POST', '/accounts', { id: 'bank', name: 'ゆうちょ', type: 'bank', opening_balance: 10000 });
    check(bank.status === 201, `account: ${bank.status}`);
    for (const [date, amount, memo] of [['2026-11-03', 3000, '電気代'], ['2026-11-04', 1000, '本']]) {
      const made = await api('POST', '/slips', { date, kind: 'expense', amount, account: 'bank', category: '日用品', memo });
      check(made.status === 201, `slip: ${made.status}`);
    }
    const { context, page } = await openPage({ width: 1280, height: 900 }, '#2026-11');
    const row = (memo) => page.locator('#slip-rows tr').filter({ hasText: memo });
    await openRoute(page, 'slips');
    await until('the slips listed', () => row('電気代').locator('.cleared-mark').innerText(), '○');
    // When the 電気代 row's mark is tapped
    await row('電気代').locator('button.cleared-mark').click();
    // Then the slip is cleared, and the row says so
    const cleared = async () => (await api('GET', '/slips?from=2026-11-01&to=2026-11-30')).data.items.find((s) => s.memo === '電気代').cleared;
    await until('the slip cleared', cleared, 'cleared');
    await until('the row shows it cleared', () => row('電気代').locator('.cleared-mark').innerText(), '✓');
    // When the bankbook's 6,500 on 11/26 is typed (in the accounts view)
    await openRoute(page, 'accounts');
    await page.selectOption('#reconcile-account', 'bank');
    await page.fill('#reconcile-date', '2026-11-26'); // not in the future (the ledger's today or before)
    await page.fill('#reconcile-balance', '6,500');
    // Then the difference with the cleared 7,000 shows, and 使途不明金 is offered
    await until('the difference', async () => (await page.innerText('#reconcile-difference')).includes('￥500'), true);
    await until('使途不明金 offered', () => page.isVisible('#reconcile-adjust'), true);
    await accessible(page, 'the reconcile form with its difference');
    // When it is booked as 使途不明金 and committed
    await page.check('#reconcile-adjust');
    await page.click('#reconcile-submit');
    // Then the reconciliation is stored, and it holds
    const listed = async () => (await api('GET', '/accounts/bank/reconciliations')).data.items;
    await until('one reconciliation', async () => (await listed()).length, 1);
    const [made] = await listed();
    check(made.balance === 6500 && made.holds === true, `reconciliation: ${JSON.stringify(made)}`);
    // And the 電気代 row is locked: no toggle, a lock naming the reconciliation; 本 stays uncleared
    await openRoute(page, 'slips');
    await until('the row locked', () => row('電気代').locator('.cleared-mark').innerText(), '🔒');
    check((await row('電気代').locator('button.cleared-mark').count()) === 0, 'a reconciled row has no toggle');
    await until('the lock names the reconciliation', async () => (await row('電気代').locator('.cleared-mark').getAttribute('title')).includes(made.id), true);
    check((await row('本').locator('button.cleared-mark').innerText()) === '○', '本 stays uncleared');
    // And the difference was booked as 使途不明金
    await until('the adjustment listed', () => row('使途不明金').count(), 1);
    await shot(page, 'reconcile-1280');
    await accessible(page, 'the month with a reconciled slip');
    await context.close();
  });

  await step("a transfer's receiving side toggles on its own; a reconciled row unlocks after a confirmation and names what it broke", async () => {
    // Given a wallet and a withdrawal from the bank to it, both sides uncleared
    const cash = await api('POST', '/accounts', { id: 'cash', name: '財布', type: 'cash', opening_balance: 0 });
    check(cash.status === 201, `account: ${cash.status}`);
    const made = await api('POST', '/slips', { date: '2026-11-05', kind: 'transfer', amount: 2000, account: 'bank', to_account: 'cash', memo: '引き出し' });
    check(made.status === 201, `slip: ${made.status}`);
    const { context, page } = await openPage({ width: 1280, height: 900 }, '#2026-11');
    const row = (memo) => page.locator('#slip-rows tr').filter({ hasText: memo });
    const side = (memo, field) => row(memo).locator(`[data-field="${field}"]`);
    const slip = async (memo) => (await api('GET', '/slips?from=2026-11-01&to=2026-11-30')).data.items.find((s) => s.memo === memo);
    await openRoute(page, 'slips');
    await until('both sides shown', async () => [await side('引き出し', 'cleared').innerText(), await side('引き出し', 'to_cleared').innerText()], ['○', '○']);
    // When the wallet's (receiving) side is tapped
    await row('引き出し').locator('button[data-field="to_cleared"]').click();
    // Then only to_cleared is cleared, and the row says so
    await until('the receiving side cleared', async () => { const s = await slip('引き出し'); return [s.cleared, s.to_cleared]; }, ['uncleared', 'cleared']);
    await until('the row shows it', () => side('引き出し', 'to_cleared').innerText(), '✓');
    // When the reconciled 電気代 row is unlocked, and the question confirmed
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      dialog.accept();
    });
    await row('電気代').locator('button.unlock').click();
    // Then the slip is uncleared again, its reconciliation no longer holds, and the page names it
    await until('the slip unlocked', async () => (await slip('電気代')).cleared, 'uncleared');
    const [broken] = (await api('GET', '/accounts/bank/reconciliations')).data.items;
    check(broken.holds === false, `reconciliation: ${JSON.stringify(broken)}`);
    check(asked.includes('成り立たなく') && asked.includes(broken.date), `the question: ${asked}`);
    await openRoute(page, 'accounts');
    await until('the page names the broken reconciliation', async () => (await page.innerText('#reconcile-broken')).includes(broken.id), true);
    await openRoute(page, 'slips');
    await until('the row toggles again', () => row('電気代').locator('button.cleared-mark').innerText(), '○');
    await shot(page, 'reconcile-unlock-1280');
    await accessible(page, 'the month with an unlocked slip and a transfer');
    await context.close();
  });
});
