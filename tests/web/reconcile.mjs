// 残高を合わせる in a real browser (Debian's Chromium, headless, driven by playwright-core) against the
// local front: a tap clears a slip (PATCH under its ETag), the reconcile form says the difference as
// the balance is typed, books it as 使途不明金 when asked and commits; the reconciled slip then shows a
// lock naming its reconciliation and no toggle. axe-core finds nothing serious or critical.
//
//   node tests/web/reconcile.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_reconcile.py runs it against a fresh front.

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

import { WAIT, openRoute, routed } from './routing.mjs';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    user: { type: 'string', default: `reconcile-${Date.now()}` },
    out: { type: 'string', default: 'test-output/web' },
    chromium: { type: 'string', default: process.env.CHROMIUM || '/usr/bin/chromium' },
  },
});
if (!args.url) {
  console.error('usage: node tests/web/reconcile.mjs --url http://127.0.0.1:PORT [--user U] [--out DIR]');
  process.exit(2);
}

const BASE = args.url.replace(/\/+$/, '');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const OUT = resolve(args.out);

const steps = [];
const screenshots = [];
const problems = [];

const log = (record) => process.stdout.write(`${JSON.stringify(record)}\n`);

class Failed extends Error {}

function check(condition, message) {
  if (!condition) throw new Failed(message);
}

async function step(name, work) {
  try {
    await work();
    steps.push({ name, ok: true });
    log({ step: name, ok: true });
  } catch (error) {
    steps.push({ name, ok: false, error: String(error?.message ?? error) });
    log({ step: name, ok: false, error: String(error?.stack ?? error) });
  }
}

async function until(what, read, expected, timeout = WAIT) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await read();
    } catch (error) {
      last = `<${error.message.split('\n')[0]}>`;
    }
    if (JSON.stringify(last) === JSON.stringify(expected)) return last;
    if (Date.now() > deadline) throw new Failed(`${what}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The API as the test's user (to set a ledger up and to check what the page did). */
async function api(method, path, body, headers = {}) {
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { Authorization: `Bearer ${args.user}`, 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, data: text ? JSON.parse(text) : null };
}

async function shot(page, name) {
  const path = join(OUT, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  screenshots.push(path);
}

/** axe-core on the page as it is: any serious or critical violation fails, with where it was found. */
async function accessible(page, name) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const { violations } = await window.axe.run(document, { resultTypes: ['violations'] });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
  });
  check(found.length === 0, `${name} at ${page.viewportSize().width}px: axe-core finds ${JSON.stringify(found)}`);
}

mkdirSync(OUT, { recursive: true });
const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });

/** A browser context of the test's user in a browser whose clock says UTC (as a laptop abroad, or a CI machine). */
async function openPage({ width, height }, hash = '', clock = null) {
  const context = await browser.newContext({ locale: 'ja-JP', timezoneId: 'UTC', viewport: { width, height } });
  await context.addInitScript((user) => localStorage.setItem('kakeibo.user', user), args.user);
  const page = routed(await context.newPage());
  page.on('pageerror', (error) => problems.push(String(error)));
  if (clock) await page.clock.setFixedTime(clock);
  await page.goto(`${BASE}/${hash}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
  return { context, page };
}

try {
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

  await step('no uncaught script errors', async () => {
    check(problems.length === 0, `page errors: ${problems.join(' | ')}`);
  });
} finally {
  await browser.close();
}

const ok = steps.length > 0 && steps.every((s) => s.ok);
log({ ok, user: args.user, steps, screenshots });
process.exit(ok ? 0 : 1);
