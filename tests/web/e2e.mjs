// The web page in a real browser (Debian's Chromium, headless, driven by playwright-core) against the
// local front: a household's flow from an empty ledger, including a 412 provoked from a second tab,
// and a shared ledger of three people (each in a browser context of their own).
//
//   node tests/web/e2e.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Its people are accounts of the front's user pool (people.mjs: `someone`, `someone-hanako`, …, each
// signed up on first use), so it runs against a strict front (LOCAL_AUTH=strict) as against make run's;
// each page is signed in as one of them (what the page keeps after a sign-in, seeded).
// Prints one JSON line per step and a final JSON summary (with `people`: each name's `sub` and
// email); exits 0 only if every step passed. tests/api/test_web.py runs it against a strict front and
// then checks the ledger through the API.

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

import { claimsOf } from '../../web/auth.js';
import { Failed, check, until } from './harness.mjs';
import { people } from './people.mjs';
import { WAIT, openRoute, routed } from './routing.mjs';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    user: { type: 'string', default: `e2e-${Date.now()}` },
    out: { type: 'string', default: 'test-output/web' },
    chromium: { type: 'string', default: process.env.CHROMIUM || '/usr/bin/chromium' },
    timeout: { type: 'string', default: '1500' },
    only: { type: 'string', default: '' }, // run only the steps whose name contains this (while working on one)
  },
});
if (!args.url) {
  console.error('usage: node tests/web/e2e.mjs --url http://127.0.0.1:PORT [--user U] [--out DIR]');
  process.exit(2);
}

const BASE = args.url.replace(/\/+$/, '');
const pool = people(BASE);
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js'); // axe-core, from npm (package.json)
const MONTH = '2026-11';
const OUT = resolve(args.out);
const LAUNCH_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const steps = [];
const screenshots = [];
const problems = []; // uncaught page errors: any one fails the run
let browserContext = null;
const extraBrowsers = []; // browsers of the other people of a household

function log(record) {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

async function step(name, work) {
  if (args.only && !name.includes(args.only)) return;
  const started = Date.now();
  try {
    await work();
    await realClock(name);
    steps.push({ name, ok: true, ms: Date.now() - started });
    log({ step: name, ok: true, ms: Date.now() - started });
  } catch (error) {
    steps.push({ name, ok: false, error: String(error?.message ?? error) });
    log({ step: name, ok: false, error: String(error?.stack ?? error) });
    // What each tab showed when it failed
    for (const [i, page] of (browserContext?.pages() ?? []).entries()) {
      await shot(page, `failed-${steps.length}-tab${i + 1}`).catch(() => {});
    }
    throw error;
  }
}

/**
 * After each step, the shared context's pages still see the real date: a step that fixes a clock does
 * so in a context of its own (page.clock is the context's), never for the steps after it.
 */
async function realClock(name) {
  if (!browserContext) return;
  const probe = await browserContext.newPage();
  try {
    const seen = await probe.evaluate(() => Date.now());
    const drift = Math.abs(seen - Date.now());
    if (drift > 3_600_000) throw new Failed(`after '${name}' the shared browser's clock is ${new Date(seen).toISOString()}, not now`);
  } finally {
    await probe.close();
  }
}

async function shot(page, name, options = {}) {
  const path = join(OUT, `${name}.png`);
  await page.screenshot({ path, fullPage: true, ...options });
  screenshots.push(path);
}

const text = (page, selector) => page.locator(selector).first().innerText({ timeout: 1000 }).then((t) => t.trim());
const visible = (page, selector) => page.locator(selector).first().isVisible();
const balance = (page, account, column) => text(page, `#balance-rows tr[data-account="${account}"] td.${column}`);
const row = (page, memoOrId) => page.locator('#slip-rows tr').filter({ hasText: memoOrId });

/** In `page`: open the slip for editing (a fresh GET and ETag), change form fields, and save. */
async function editSlip(page, fields = {}, { save = true } = {}) {
  await page.bringToFront(); // a background tab gets no animation frames: clicks would wait on them
  await row(page, 'スーパー').locator('button.edit').click();
  await until('form in edit mode', () => text(page, '#slip-form-title').then((t) => t.startsWith('伝票を編集')), true);
  for (const [name, value] of Object.entries(fields)) await page.fill(`#slip-${name}`, value);
  if (save) await page.click('#slip-submit');
}

/** How many pixels the page is wider than its viewport (0 when it fits). */
const overflowOf = (page) => page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth));

/**
 * axe-core on the page as it is now (every view shown, at the current width): any serious or
 * critical violation fails the step, named with the view it was found in.
 */
async function accessible(page, name) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const { violations } = await window.axe.run(document, { resultTypes: ['violations'] });
    const viewOf = (selector) => {
      const node = document.querySelector(selector);
      return node?.closest('section[id], header, footer, .messages')?.id || node?.closest('header, footer, .messages')?.className || 'page';
    };
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ rule: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 6).map((n) => `${viewOf(n.target[0])}: ${n.target.join(' ')}`) }));
  });
  const width = page.viewportSize().width;
  check(found.length === 0, `${name} at ${width}px: axe-core finds ${JSON.stringify(found, null, 1)}`);
}

/**
 * The page fits its window at 1280 px and at 390 px (a phone) in its current state, and axe-core
 * finds nothing serious in it at either width; screenshots of both.
 */
async function fitsBothWidths(page, name) {
  for (const [width, height] of [[1280, 900], [390, 844]]) {
    await page.setViewportSize({ width, height });
    const overflow = await overflowOf(page);
    check(overflow === 0, `${name}: the page is ${overflow}px wider than a ${width}px window`);
    await accessible(page, name);
    await shot(page, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * From the keyboard alone: Tab from the top of the page reaches every control shown, and each one
 * shows that it has the focus (an outline of 2px or more).
 */
async function keyboardReachesEverything(page, name) {
  const total = await page.evaluate(() => {
    for (const node of document.querySelectorAll('[data-control]')) delete node.dataset.control; // of a view checked before
    const shown = [...document.querySelectorAll('a[href], button, input, select, textarea, summary')].filter(
      (n) => n.checkVisibility() && !n.disabled && n.tabIndex >= 0,
    );
    shown.forEach((n, i) => (n.dataset.control = String(i)));
    document.activeElement?.blur();
    window.scrollTo(0, 0);
    return shown.length;
  });
  const reached = new Set();
  const unmarked = new Set();
  // a date input takes a Tab per part (year, month, day): a few more presses than controls
  for (let press = 0; press < total * 4 && reached.size < total; press += 1) {
    await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const node = document.activeElement;
      const style = getComputedStyle(node);
      const marked = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
      return { id: node.dataset?.control ?? null, what: node.id || node.getAttribute('aria-label') || node.textContent.trim().slice(0, 20), marked };
    });
    if (focus.id === null) continue;
    reached.add(focus.id);
    if (!focus.marked) unmarked.add(focus.what);
  }
  const missed = await page.evaluate(
    (seen) => [...document.querySelectorAll('[data-control]')].filter((n) => !seen.includes(n.dataset.control)).map((n) => n.id || n.outerHTML.slice(0, 80)),
    [...reached],
  );
  check(missed.length === 0, `${name}: not reached by Tab: ${JSON.stringify(missed)}`);
  check(unmarked.size === 0, `${name}: no visible focus on ${JSON.stringify([...unmarked])}`);
  return total;
}

/** How many lines each node's text takes. */
const linesOf = (locator) =>
  locator.evaluateAll((nodes) =>
    nodes.map((node) => {
      const range = document.createRange();
      range.selectNodeContents(node);
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    }),
  );

/** One row of the conflict table: [as read, now, yours]. */
const conflictRow = (page, field) =>
  page.locator(`#conflict-table tr[data-field="${field}"] td`).allInnerTexts().then((t) => t.map((x) => x.trim()));

async function addSlip(page, { date, amount, category, memo }) {
  await page.fill('#slip-date', date);
  await page.selectOption('#slip-kind', 'expense');
  await page.fill('#slip-amount', amount);
  await page.fill('#slip-category', category);
  await page.fill('#slip-memo', memo);
  await page.click('#slip-submit');
  await until('slip form idle', () => page.isEnabled('#slip-submit'), true);
}

async function openPage(context, { width = 1280, height = 900 } = {}) {
  const page = routed(await context.newPage());
  await page.setViewportSize({ width, height });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => dialog.accept()); // the delete confirmation
  await page.goto(`${BASE}/#${MONTH}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
  return routed(page);
}

/** What the page keeps after `user` signed in (people.mjs), put in the storage of `page`'s browser. */
async function signIn(page, user) {
  const kept = await pool.stored(user);
  await page.goto(`${BASE}/health`); // any address of the page's origin: its localStorage
  await page.evaluate((items) => {
    for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
  }, kept);
}

/** In `page` (a new tab): the page of this month, signed in as `user` (their ledger, once read). */
async function openAs(page, user) {
  await signIn(page, user);
  await page.goto(`${BASE}/#${MONTH}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
  await until('signed in as them', () => text(page, '#who'), pool.emailOf(user));
}

async function routesOfApi() {
  const response = await fetch(`${BASE}/openapi.json`);
  check(response.ok, `GET /openapi.json answered ${response.status}`);
  return new Set(Object.keys((await response.json()).paths ?? {}));
}

async function run(context) {
  const routes = await routesOfApi();
  let a;
  let b;

  await step('page loads signed in as this test\'s person, with no script errors', async () => {
    a = routed(await context.newPage());
    await signIn(a, args.user);
    await a.close();
    a = await openPage(context);
    check((await a.title()).startsWith('家計簿'), `title: ${await a.title()}`);
    check((await a.inputValue('#month')) === MONTH, 'the month comes from the URL');
  });

  await step('the page is this person\'s own ledger, named in the header', async () => {
    check(await a.evaluate(() => document.body.dataset.auth === 'in'), 'signed in');
    check((await text(a, '#who')) === pool.emailOf(args.user), 'the header names the person');
    check(!(await visible(a, '#settings-form')), 'no user name to type on a strict front');
    check(await visible(a, '#accounts-empty'), 'a new ledger asks for an account first');
  });

  await step('panels for routes the API lacks stay hidden; present ones show', async () => {
    await until('budgets panel visibility', () => visible(a, '#budgets-panel'), routes.has('/budgets'));
    await until('import panel visibility', () => visible(a, '#import-panel'), routes.has('/imports'));
  });

  await step('create an account (財布, cash, ￥10,000)', async () => {
    await a.fill('#account-id', 'wallet');
    await a.fill('#account-name', '財布');
    await a.selectOption('#account-type', 'cash');
    await a.fill('#account-opening', '10,000');
    await a.click('#account-submit');
    await until('wallet current balance', () => balance(a, 'wallet', 'current'), '￥10,000');
    check((await text(a, '#balance-rows tr[data-account="wallet"] .name')) === '財布', 'account name in Japanese');
    check((await a.inputValue('#slip-account')) === 'wallet', 'the new account is chosen for slips');
  });

  await step('a refused slip shows the problem detail (409 insufficient funds) and changes nothing', async () => {
    await a.fill('#slip-date', `${MONTH}-20`);
    await a.fill('#slip-amount', '20000');
    await a.click('#slip-submit');
    await until('error region', () => visible(a, '#error'), true);
    const error = await text(a, '#error');
    // worded by the API in the page's language (Accept-Language: ja-JP), the account by its name
    check(error === '財布の残高 ¥10,000 では ¥20,000 を支払えません', `error shown: ${error}`);
    check((await a.getAttribute('#error', 'role')) === 'alert', 'errors are announced (role=alert)');
    check((await balance(a, 'wallet', 'current')) === '￥10,000', 'balance unchanged');
  });

  await step('add a slip (食費 ￥1,200 typed with full-width digits) and see balances and totals', async () => {
    await a.fill('#slip-date', `${MONTH}-20`);
    await a.selectOption('#slip-kind', 'expense');
    await a.fill('#slip-amount', '１，２００');
    await a.fill('#slip-category', '食費');
    await a.fill('#slip-memo', 'スーパー');
    await a.click('#slip-submit');
    await until('slip row', () => text(a, '#slip-rows tr td.amount'), '-￥1,200');
    check(!(await visible(a, '#error')), 'the earlier error is cleared');
    check((await text(a, '#slip-rows tr td.date')) === '11/20(金)', 'date shown in Japanese');
    check((await text(a, '#slip-rows tr td.category')) === '食費', 'category');
    check((await text(a, '#slip-rows tr td.account')) === '財布', 'account by its name');
    await until('wallet current balance', () => balance(a, 'wallet', 'current'), '￥8,800');
    await until('month expense total', () => text(a, '#report-expense'), '￥1,200');
    check((await a.locator('#chart svg g.chart-row.expense[data-category="食費"]').count()) === 1, 'a 食費 bar in the chart');
    check(
      ((await a.getAttribute('#chart svg', 'role')) === 'img') && (await a.locator('#chart svg > title').textContent()).includes('食費 ￥1,200'),
      'the chart is an image with its numbers in its title',
    );
  });

  await step('balances as of a chosen day (11/15, before the slip)', async () => {
    await a.fill('#asof-date', `${MONTH}-15`);
    await a.click('#asof-form button[type="submit"]');
    await until('as-of heading', () => text(a, '#asof-head'), '11/15(日)時点');
    await until('wallet as of 11/15', () => balance(a, 'wallet', 'asof'), '￥10,000');
    check((await balance(a, 'wallet', 'current')) === '￥8,800', 'current balance beside it');
    await shot(a, '1-slip-added');
  });

  await step('change the slip\'s date to 11/10: the balance as of 11/15 follows', async () => {
    await editSlip(a, {}, { save: false });
    // (No. 2: the refused slip used up number 1 — a refused write may leave a gap in the numbers)
    check((await text(a, '#slip-form-title')) === '伝票を編集（No. 2）', 'the form names the slip');
    await a.fill('#slip-date', `${MONTH}-10`);
    await a.click('#slip-submit');
    await until('slip row date', () => text(a, '#slip-rows tr td.date'), '11/10(火)');
    check((await text(a, '#status')).includes('日付を 11/20(金) → 11/10(火) に変更'), `status: ${await text(a, '#status')}`);
    await until('wallet as of 11/15', () => balance(a, 'wallet', 'asof'), '￥8,800');
    check((await balance(a, 'wallet', 'current')) === '￥8,800', 'a date change leaves the current balance');
    check((await text(a, '#slip-form-title')) === '伝票を追加', 'the form is back to adding');
    await shot(a, '2-date-changed');
  });

  await step('a second tab changes the amount while the first is editing: 412 is shown, nothing overwritten', async () => {
    // Given tab A is editing the slip (it read ETag "2")
    await editSlip(a, {}, { save: false });
    check((await a.inputValue('#slip-amount')) === '1200', 'tab A has the amount it read');
    // And tab B (same browser, the same person signed in, from localStorage) changes the amount to 1500
    b = await openPage(context);
    check((await text(b, '#who')) === pool.emailOf(args.user), 'tab B is signed in as the same person');
    await editSlip(b, { amount: '1500' });
    await until('tab B saved', () => text(b, '#slip-rows tr td.amount'), '-￥1,500');
    // When tab A saves its own change (the memo) on the stale ETag
    await a.bringToFront();
    await a.fill('#slip-memo', 'スーパー（特売）');
    await a.click('#slip-submit');
    // Then it shows the conflict: what the other tab changed, and what this one tried
    await until('conflict panel', () => visible(a, '#conflict'), true);
    await until('amount row', () => conflictRow(a, 'amount'), ['￥1,200', '￥1,500', '（変更なし）']);
    await until('memo row', () => conflictRow(a, 'memo'), ['スーパー', 'スーパー', 'スーパー（特売）']);
    check(
      (await a.getAttribute('#conflict-table tr[data-field="amount"] td.now', 'class')).includes('changed'),
      'the other tab\'s change is marked',
    );
    check((await text(a, '#error')).includes('先に変更されていました'), `error: ${await text(a, '#error')}`);
    // And it reloaded: the list, the balances, and the form now hold the current slip
    await until('tab A list reloaded', () => text(a, '#slip-rows tr td.amount'), '-￥1,500');
    await until('tab A balance reloaded', () => balance(a, 'wallet', 'current'), '￥8,500');
    check((await a.inputValue('#slip-amount')) === '1500', 'the form holds the current amount');
    check((await a.inputValue('#slip-memo')) === 'スーパー', 'the form holds the current memo');
    check(await visible(a, '#conflict-reapply'), 'the person can choose to re-apply their change');
    await shot(a, '3-conflict-412');
  });

  await step('re-apply the memo on top of the other tab\'s amount and save', async () => {
    await a.click('#conflict-reapply');
    check((await a.inputValue('#slip-memo')) === 'スーパー（特売）', 'memo back in the form');
    check((await a.inputValue('#slip-amount')) === '1500', 'the other tab\'s amount kept');
    await a.click('#slip-submit');
    await until('saved memo', () => text(a, '#slip-rows tr td.memo'), 'スーパー（特売）');
    check((await text(a, '#slip-rows tr td.amount')) === '-￥1,500', 'amount 1500 kept');
    check(!(await visible(a, '#conflict')), 'conflict closed after saving');
  });

  await step('the other tab moves the slip to 11/12 while this one edits: shown as a move, nothing lost', async () => {
    // Given tab A is editing the slip
    await editSlip(a, {}, { save: false });
    check((await a.inputValue('#slip-date')) === `${MONTH}-10`, 'tab A has the date it read');
    // And tab B moves it to the 12th (a new date is a new key: A's address for it is now gone)
    await editSlip(b, { date: `${MONTH}-12` });
    await until('tab B moved it', () => text(b, '#slip-rows tr td.date'), '11/12(木)');
    // When tab A saves a memo change at the old address (the API answers 404 there)
    await a.bringToFront();
    await a.fill('#slip-memo', 'スーパー（特売・移動後）');
    await a.click('#slip-submit');
    // Then tab A finds the slip at its new date and shows the move beside its own change
    await until('conflict panel', () => visible(a, '#conflict'), true);
    await until('date row', () => conflictRow(a, 'date'), ['2026年11月10日(火)', '2026年11月12日(木)', '（変更なし）']);
    await until('memo row', () => conflictRow(a, 'memo'), ['スーパー（特売）', 'スーパー（特売）', 'スーパー（特売・移動後）']);
    check((await a.inputValue('#slip-date')) === `${MONTH}-12`, 'the form holds the slip at its new date');
    // And re-applying saves the memo at the new address
    await a.click('#conflict-reapply');
    await a.click('#slip-submit');
    await until('saved memo', () => text(a, '#slip-rows tr td.memo'), 'スーパー（特売・移動後）');
    check((await text(a, '#slip-rows tr td.date')) === '11/12(木)', 'the date the other tab chose is kept');
  });

  await step('phone-sized screen: one column, slips as cards, nothing wider than the screen', async () => {
    await a.setViewportSize({ width: 390, height: 844 });
    const overflow = await a.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    check(overflow <= 0, `page is ${overflow}px wider than a phone screen`);
    const columns = await a.evaluate(() => getComputedStyle(document.querySelector('main')).gridTemplateColumns.split(' ').length);
    check(columns === 1, `main grid has ${columns} columns on a phone`);
    check((await a.locator('#slip-table thead').isVisible()) === false, 'table header hidden: rows are cards');
    await shot(a, '4-phone');
    await a.setViewportSize({ width: 1280, height: 900 });
  });

  await step('a stale delete from the other tab is refused (412) and shown; a fresh one deletes', async () => {
    // Tab B still lists the slip at the version it saved; tab A has saved since.
    await b.bringToFront();
    await row(b, 'スーパー').locator('button.delete').click();
    await until('tab B conflict', () => visible(b, '#conflict'), true);
    await until('tab B conflict memo row', () => text(b, '#conflict-table tr[data-field="memo"] td.mine'), '削除');
    await until('tab B list reloaded', () => text(b, '#slip-rows tr td.memo'), 'スーパー（特売・移動後）');
    check((await balance(b, 'wallet', 'current')) === '￥8,500', 'nothing deleted');
    await row(b, 'スーパー').locator('button.delete').click();
    await until('slip deleted', () => visible(b, '#slips-empty'), true);
    await until('balance restored', () => balance(b, 'wallet', 'current'), '￥10,000');
    await until('month total back to zero', () => text(b, '#report-expense'), '￥0');
  });

  await step('with no OpenAPI document to read, a route answering 404 hides its panel', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.route('**/openapi.json', (route) => route.abort());
    // Where this API has the route, answer as API Gateway does for one it lacks; else the front does.
    const missing = (route) => route.fulfill({ status: 404, json: { message: 'Not Found' } });
    if (routes.has('/budgets')) await page.route(/\/budgets\?/, missing);
    if (routes.has('/imports')) await page.route('**/imports', missing);
    await page.goto(`${BASE}/#${MONTH}`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    check(!(await visible(page, '#budgets-panel')), 'budgets hidden after GET /budgets answered 404');
    check(!(await visible(page, '#error')), 'a missing optional route is not an error');
    check(await visible(page, '#import-panel'), 'import offered while unknown');
    await page.setInputFiles('#import-file', { name: 'slips.csv', mimeType: 'text/csv', buffer: Buffer.from('date,kind,amount,account\n') });
    await page.click('#import-submit');
    await until('import panel hidden after POST /imports answered 404', () => visible(page, '#import-panel'), false);
    check((await text(page, '#error')).includes('CSV 取込がありません'), 'the person is told why');
    await page.close();
  });

  await step('budgets: a strict budget shows what remains; a slip past it is refused with the detail', async () => {
    check(routes.has('/budgets'), 'the API declares /budgets');
    // Tab B shows the budgets (none yet) before this tab sets one: it is the stale screen of the next step
    await b.bringToFront();
    await openRoute(b, 'budgets');
    check((await b.locator('#budget-rows tr').count()) === 0, 'tab B lists no budget yet');
    await a.bringToFront(); // a background tab gets no animation frames: clicks would wait on them
    await until('budgets panel', () => visible(a, '#budgets-panel'), true);
    // Created without If-Match
    await a.fill('#budget-category', '食費');
    await a.fill('#budget-limit', '3,000');
    await a.check('#budget-strict');
    await a.click('#budget-submit');
    const remaining = () => text(a, '#budget-rows tr[data-category="食費"] td.remaining');
    await until('budget listed', remaining, '￥3,000');
    check((await text(a, '#budget-rows tr[data-category="食費"] th')).includes('厳格'), 'strict budgets are marked');
    await addSlip(a, { date: `${MONTH}-05`, amount: '2000', category: '食費', memo: '米' });
    await until('remaining after a slip', remaining, '￥1,000');
    await until('spent', () => text(a, '#budget-rows tr[data-category="食費"] td:nth-of-type(2)'), '￥2,000');
    // A slip past a strict budget: refused, the problem's detail shown, nothing changed
    await addSlip(a, { date: `${MONTH}-06`, amount: '1500', category: '食費', memo: 'ケーキ' });
    await until('error region', () => visible(a, '#error'), true);
    const error = await text(a, '#error');
    check(error.includes('「食費」の予算は残り ¥1,000 です（¥1,500 必要です）'), `error shown: ${error}`);
    check((await remaining()) === '￥1,000', 'remaining unchanged');
    // Changed with If-Match (the version it was listed at)
    await a.locator('#budget-rows tr[data-category="食費"] button.edit').click();
    check((await a.inputValue('#budget-limit')) === '3000', 'the form holds the budget');
    await a.fill('#budget-limit', '4000');
    await a.click('#budget-submit');
    await until('remaining after raising the budget', remaining, '￥2,000');
    await shot(a, '5-budgets');
  });

  await step('a budget set meanwhile in the other tab is not overwritten (428): the panel reloads', async () => {
    // Tab B listed no budget for 食費 when it last loaded, so it tries to create one
    await b.bringToFront();
    check((await b.locator('#budget-rows tr').count()) === 0, 'tab B lists no budget');
    await b.fill('#budget-category', '食費');
    await b.fill('#budget-limit', '9000');
    await b.click('#budget-submit');
    await until('tab B error', () => visible(b, '#error'), true);
    const error = await text(b, '#error');
    check(error.includes('先に設定されていました') && error.includes('If-Match'), `error shown: ${error}`);
    await until('tab B reloaded budgets', () => text(b, '#budget-rows tr[data-category="食費"] td.remaining'), '￥2,000');
  });

  await step('CSV import panel against the POST /imports contract (POST /imports stubbed in the browser)', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const sent = [];
    let release;
    const released = new Promise((resolve) => {
      release = resolve;
    });
    await page.route('**/openapi.json', async (route) => {
      const real = await route.fetch();
      const doc = await real.json();
      doc.paths = { ...doc.paths, '/imports': {} };
      await route.fulfill({ response: real, json: doc });
    });
    await page.route('**/imports', async (route) => {
      const request = route.request();
      sent.push({
        method: request.method(),
        type: await request.headerValue('content-type'),
        auth: await request.headerValue('authorization'),
        body: request.postData(),
      });
      await released; // held until the page has shown its progress
      await route.fulfill({
        status: 200,
        json: { import_id: 'imp-1', rows: 3, created: 2, skipped: 0, errors: [{ line: 4, message: 'amount: must be a whole number of yen' }] },
      });
    });
    await page.goto(`${BASE}/#${MONTH}`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    await until('import panel', () => visible(page, '#import-panel'), true);
    const csv = 'date,kind,amount,account,to_account,category,memo\n2026-11-01,expense,500,wallet,,食費,パン\n2026-11-02,income,1000,wallet,,臨時,\n2026-11-03,expense,1.5,wallet,,食費,\n';
    await page.setInputFiles('#import-file', { name: '明細.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.click('#import-submit');
    // While the file is on its way, the page says so
    await until('progress shown', () => visible(page, '#import-progress'), true);
    check((await text(page, '#import-progress-text')).includes('明細.csv') && (await page.getAttribute('#import-panel', 'aria-busy')) === 'true', 'progress names the file');
    release();
    await until('import report', () => visible(page, '#import-report'), true);
    check(!(await visible(page, '#import-progress')), 'progress put away when done');
    const summary = await text(page, '#import-summary');
    check(summary.includes('3 行中 2 件を追加') && summary.includes('1 行はエラー'), `summary: ${summary}`);
    check(
      JSON.stringify(await page.locator('#import-errors tbody tr td').allInnerTexts()) ===
        JSON.stringify(['4', 'amount: must be a whole number of yen']),
      'the failed line and why',
    );
    check(sent.length === 1 && sent[0].method === 'POST', `requests: ${JSON.stringify(sent)}`);
    check(sent[0].type === 'text/csv' && sent[0].body === csv, `import request: ${JSON.stringify(sent[0])}`);
    check(claimsOf(sent[0].auth?.replace(/^Bearer /, ''))?.sub === (await pool.subOf(args.user)), 'the import carries the person\'s ID token');
    await until('import button ready again', () => page.isEnabled('#import-submit'), true);
    await shot(page, '6-import');
    await fitsBothWidths(page, '6-import');
    await page.close();
  });

  await step('a Money Forward ME file: the dry run is shown, nothing written until it is confirmed', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // a ledger of its own (the household flow's ledger is checked afterwards), with its wallet
    const mover = `${args.user}-mf`;
    const auth = await pool.auth(mover);
    const wallet = { id: 'wallet', name: '財布', type: 'cash', opening_balance: 5000 };
    const made = await fetch(`${BASE}/accounts`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(wallet) });
    check(made.status === 201, `account: ${made.status}`);
    const accounts = async () => (await (await fetch(`${BASE}/accounts`, { headers: auth })).json()).items.map((a) => a.name);
    await openAs(page, mover);
    await until('import panel', () => visible(page, '#import-panel'), true);
    const file =
      '"計算対象","日付","内容","金額（円）","保有金融機関","大項目","中項目","メモ","振替","ID"\r\n' +
      '"1","2026/11/20","ドラッグストア","-300","財布","日用品","消耗品","","0","e2e-mf-1"\r\n' +
      '"1","2026/11/21","カフェ, 駅前","-450","楽天カード","交際費","カフェ","","0","e2e-mf-2"\r\n';
    await page.setInputFiles('#import-file', { name: '収入・支出詳細.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
    await page.check('#import-create-accounts');
    await page.click('#import-preview');
    await until('dry run shown', () => visible(page, '#import-dry-run'), true);
    const summary = await text(page, '#import-dry-summary');
    check(summary.includes('マネーフォワード ME') && summary.includes('追加 2 件'), `dry run: ${summary}`);
    check((await text(page, '#import-dry-accounts')).includes('楽天カード（クレジット'), 'the account to create');
    const cells = await page.locator('#import-dry-rows tbody tr td:nth-of-type(2)').allInnerTexts();
    check(JSON.stringify(cells) === JSON.stringify(['追加', '追加']), `rows: ${JSON.stringify(cells)}`);
    const card = await text(page, '#import-dry-rows tbody tr:nth-of-type(2) td:nth-of-type(4)');
    check(card.startsWith('楽天カード 交際費 / カフェ'), `the new account by its name: ${card}`);
    check(!(await accounts()).includes('楽天カード'), 'a dry run writes nothing');
    await shot(page, '7-import-dry-run');
    await fitsBothWidths(page, '7-import-dry-run');
    await page.click('#import-commit');
    await until('import report', () => visible(page, '#import-report'), true);
    const done = await text(page, '#import-summary');
    check(done.includes('2 行中 2 件を追加'), `import: ${done}`);
    check(!(await visible(page, '#import-dry-run')), 'the dry run is put away once committed');
    check((await accounts()).includes('楽天カード'), 'the account was created');
    // and the month's totals break the categories down by the file's 中項目
    const subs = () => page.locator('#report-rows tr.sub th').allTextContents();
    await until('subcategory rows', async () => JSON.stringify(await subs()), JSON.stringify(['└ カフェ', '└ 消耗品']));
    await page.close();
  });

  await step('a later Money Forward download: a row changed in the app (変更) and one it no longer has (ファイルにない), deleted only when ticked', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Given a first download imported through the API: 300 at the drugstore, 1,200 for a book
    const mover = `${args.user}-mf2`;
    const auth = await pool.auth(mover);
    const wallet = { id: 'wallet', name: '財布', type: 'cash', opening_balance: 5000 };
    check((await fetch(`${BASE}/accounts`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(wallet) })).status === 201, 'wallet');
    const header = '"計算対象","日付","内容","金額（円）","保有金融機関","大項目","中項目","メモ","振替","ID"\r\n';
    const drug = (amount) => `"1","2026/11/20","ドラッグストア","-${amount}","財布","日用品","消耗品","","0","e2e-sync-1"\r\n`;
    const book = '"1","2026/11/22","本屋","-1200","財布","教養・教育","書籍","","0","e2e-sync-2"\r\n';
    const first = await fetch(`${BASE}/imports`, { method: 'POST', headers: { ...auth, 'Content-Type': 'text/csv' }, body: header + drug(300) + book });
    check(first.status === 200, `first download: ${first.status}`);
    const balance = async () => (await (await fetch(`${BASE}/accounts/wallet`, { headers: auth })).json()).balance;
    check((await balance()) === 3500, 'after the first download');
    // When the next download (the drugstore row edited to 350, the book gone, a new row after it) is checked in the page
    const later = '"1","2026/11/25","コンビニ","-100","財布","食費","食料品","","0","e2e-sync-3"\r\n';
    await openAs(page, mover);
    await until('import panel', () => visible(page, '#import-panel'), true);
    await page.setInputFiles('#import-file', { name: '収入・支出詳細_2.csv', mimeType: 'text/csv', buffer: Buffer.from(header + later + drug(350)) });
    await page.click('#import-preview');
    await until('dry run shown', () => visible(page, '#import-dry-run'), true);
    // Then the change and the missing row are shown in their own words, and deleting is a choice
    const summary = await text(page, '#import-dry-summary');
    check(summary.includes('追加 1 件') && summary.includes('アプリで変更 1 件') && summary.includes('ファイルにない 1 件'), `dry run: ${summary}`);
    const cells = await page.locator('#import-dry-rows tbody tr td:nth-of-type(2)').allInnerTexts();
    check(JSON.stringify(cells) === JSON.stringify(['追加', '変更', 'ファイルにない']), `rows: ${JSON.stringify(cells)}`);
    check(await visible(page, '#import-deletions'), 'deleting is offered');
    check(!(await page.isChecked('#import-apply-deletions')), 'and not chosen for the person');
    await fitsBothWidths(page, '7-import-later-download');
    // When it is imported with the deletion ticked: 5,000 - 350 - 100, the book deleted
    await page.check('#import-apply-deletions');
    await page.click('#import-commit');
    await until('import report', () => visible(page, '#import-report'), true);
    const done = await text(page, '#import-summary');
    check(done.includes('1 件をアプリでの変更どおりに更新') && done.includes('1 件を削除'), `import: ${done}`);
    check((await balance()) === 4550, `after the later download: ${await balance()}`);
    await page.close();
  });

  await step('messages never go stale: month change, moved slip, error vs success, bad token; every state fits 1280 and 390 px', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => dialog.accept());
    // Given a ledger of its own with a wallet, one slip on 11/20 and a budget for 交通費
    const owner = `${args.user}-msg`;
    const auth = { ...(await pool.auth(owner)), 'Content-Type': 'application/json' };
    const post = (path, body, method = 'POST') => fetch(`${BASE}${path}`, { method, headers: auth, body: JSON.stringify(body) });
    check((await post('/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 50000 })).status === 201, 'account');
    check((await post('/slips', { date: `${MONTH}-20`, kind: 'expense', amount: 640, account: 'wallet', category: '交通費', memo: '移す伝票' })).status === 201, 'slip');
    if (routes.has('/budgets')) {
      const made = await post(`/budgets/${MONTH}/${encodeURIComponent('交通費')}`, { limit: 12000, strict: false }, 'PUT');
      check(made.status === 201 || made.status === 200, `budget: ${made.status}`);
    }
    const longId = 'f'.repeat(64);
    await page.route('**/imports', (route) =>
      route.fulfill({ status: 200, json: { import_id: longId, rows: 1, created: 1, skipped: 0, errors: [] } }),
    );
    await openAs(page, owner);
    await until('the slip listed', () => row(page, '移す伝票').count(), 1);
    // From the keyboard: Enter opens it, Escape closes it and leaves focus on its summary
    await page.focus('#settings summary');
    await page.keyboard.press('Enter');
    await until('popover open', () => page.locator('#settings').evaluate((d) => d.open), true);
    await page.focus('#signout');
    await page.keyboard.press('Escape');
    await until('popover closed by Escape', () => page.locator('#settings').evaluate((d) => d.open), false);
    check(await page.evaluate(() => document.activeElement?.matches('#settings summary')), 'focus back on the summary');

    // The phone budget table: the category on one line, the button on one line
    if (routes.has('/budgets')) {
      await page.setViewportSize({ width: 390, height: 844 });
      const one = (selector) => page.locator(selector).evaluate((n) => n.getClientRects().length > 0 && n.getBoundingClientRect().height < parseFloat(getComputedStyle(n).lineHeight) * 1.9 + 2);
      check(await one('#budget-rows tr[data-category="交通費"] th'), '交通費 is on one line on a phone');
      check(await one('#budget-rows tr[data-category="交通費"] button.edit'), 'the budget\'s change button is on one line on a phone');
      check(await one('#budget-rows tr[data-category="交通費"] button.delete'), 'the budget\'s delete button is on one line on a phone');
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    // An import's report with a 64-character id wraps instead of widening the page
    await page.setInputFiles('#import-file', { name: 'a.csv', mimeType: 'text/csv', buffer: Buffer.from('date,kind,amount,account\n') });
    await page.click('#import-submit');
    await until('import report', () => visible(page, '#import-report'), true);
    check((await text(page, '#import-summary')).includes(longId), 'the import id shown');
    await fitsBothWidths(page, '8-import-long-id');

    // Month change: the as-of status and the import report belong to the old month and go
    await page.fill('#asof-date', `${MONTH}-15`);
    await page.click('#asof-form button[type="submit"]');
    await until('as-of status', () => text(page, '#status'), '11/15(日)時点の残高を表示しました');
    await page.click('#month-next');
    await until('status cleared on month change', () => text(page, '#status'), '');
    check(!(await visible(page, '#import-report')), 'the last import report is put away on month change');
    await page.click('#month-prev');
    await until('back in November', () => row(page, '移す伝票').count(), 1);

    // Error and success are never shown together
    await page.fill('#slip-amount', '');
    await page.click('#slip-submit');
    await until('a form error', () => visible(page, '#error'), true);
    await page.fill('#asof-date', `${MONTH}-15`);
    await page.click('#asof-form button[type="submit"]');
    await until('as-of status', () => text(page, '#status'), '11/15(日)時点の残高を表示しました');
    check(!(await visible(page, '#error')), 'the error went when success was said');

    // A slip moved to December says where it went, with a way there
    await row(page, '移す伝票').locator('button.edit').click();
    await until('form in edit mode', () => text(page, '#slip-form-title').then((t) => t.startsWith('伝票を編集')), true);
    await page.fill('#slip-date', '2026-12-03');
    await page.click('#slip-submit');
    await until('moved message', () => text(page, '#status').then((t) => t.includes('この伝票は2026年12月に移りました')), true);
    await until('it left November\'s list', () => row(page, '移す伝票').count(), 0);
    await fitsBothWidths(page, '9-moved');
    await page.click('#status a');
    await until('December shown', () => page.inputValue('#month'), '2026-12');
    await until('the slip in December', () => row(page, '移す伝票').count(), 1);

    // A refused identity: the API refuses the ID token (API Gateway's 401) and the pool its refresh
    // token; the page asks for a sign-in, and nothing of the ledger is left on screen
    const config = await (await fetch(`${BASE}/config.json`)).json();
    await page.route(`${config.cognito_endpoint}**`, (route) =>
      route.fulfill({ status: 400, contentType: 'application/x-amz-json-1.1', json: { __type: 'NotAuthorizedException', message: 'Refresh Token has been revoked' } }),
    );
    await page.route(`${BASE}/**`, (route) =>
      route.request().headers().authorization?.startsWith('Bearer ') ? route.fulfill({ status: 401, json: { message: 'Unauthorized' } }) : route.fallback(),
    );
    await page.click('#month-next');
    await until('asked to sign in again', () => page.evaluate(() => document.body.dataset.auth), 'out');
    await until('the sign-in panel', () => visible(page, '#signin-form'), true);
    check(!(await page.isVisible('main')), 'nothing of the ledger shown');
    check(!(await text(page, '#status')), 'no success message beside it');
    await fitsBothWidths(page, '10-bad-token');
    await page.evaluate(() => localStorage.clear()); // the other tabs' identity is not this one's business
    await page.close();
  });

  await step('accounts renamed, allowed negative, archived (412 not overwritten); budgets copied from last month; the month exported', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Given a ledger with two accounts, a slip, last month's budgets and one of them already set this month
    const owner = `${args.user}-acct`;
    const auth = { ...(await pool.auth(owner)), 'Content-Type': 'application/json' };
    const call = (method, path, body, extra = {}) =>
      fetch(`${BASE}${path}`, { method, headers: { ...auth, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
    check((await call('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 1000 })).status === 201, 'wallet');
    check((await call('POST', '/accounts', { id: 'bank', name: '銀行', type: 'bank', opening_balance: 0 })).status === 201, 'bank');
    check((await call('POST', '/slips', { date: `${MONTH}-03`, kind: 'expense', amount: 300, account: 'wallet', category: '食費', memo: 'export-me' })).status === 201, 'slip');
    for (const [month, category, limit, strict] of [['2026-10', '食費', 30000, true], ['2026-10', '交通費', 5000, false], [MONTH, '交通費', 8000, false]]) {
      const made = await call('PUT', `/budgets/${month}/${encodeURIComponent(category)}`, { limit, strict });
      check(made.status === 201 || made.status === 200, `budget ${month} ${category}: ${made.status}`);
    }
    await openAs(page, owner);
    await until('the slip listed', () => row(page, 'export-me').count(), 1);

    // Rename the wallet and allow it to go negative (PATCH with If-Match)
    await page.click('#account-manage-details summary');
    await page.selectOption('#manage-account', 'wallet');
    check((await page.inputValue('#manage-name')) === '財布', 'the form holds the account');
    await page.fill('#manage-name', '小銭入れ');
    await page.check('#manage-negative');
    await page.click('#manage-submit');
    await until('renamed in the balances', () => text(page, '#balance-rows tr[data-account="wallet"] .name'), '小銭入れ');
    await until('renamed on the slip', () => text(page, '#slip-rows tr td.account'), '小銭入れ');
    const wallet = await (await call('GET', '/accounts/wallet')).json();
    check(wallet.name === '小銭入れ' && wallet.allow_negative === true, `wallet: ${JSON.stringify(wallet)}`);

    // Another screen renames it meanwhile (this page shows the accounts again): its save is refused (412) and shows the current name
    await openRoute(page, 'accounts');
    const other = await call('PATCH', '/accounts/wallet', { name: 'よその名前' }, { 'If-Match': `"${wallet.version}"` });
    check(other.status === 200, `the other rename: ${other.status}`);
    await page.fill('#manage-name', '私の名前');
    await page.click('#manage-submit');
    await until('412 shown', () => text(page, '#error').then((t) => t.includes('先に変更されていました')), true);
    await until('the current name in the form', () => page.inputValue('#manage-name'), 'よその名前');
    check((await (await call('GET', '/accounts/wallet')).json()).name === 'よその名前', 'nothing overwritten');
    await until('conflict panel', () => visible(page, '#conflict'), true);
    check((await text(page, '#conflict-title')) === 'この口座は先に変更されていました', 'the panel names an account');
    await until('name row', () => conflictRow(page, 'name'), ['小銭入れ', 'よその名前', '私の名前']);
    // Re-applying puts this person's name back in the form; saving it now carries the current version
    await page.click('#conflict-reapply');
    check((await page.inputValue('#manage-name')) === '私の名前', 'the name tried is back in the form');
    await page.click('#manage-submit');
    await until('renamed after the conflict', () => text(page, '#balance-rows tr[data-account="wallet"] .name'), '私の名前');
    check(!(await visible(page, '#conflict')), 'the conflict panel put away');

    // Archive the bank: marked in the balances, gone from the slip form
    await page.selectOption('#manage-account', 'bank');
    await page.check('#manage-archived');
    await page.click('#manage-submit');
    await until('archived row', () => page.locator('#balance-rows tr[data-account="bank"]').getAttribute('class'), 'archived');
    check(!(await page.locator('#slip-account option[value="bank"]').count()), 'an archived account takes no new slips');
    check(!(await visible(page, '#error')), 'the earlier error went with the success');

    // Budgets: last month's copied in one action, this month's own kept
    await page.click('#budget-copy');
    await until('copied budget', () => text(page, '#budget-rows tr[data-category="食費"] td.remaining'), '￥29,700');
    check((await text(page, '#budget-rows tr[data-category="食費"] th')).includes('厳格'), 'strictness copied');
    check((await text(page, '#budget-rows tr[data-category="交通費"] td.remaining')) === '￥8,000', 'this month\'s own budget kept');
    const status = await text(page, '#status');
    check(status.includes('1 件コピー') && status.includes('1 件はこの月に設定済み'), `status: ${status}`);
    await fitsBothWidths(page, '11-accounts-budgets');

    // Export: the month's slips as the import format, downloaded as a file
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: WAIT }), page.click('#export-csv')]);
    check(download.suggestedFilename() === `slips-${MONTH}.csv`, `file: ${download.suggestedFilename()}`);
    const csv = await new Response((await download.createReadStream())).text();
    const lines = csv.trim().split(/\r?\n/);
    check(lines[0].startsWith('date,kind,amount,account') && lines.length === 2 && lines[1].includes('export-me'), `csv: ${csv}`);
    await page.close();
  });

  await step('budget removed from the page: a dismissed confirmation sends nothing, a stale one is refused (412), a fresh one removes it', async () => {
    check(routes.has('/budgets'), 'the API declares /budgets');
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const deletes = [];
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url());
    });
    // Given a ledger with a slip of 食費 and two budgets this month
    const owner = `${args.user}-budget`;
    const auth = { ...(await pool.auth(owner)), 'Content-Type': 'application/json' };
    const call = (method, path, body, extra = {}) =>
      fetch(`${BASE}${path}`, { method, headers: { ...auth, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
    const path = (category) => `/budgets/${MONTH}/${encodeURIComponent(category)}`;
    const listed = async () => ((await (await call('GET', `/budgets?month=${MONTH}`)).json()).items ?? []).map((b) => `${b.category}:${b.limit}:${b.spent}`);
    check((await call('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 10000 })).status === 201, 'wallet');
    check((await call('POST', '/slips', { date: `${MONTH}-04`, kind: 'expense', amount: 500, account: 'wallet', category: '食費', memo: 'パン' })).status === 201, 'slip');
    for (const [category, limit] of [['食費', 20000], ['日用品', 3000]]) {
      check((await call('PUT', path(category), { limit, strict: false })).status === 201, `budget ${category}`);
    }
    await openAs(page, owner);
    const categories = () => page.locator('#budget-rows tr').evaluateAll((rows) => rows.map((r) => r.dataset.category));
    await until('both budgets listed', categories, ['日用品', '食費']);
    const remove = (category) => page.getByRole('button', { name: `予算を削除: ${category}` });

    // A dismissed confirmation: nothing sent, nothing removed
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      dialog.dismiss();
    });
    await remove('食費').click();
    await until('the confirmation asked', () => asked.includes('2026年11月の「食費」の予算'), true);
    check(deletes.length === 0, `sent after a dismissed confirmation: ${deletes}`);
    check(JSON.stringify(await categories()) === JSON.stringify(['日用品', '食費']), 'both budgets still listed');

    // Another screen changes 日用品 meanwhile: this page's delete is refused (412), nothing removed, the list read again
    const [daily] = (await (await call('GET', `/budgets?month=${MONTH}`)).json()).items.filter((b) => b.category === '日用品');
    check((await call('PUT', path('日用品'), { limit: 4000, strict: false }, { 'If-Match': `"${daily.version}"` })).status === 200, 'the other change');
    page.once('dialog', (dialog) => dialog.accept());
    await remove('日用品').click();
    await until('412 shown', () => text(page, '#error').then((t) => t.includes('「日用品」の予算は別の画面で先に変更されていました')), true);
    await until('the current limit listed', () => text(page, '#budget-rows tr[data-category="日用品"] td:nth-of-type(1)'), '￥4,000');
    check(deletes.length === 1, `one refused delete sent: ${deletes}`);
    check(JSON.stringify(await listed()) === JSON.stringify(['日用品:4000:0', '食費:20000:500']), `nothing removed: ${await listed()}`);

    // A fresh delete: confirmed, removed from the table and from the API; what was spent stays
    page.once('dialog', (dialog) => dialog.accept());
    await remove('食費').click();
    await until('removed message', () => text(page, '#status'), '2026年11月の「食費」の予算を削除しました');
    await until('gone from the table', categories, ['日用品']);
    check(!(await visible(page, '#error')), 'the earlier error went with the success');
    check(deletes.length === 2 && deletes[1].endsWith(path('食費')), `the delete sent: ${deletes}`);
    check(JSON.stringify(await listed()) === JSON.stringify(['日用品:4000:0']), `budgets through the API: ${await listed()}`);
    const slips = (await (await call('GET', `/slips?from=${MONTH}-01&to=${MONTH}-30`)).json()).items;
    check(slips.length === 1 && slips[0].memo === 'パン', 'the slip under the budget stays');
    await fitsBothWidths(page, '21-budget-removed');
    await page.close();
  });

  await step('balances today and planned: a slip dated after today (rent recorded ahead) is shown apart, and said so', async () => {
    // A fixed clock is its context's (page.clock is the context's clock): this step's clock lives in a
    // context of its own, or every later page of the shared context would see 11/26 as today
    const owner = `${args.user}-plan`;
    const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: LAUNCH_FLAGS });
    extraBrowsers.push(browser);
    const own = await browser.newContext({ locale: 'ja-JP', timezoneId: 'Asia/Tokyo', viewport: { width: 1280, height: 900 } });
    const page = routed(await own.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.clock.setFixedTime(new Date('2026-11-15T12:00:00+09:00')); // the browser's today: 11/15
    const auth = { ...(await pool.auth(owner)), 'Content-Type': 'application/json' };
    const post = (path, body) => fetch(`${BASE}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    check((await post('/accounts', { id: 'bank', name: '銀行', type: 'bank', opening_balance: 300000 })).status === 201, 'bank');
    check((await post('/accounts', { id: 'suica', name: 'Suica', type: 'emoney', opening_balance: 2000 })).status === 201, 'suica');
    check((await post('/slips', { date: `${MONTH}-05`, kind: 'expense', amount: 1000, account: 'bank', category: '通信費', memo: '電話' })).status === 201, 'slip');
    check((await post('/slips', { date: `${MONTH}-25`, kind: 'expense', amount: 80000, account: 'bank', category: '住居費', memo: '家賃' })).status === 201, 'rent');
    await openAs(page, owner);
    await until('today\'s column', () => visible(page, '#today-head'), true);
    check((await text(page, '#today-head')) === '今日 11/15(日)', `today's column: ${await text(page, '#today-head')}`);
    check((await text(page, '#current-head')) === '予定込み', `the other column: ${await text(page, '#current-head')}`);
    check((await balance(page, 'bank', 'today')) === '￥299,000', 'today: the rent not yet');
    check((await balance(page, 'bank', 'current')) === '￥219,000', 'planned: the rent too');
    check((await balance(page, 'bank', 'asof')) === '￥219,000', 'as of the month\'s end');
    check((await balance(page, 'suica', 'today')) === '￥2,000' && (await balance(page, 'suica', 'current')) === '￥2,000', 'an account without plans');
    check((await text(page, '#total-today')) === '￥301,000' && (await text(page, '#total-current')) === '￥221,000', 'the totals of both');
    check((await text(page, '#balance-note')).includes('明日以降の日付の伝票'), `the note: ${await text(page, '#balance-note')}`);
    await fitsBothWidths(page, '23-planned');
    // On the day after the rent nothing is planned: one column again, named 現在
    await page.clock.setFixedTime(new Date('2026-11-26T12:00:00+09:00'));
    await page.click('#month-today'); // reads the month again
    await until('one column', () => visible(page, '#today-head'), false);
    check((await text(page, '#current-head')) === '現在' && !(await visible(page, '#balance-note')), 'no note');
    check((await balance(page, 'bank', 'current')) === '￥219,000', 'the balance');
    await page.close();
  });

  await step('filters and memo search over the month; the year\'s trends; an account\'s balance history; recurring slips', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const owner = `${args.user}-find`;
    const auth = { ...(await pool.auth(owner)), 'Content-Type': 'application/json' };
    const call = (method, path, body) => fetch(`${BASE}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
    check((await call('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 100000 })).status === 201, 'wallet');
    check((await call('POST', '/accounts', { id: 'bank', name: '銀行', type: 'bank', opening_balance: 500000 })).status === 201, 'bank');
    check((await call('POST', '/accounts', { id: 'suica', name: 'Suica', type: 'emoney', opening_balance: 2000 })).status === 201, 'suica');
    const slips = [
      { date: '2026-10-15', kind: 'expense', amount: 5000, account: 'wallet', category: '食費', memo: '先月' },
      { date: `${MONTH}-02`, kind: 'expense', amount: 1200, account: 'wallet', category: '食費', memo: 'スーパー 特売' },
      { date: `${MONTH}-04`, kind: 'expense', amount: 640, account: 'wallet', category: '交通費', memo: '電車' },
      { date: `${MONTH}-10`, kind: 'income', amount: 300000, account: 'bank', category: '給与', memo: '11月分' },
      { date: `${MONTH}-11`, kind: 'transfer', amount: 20000, account: 'bank', to_account: 'wallet', memo: 'おろした' },
    ];
    for (const slip of slips) check((await call('POST', '/slips', slip)).status === 201, `slip ${slip.memo}`);
    let failing = false;
    if (routes.has('/recurrences')) {
      // A recurrence that cannot post (more than the wallet holds): its last_error is shown
      const made = await call('POST', '/recurrences', { slip: { kind: 'expense', amount: 9000000, account: 'wallet', category: '住居費', memo: '払えない' }, rule: { freq: 'monthly', start: `${MONTH}-01` } });
      check(made.status === 201, `recurrence: ${made.status}`);
      const ran = await call('POST', `/recurrences/run?until=${MONTH}-05`);
      check(ran.status === 200, `run: ${ran.status}`);
      failing = true;
    }
    await openAs(page, owner);
    const memos = () => page.locator('#slip-rows tr td.memo').allInnerTexts().then((t) => t.sort().join('|'));
    await until('the month listed', memos, ['11月分', 'おろした', 'スーパー 特売', '電車'].sort().join('|'));

    // Filters over the month: memo words, kind, account (either side of a transfer), category
    await page.fill('#filter-text', 'スーパー');
    await until('memo search', memos, 'スーパー 特売');
    check((await text(page, '#slip-caption')).includes('4 件中、条件に合う 1 件'), 'the caption says how many match');
    await page.fill('#filter-text', '');
    await page.selectOption('#filter-kind', 'income');
    await until('income only', memos, '11月分');
    await page.selectOption('#filter-kind', '');
    await page.selectOption('#filter-account', 'wallet');
    await until('the wallet\'s slips', memos, ['おろした', 'スーパー 特売', '電車'].sort().join('|'));
    await page.selectOption('#filter-category', '交通費');
    await until('wallet and 交通費', memos, '電車');
    await page.fill('#filter-text', 'ない言葉');
    await until('nothing matches', () => visible(page, '#slips-filtered-empty'), true);
    await page.fill('#filter-text', '');
    await page.selectOption('#filter-category', '');
    await page.selectOption('#filter-account', '');
    await until('all again', () => page.locator('#slip-rows tr').count(), 4);

    // The year's trends (GET /reports/yearly)
    check(routes.has('/reports/yearly'), 'the API declares /reports/yearly');
    await until('trends panel', () => visible(page, '#trends-panel'), true);
    const month = (m, col) => page.locator(`#trends-table tr[data-month="${m}"] td`).nth(col).textContent();
    await until('November income', () => month('2026-11', 0), '￥300,000');
    check((await month('2026-10', 1)) === '￥5,000', 'October\'s spending');
    check((await page.locator('#trends-chart svg > title').textContent()).includes('11月 収入 ￥300,000 支出 ￥1,840'), 'the chart states its numbers');

    // An account's balance history over the month (GET /accounts/{id}/history)
    await page.locator('#balance-rows tr[data-account="wallet"] button.history').click();
    await until('history shown', () => visible(page, '#history'), true);
    check((await text(page, '#history-title')).startsWith('財布の残高の推移'), 'named for the account');
    const points = await page.locator('#history-chart polyline').getAttribute('points');
    check(points.split(' ').length === 30, `one point a day: ${points.split(' ').length}`);
    check((await page.locator('#history-chart svg > title').textContent()).includes('最低 ￥93,160'), 'the lowest balance in the title');
    await page.click('#history-chart ~ details summary');
    const historyRows = await page.locator('#history-table tbody tr').allInnerTexts();
    check(historyRows.length === 3 && historyRows[2].includes('￥113,160'), `history table: ${JSON.stringify(historyRows)}`);

    // Recurring slips: listed with last_error; a new one previews its next dates (holidays shifted)
    if (routes.has('/recurrences')) {
      await until('recurrences panel', () => visible(page, '#recurrences-panel'), true);
      check(failing && (await text(page, '#recurrence-rows .recurrence-error')).includes('記帳できませんでした'), 'last_error shown');
      await page.click('#rec-details summary');
      await page.fill('#rec-amount', '80,000');
      await page.selectOption('#rec-account', 'bank');
      await page.fill('#rec-category', '住居費');
      await page.fill('#rec-memo', '家賃');
      await page.selectOption('#rec-freq', 'monthly');
      await page.fill('#rec-start', '2026-12-27');
      await page.selectOption('#rec-shift', 'next_business_day');
      await page.click('#rec-submit');
      await until('preview', () => visible(page, '#rec-preview'), true);
      const first = await page.locator('#rec-preview-dates li').first().innerText();
      check(first.startsWith('2026年12月28日(月)') && first.includes('12/27(日)が休日のため'), `first date: ${first}`);
      await until('listed', () => page.locator('#recurrence-rows tr').count(), 2);
      check((await text(page, '#recurrence-rows')).includes('家賃'), 'the new recurrence listed');

      // The accounts answering after the recurring slips: the table names them all the same, once they arrive
      let release;
      const released = new Promise((resolve) => {
        release = resolve;
      });
      await page.route(/\/accounts$/, async (route) => {
        await released;
        await route.fallback();
      });
      await page.reload();
      await until('recurrences drawn before the accounts came', () => page.locator('#recurrence-rows tr').count(), 2);
      const accountsOf = () => page.locator('#recurrence-rows small.account').allInnerTexts().then((t) => t.sort().join('|'));
      check((await accountsOf()) === 'bank|wallet', `before the accounts: ${await accountsOf()}`);
      release();
      await until('accounts named in the recurrences', accountsOf, '財布|銀行');
      await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
      await page.unroute(/\/accounts$/);
      // A date, an account type never break inside a word, at 1280 or 390 px
      for (const [width, height] of [[1280, 900], [390, 844]]) {
        await page.setViewportSize({ width, height });
        for (const selector of ['#recurrence-rows td.next time', '#recurrence-rows td.rule time', '#balance-rows tr[data-account="suica"] small']) {
          const lines = await linesOf(page.locator(selector));
          check(lines.length > 0 && lines.every((n) => n === 1), `${selector} on one line at ${width}px: ${lines}`);
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.locator('#balance-rows tr[data-account="wallet"] button.history').click(); // shown again after the reload
      await until('history shown again', () => visible(page, '#history'), true);
    }
    await fitsBothWidths(page, '12-filters-trends-history');
    // Every form and table of the page opened (folded ones too, and the connection popover): every
    // view passes axe-core at both widths, and the keyboard reaches every control with a visible focus
    // (one view at a time: each tab in turn)
    let controls = 0;
    const views = await page.locator('#views-nav a').evaluateAll((links) => links.map((a) => a.dataset.route));
    check(views.length >= 7, `views: ${views}`);
    for (const view of views) {
      await openRoute(page, view);
      await page.evaluate(() => {
        for (const details of document.querySelectorAll('details')) details.open = true;
      });
      await fitsBothWidths(page, `22-everything-open-${view}`);
      controls += await keyboardReachesEverything(page, `everything open in #/${view}`);
    }
    check(controls >= 60, `controls checked from the keyboard: ${controls}`);
    await page.evaluate(() => {
      for (const details of document.querySelectorAll('details')) details.open = false;
    });
    await openRoute(page, 'slips');
    // In light and dark mode alike, text keeps its contrast (WCAG AA, 4.5:1) against the panels
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      const contrast = await page.evaluate(() => {
        const rgb = (c) => c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
        const lum = (c) => {
          const [r, g, b] = rgb(c).map((v) => {
            const x = v / 255;
            return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
        const panel = getComputedStyle(document.querySelector('.panel')).backgroundColor;
        const worst = {};
        for (const selector of ['#slip-rows td.memo', '#trends-title', 'label[for="filter-text"]', '#recurrence-rows .recurrence-error', 'td.expense', 'td.income', 'small', '#household-text', '#accept-help', 'label[for="ledger"]', '#roles-help']) {
          const node = document.querySelector(selector);
          if (node) worst[selector] = Math.round(ratio(getComputedStyle(node).color, panel) * 10) / 10;
        }
        return worst;
      });
      check(Object.keys(contrast).length >= 5, `elements checked: ${JSON.stringify(contrast)}`);
      check(Object.values(contrast).every((r) => r >= 4.5), `${colorScheme} contrast below 4.5: ${JSON.stringify(contrast)}`);
      await accessible(page, `13-${colorScheme}`); // axe-core's contrast rules in either scheme too
      await shot(page, `13-${colorScheme}`);
    }
    await page.close();
  });

  await step('内訳を分ける: one receipt across categories, what is left shown as it is typed, edited whole', async () => {
    const page = await openPage(context);
    await openAs(page, `${args.user}-split`);
    if (!(await page.locator('#account-details').evaluate((d) => d.open))) await page.click('#account-details summary');
    await page.fill('#account-id', 'cash');
    await page.fill('#account-name', '財布');
    await page.fill('#account-opening', '10000');
    await page.click('#account-submit');
    await until('the wallet', () => balance(page, 'cash', 'current'), '￥10,000');
    await page.fill('#slip-date', `${MONTH}-14`);
    await page.fill('#slip-amount', '3000');
    await page.fill('#slip-category', '食費');
    await page.click('#slip-split');
    await page.fill('#slip-line-rows li:nth-child(1) .line-amount', '1800');
    await page.fill('#slip-line-rows li:nth-child(2) .line-category', '日用品');
    await until('what is left', () => text(page, '#slip-lines-left'), '残り ￥1,200');
    await page.fill('#slip-line-rows li:nth-child(2) .line-amount', '1200');
    await until('it adds up', () => text(page, '#slip-lines-left'), '合計は金額と一致しています');
    await fitsBothWidths(page, '21-split-form');
    await page.click('#slip-submit');
    await until('the split listed', () => text(page, '#slip-rows tr td.category'), '分割: 食費 ￥1,800・日用品 ￥1,200');
    await until('cash moved once', () => balance(page, 'cash', 'current'), '￥7,000');
    // Edited whole: lines that do not add up are refused in the page, in words
    await page.click('#slip-rows tr button.edit');
    await until('editing the split', () => page.locator('#slip-line-rows li').count(), 2);
    await page.fill('#slip-line-rows li:nth-child(2) .line-amount', '1000');
    await page.click('#slip-submit');
    await until('refused in the page', () => text(page, '#error'), '内訳の合計が金額と一致しません（残り ￥200）');
    await page.fill('#slip-amount', '2800');
    await page.click('#slip-submit');
    await until('saved', () => text(page, '#slip-rows tr td.category'), '分割: 食費 ￥1,800・日用品 ￥1,000');
    await until('cash follows', () => balance(page, 'cash', 'current'), '￥7,200');
    await fitsBothWidths(page, '21-split-list');
    // Given a line with a subcategory (set through the API: the form has no field for it)
    const auth = { ...(await pool.auth(`${args.user}-split`)), 'Content-Type': 'application/json' };
    const call = (method, path, body, extra = {}) =>
      fetch(`${BASE}${path}`, { method, headers: { ...auth, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
    const current = async () => (await (await call('GET', '/slips')).json()).items[0];
    const made = await current();
    const withSub = [{ amount: 1800, category: '食費', subcategory: '食料品' }, { amount: 1000, category: '日用品' }];
    const set = await call('PATCH', `/slips/${made.date}/${made.id}`, { lines: withSub }, { 'If-Match': `"${made.version}"` });
    check(set.status === 200, `subcategory set: ${set.status}`);
    await openAs(page, `${args.user}-split`);
    // When only a line's memo is edited, then only that changes: the subcategory stays, the notice names the split
    await page.click('#slip-rows tr button.edit');
    await until('editing the split again', () => page.locator('#slip-line-rows li').count(), 2);
    await page.fill('#slip-line-rows li:nth-child(1) .line-memo', '特売');
    await page.click('#slip-submit');
    await until('saved, in words', () => text(page, '#status').then((t) => t.includes('分割（食費・日用品） ￥2,800') || t), true);
    let lines = (await current()).lines;
    check(lines[0].subcategory === '食料品' && lines[0].memo === '特売', `line memo edited: ${JSON.stringify(lines)}`);
    // When only the slip's memo is edited, then its lines are not sent at all: the subcategory stays
    await page.click('#slip-rows tr button.edit');
    await until('editing the memo', () => page.locator('#slip-line-rows li').count(), 2);
    await page.fill('#slip-memo', 'ドラッグストア');
    await page.click('#slip-submit');
    await until('memo saved', () => current().then((s) => s.memo), 'ドラッグストア');
    lines = (await current()).lines;
    check(lines[0].subcategory === '食料品' && lines[0].memo === '特売', `slip memo edited: ${JSON.stringify(lines)}`);
    check(!(await text(page, '#status')).includes('null'), `notice: ${await text(page, '#status')}`);
    await page.close();
  });

  await step('a household shares a ledger: create, invite an editor (link) and a viewer (token), roles, a viewer sees no write controls, two members editing one slip see the conflict panel, leave', async () => {
    // Three people of the pool, each signed in in a browser profile of their own (their own
    // localStorage: who they are, the ledger chosen); the API and the page name them by their `sub`
    const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: LAUNCH_FLAGS });
    extraBrowsers.push(browser);
    const person = async (name) => {
      const who = `${args.user}-${name}`;
      const storageState = await pool.storageState(who);
      const context = await browser.newContext({ locale: 'ja-JP', timezoneId: 'Asia/Tokyo', viewport: { width: 1280, height: 900 }, storageState });
      const page = await openPage(context);
      check((await text(page, '#who')) === pool.emailOf(who), `${name}'s page is signed in as ${who}`);
      return { user: await pool.subOf(who), page };
    };
    const hanako = await person('hanako');
    const taro = await person('taro');
    const jiro = await person('jiro');
    const h = hanako.page;
    const t = taro.page;
    const j = jiro.page;
    const options = (page) => page.locator('#ledger option').allInnerTexts();
    const members = (page) => page.locator('#member-rows tr').evaluateAll((rows) => rows.map((r) => `${r.dataset.user}:${r.querySelector('td.role').textContent}`).sort());
    const ok = (page, expected) => until('status', () => text(page, '#status').then((s) => s.includes(expected) || s), true);

    // Hanako starts with her personal ledger only, and creates the household's
    check(JSON.stringify(await options(h)) === JSON.stringify(['自分の家計簿（個人）']), `ledgers: ${await options(h)}`);
    check(!(await visible(h, '#members')), 'a personal ledger lists no members');
    await h.click('#ledger-create-details summary');
    await h.fill('#ledger-name', '山田家');
    await h.click('#ledger-create-submit');
    await ok(h, '共有の家計簿「山田家」を作りました');
    check(JSON.stringify(await options(h)) === JSON.stringify(['自分の家計簿（個人）', '山田家（オーナー）']), `ledgers: ${await options(h)}`);
    const ledger = await h.inputValue('#ledger');
    check(/^[0-9A-Z]{26}$/.test(ledger), `the shared ledger is chosen: ${ledger}`);
    await until('hanako the only member', () => members(h), [`${hanako.user}:オーナー`]);
    check((await text(h, '#ledger-role')) === 'あなたはオーナー', 'the header says her role');
    await fitsBothWidths(h, '14-ledger-created');

    // She invites Taro as an editor: a link to pass on
    await h.selectOption('#invite-role', 'editor');
    await h.click('#invite-submit');
    await until('invitation shown', () => visible(h, '#invite-result'), true);
    const link = await h.inputValue('#invite-link');
    const token = await h.inputValue('#invite-token');
    check(/^[A-Za-z0-9_-]{32}$/.test(token) && link === `${BASE}/#invite=${token}`, `link: ${link}`);
    check((await text(h, '#invite-text')).includes('編集者として「山田家」に招待する'), await text(h, '#invite-text'));
    await fitsBothWidths(h, '15-invited');

    // Taro opens the link: the token is offered, and joining is his choice
    await t.goto(link);
    await t.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    check((await t.inputValue('#accept-token')) === token, 'the token from the link is in the form');
    check((await text(t, '#status')).includes('招待があります'), 'he is told about it');
    check(await t.evaluate(() => document.activeElement?.id === 'accept-submit'), 'the join button has the focus');
    check((await t.inputValue('#ledger')) === 'me', 'nothing joined before he says so');
    await t.keyboard.press('Enter');
    await ok(t, '「山田家」に編集者として参加しました');
    check((await t.inputValue('#ledger')) === ledger, 'his page now shows the shared ledger');
    check(JSON.stringify(await options(t)) === JSON.stringify(['自分の家計簿（個人）', '山田家（編集者）']), `taro's ledgers: ${await options(t)}`);
    await until('two members seen by taro', () => members(t), [`${hanako.user}:オーナー`, `${taro.user}:編集者`].sort());
    check(!(await visible(t, '#invite-form')) && !(await t.locator('#member-rows select').count()), 'an editor manages no members');

    // Jiro is invited as a viewer and pastes the bare token
    await h.bringToFront();
    await h.selectOption('#invite-role', 'viewer');
    await h.click('#invite-submit');
    await until('a second invitation', () => h.inputValue('#invite-token').then((v) => v !== token && v.length === 32), true);
    const viewerToken = await h.inputValue('#invite-token');
    await j.bringToFront();
    await j.fill('#accept-token', viewerToken);
    await j.click('#accept-submit');
    await ok(j, '「山田家」に閲覧者として参加しました');
    // The token is spent: pasting it again is refused with the API's own words (410 gone)
    await j.fill('#accept-token', ` ${viewerToken} `);
    await j.click('#accept-submit');
    await until('gone shown', () => visible(j, '#error'), true);
    const gone = await text(j, '#error');
    check(gone.length > 0 && !gone.startsWith('エラー') && !/^[A-Za-z]/.test(gone), `the API's detail, in Japanese: ${gone}`);
    // A paste that is no token is caught before anything is sent
    await j.fill('#accept-token', 'https://example.com/#invite=short');
    await j.click('#accept-submit');
    await until('bad token', () => text(j, '#error'), '招待のリンクかトークン（英数字 32 文字）を貼り付けてください');

    // Slips of the shared ledger (its routes under /ledgers/{ledger}/...)
    const shared = routes.has('/ledgers/{ledger}/slips');
    if (shared) {
      await h.bringToFront();
      if (!(await h.locator('#account-details').evaluate((d) => d.open))) await h.click('#account-details summary');
      await h.fill('#account-id', 'wallet');
      await h.fill('#account-name', '家の財布');
      await h.fill('#account-opening', '30000');
      await h.click('#account-submit');
      await until('the shared wallet', () => balance(h, 'wallet', 'current'), '￥30,000');
      await addSlip(h, { date: `${MONTH}-07`, amount: '2400', category: '食費', memo: '八百屋' });
      await until('hanako\'s slip listed', () => text(h, '#slip-rows tr td.author'), `${hanako.user}（あなた）`);
      // Taro sees it, with who wrote it; he adds one of his own
      await t.bringToFront();
      await t.selectOption('#ledger', 'me');
      await t.selectOption('#ledger', ledger); // switching reloads every panel from that ledger
      await until('taro sees the slip', () => text(t, '#slip-rows tr td.author'), hanako.user);
      await addSlip(t, { date: `${MONTH}-08`, amount: '800', category: '交通費', memo: 'バス' });
      await until('two slips for taro', () => t.locator('#slip-rows tr').count(), 2);
      // Hanako's page follows the journal: Taro's slip appears there without a reload, with a notice
      await until('hanako sees taro\'s slip without a reload', () => h.locator('#slip-rows tr').count(), 2);
      await until('the notice of taro\'s slip', () => text(h, '#journal-notice').then((x) => x.startsWith(`${taro.user} さんが伝票を追加しました（交通費`)), true);
      // A slip's 履歴: who did what, when
      await h.locator('#slip-rows tr', { hasText: 'バス' }).locator('button.history').click();
      await until('the history dialog', () => visible(h, '#slip-history-dialog'), true);
      check((await text(h, '#slip-history-rows')).includes(`${taro.user} — 追加`), await text(h, '#slip-history-rows'));
      await accessible(h, '17-slip-history');
      await h.click('#slip-history-close');
      // 元に戻す: a slip recorded by mistake is taken back from 最近の変更
      await addSlip(h, { date: `${MONTH}-09`, amount: '100', category: '雑費', memo: 'まちがい' });
      await until('three slips', () => h.locator('#slip-rows tr').count(), 3);
      await h.locator('#journal-rows li').first().locator('button.undo').click();
      await until('the mistake undone', () => h.locator('#slip-rows tr').count(), 2);
      await until('undone in the list', () => text(h, '#journal-rows li:nth-child(2) .undone'), '元に戻し済み');
      await fitsBothWidths(h, '17-journal');
      // Webhook (owners): one added shows its secret once, its deliveries, then it is removed
      await h.fill('#webhook-url', 'https://93.184.215.14/hooks/kakeibo');
      await h.fill('#webhook-description', '家族のダッシュボード');
      await h.click('#webhook-submit');
      await until('the secret shown once', () => text(h, '#webhook-secret').then((x) => x.startsWith('whsec_')), true);
      await until('one webhook', () => h.locator('#webhook-rows > li').count(), 1);
      await h.locator('#webhook-rows > li button.deliveries').click();
      await until('its deliveries', () => text(h, '#webhook-rows .deliveries-list'), 'まだ配信はありません');
      await fitsBothWidths(h, '17-webhooks');
      await h.locator('#webhook-rows > li button.danger').click();
      await until('no webhook', () => h.locator('#webhook-rows > li').count(), 0);
      check(!(await visible(t, '#webhooks-panel')), 'an editor is offered no webhooks');
      await t.bringToFront();
      await until('taro follows the undo too', () => t.locator('#slip-rows tr').count(), 2);
      // The member filter asks the API for one member's slips (?by=)
      await t.selectOption('#filter-by', taro.user);
      await until('only taro\'s slip', () => t.locator('#slip-rows tr td.memo').allInnerTexts(), ['バス']);
      check((await text(t, '#slip-caption')).includes(`記入者: ${taro.user}（あなた）`), await text(t, '#slip-caption'));
      // The export follows the ledger and the member chosen
      const [download] = await Promise.all([t.waitForEvent('download', { timeout: WAIT }), t.click('#export-csv')]);
      const csv = (await new Response(await download.createReadStream()).text()).trim().split(/\r?\n/);
      check(csv.length === 2 && csv[0].startsWith('date,kind,amount,account') && csv[1].includes(',バス,'), `csv: ${csv}`);
      await t.selectOption('#filter-by', '');
      await until('both again', () => t.locator('#slip-rows tr').count(), 2);
      await fitsBothWidths(t, '16-shared-slips');

      // Two members edit the same slip: Hanako opens it, Taro saves first, Hanako's save shows the conflict
      await h.bringToFront();
      await h.click('#month-next');
      await h.click('#month-prev'); // her list reloaded: Taro's slip is there too
      await until('hanako sees both', () => h.locator('#slip-rows tr').count(), 2);
      await h.bringToFront();
      await row(h, '八百屋').locator('button.edit').click();
      await until('hanako editing', () => text(h, '#slip-form-title').then((x) => x.startsWith('伝票を編集')), true);
      await t.bringToFront();
      await row(t, '八百屋').locator('button.edit').click();
      await until('taro editing', () => text(t, '#slip-form-title').then((x) => x.startsWith('伝票を編集')), true);
      await t.fill('#slip-amount', '2600');
      await t.click('#slip-submit');
      await until('taro saved', () => text(t, '#status').then((x) => x.startsWith('保存しました')), true);
      // Who wrote it, and who changed it last
      await until('created by hanako, changed by taro', () => text(t, '#slip-rows tr[data-date="2026-11-07"] td.author'), `${hanako.user}（更新: ${taro.user}（あなた））`);
      await h.bringToFront();
      await h.fill('#slip-memo', '八百屋と魚屋');
      await h.click('#slip-submit');
      await until('conflict panel for hanako', () => visible(h, '#conflict'), true);
      await until('amount row', () => conflictRow(h, 'amount'), ['￥2,400', '￥2,600', '（変更なし）']);
      await until('memo row', () => conflictRow(h, 'memo'), ['八百屋', '八百屋', '八百屋と魚屋']);
      await fitsBothWidths(h, '17-shared-conflict');
      await h.click('#conflict-reapply');
      await h.click('#slip-submit');
      await until('re-applied', () => text(h, '#slip-rows tr[data-date="2026-11-07"] td.memo'), '八百屋と魚屋');
      check((await text(h, '#slip-rows tr[data-date="2026-11-07"] td.amount')) === '-￥2,600', 'taro\'s amount kept');
      check((await text(h, '#slip-rows tr[data-date="2026-11-07"] td.author')) === `${hanako.user}（あなた）`, 'she wrote it and changed it last: one name');
    }

    // The viewer's page: the ledger's data, and no write control anywhere
    await j.bringToFront();
    await j.reload();
    await j.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    check((await j.inputValue('#ledger')) === ledger, 'the viewer\'s page remembers the ledger chosen');
    check((await text(j, '#ledger-role')) === 'あなたは閲覧者（見るだけ）', await text(j, '#ledger-role'));
    if (shared) await until('the viewer reads the slips', () => j.locator('#slip-rows tr').count(), 2);
    else check((await text(j, '#error')).includes('まだ対応していません'), `an API without the ledger's routes says so: ${await text(j, '#error')}`);
    // (every view in turn: what any of them offers)
    const writable = { forms: [], buttons: [] };
    for (const view of await j.locator('#views-nav a').evaluateAll((links) => links.map((a) => a.dataset.route))) {
      await openRoute(j, view);
      const seen = await j.evaluate(() => {
        const shown = (n) => n.checkVisibility(); // (false inside a closed <details> too)
        const forms = [...document.querySelectorAll('main form')].filter(shown).map((f) => f.id);
        const buttons = [...document.querySelectorAll('main button')].filter(shown).map((b) => b.id || b.className || b.textContent);
        return { forms, buttons };
      });
      writable.forms = [...new Set([...writable.forms, ...seen.forms])].sort();
      writable.buttons = [...new Set([...writable.buttons, ...seen.buttons])].sort();
    }
    await openRoute(j, 'slips');
    check(JSON.stringify(writable.forms) === JSON.stringify(['accept-form', 'asof-form', 'filter-form', 'search-form', 'token-form']), `forms a viewer sees: ${writable.forms}`);
    check(writable.buttons.every((b) => ['accept-submit', 'history small', 'history-close', 'history', 'ledger-leave', 'export-csv', 'tax-download', 'tax-download-xlsx', '表示', 'search-submit', 'token-submit'].includes(b)), `buttons a viewer sees: ${writable.buttons}`);
    if (shared) check(writable.buttons.includes('history small'), 'the viewer still reads balance histories');
    if (shared) check(writable.buttons.includes('history'), 'the viewer still reads a slip\'s 履歴');
    await fitsBothWidths(j, '18-viewer');

    // The owner manages roles with If-Match: Taro becomes a viewer; his page follows on its next load
    await h.bringToFront();
    await h.click('#month-next');
    await h.click('#month-prev'); // every panel reloads, the members too
    await h.waitForSelector('main:not([aria-busy])');
    await until('three members', () => members(h), [`${hanako.user}:オーナー`, `${jiro.user}:閲覧者`, `${taro.user}:編集者`].sort());
    await h.locator(`#member-rows tr[data-user="${taro.user}"] select`).selectOption('viewer');
    await h.locator(`#member-rows tr[data-user="${taro.user}"] button.member-save`).click();
    await ok(h, `${taro.user}を閲覧者にしました`);
    await until('taro is a viewer', () => members(h), [`${hanako.user}:オーナー`, `${jiro.user}:閲覧者`, `${taro.user}:閲覧者`].sort());
    // The last owner cannot demote herself: the API's 409 is shown, nothing changes
    await h.locator(`#member-rows tr[data-user="${hanako.user}"] select`).selectOption('editor');
    await h.locator(`#member-rows tr[data-user="${hanako.user}"] button.member-save`).click();
    await until('last owner refused', () => visible(h, '#error'), true);
    check(!(await text(h, '#error')).startsWith('エラー'), `the API's detail: ${await text(h, '#error')}`);
    check((await text(h, `#member-rows tr[data-user="${hanako.user}"] td.role`)) === 'オーナー', 'still owner');
    check((await h.locator(`#member-rows tr[data-user="${hanako.user}"] select`).inputValue()) === 'owner', 'the refused choice is not left on screen');
    // She removes Jiro
    await h.locator(`#member-rows tr[data-user="${jiro.user}"] button.member-remove`).click();
    await ok(h, `${jiro.user}を外しました`);
    await until('jiro gone', () => members(h), [`${hanako.user}:オーナー`, `${taro.user}:閲覧者`].sort());
    await fitsBothWidths(h, '19-members');
    // Jiro's open page, at its next load, finds the ledger gone (404) and goes back to his own
    await j.bringToFront();
    await j.click('#month-next');
    await until('jiro told', () => text(j, '#error'), 'この共有の家計簿のメンバーではなくなりました。自分の家計簿を表示しています');
    check((await j.inputValue('#ledger')) === 'me' && (await options(j)).length === 1, 'jiro sees his own ledger only');
    check((await j.locator('#slip-rows tr').count()) === 0, 'nothing of the shared ledger left on his screen');
    await fitsBothWidths(j, '20-removed');
    await j.reload();
    await j.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    check((await j.inputValue('#ledger')) === 'me', 'and it stays so');
    // Taro's open page follows the ledger's journal: Hanako's change of his role reaches it without a
    // reload (on an API without a journal, his next load reads his role again)
    await t.bringToFront();
    if (!shared) await t.click('#month-next');
    await until('taro a viewer now', () => text(t, '#ledger-role'), 'あなたは閲覧者（見るだけ）');
    check(!(await visible(t, '#slip-form')), 'taro, a viewer now, has no slip form');
    await t.click('#ledger-leave');
    await ok(t, '「山田家」から抜けました');
    check((await t.inputValue('#ledger')) === 'me', 'his page is back on his own ledger');
    for (const page of [h, t, j]) await page.context().close();
    await browser.close();
  });

  if (routes.has('/ledgers/{ledger}/settlement')) await step('立替と精算: who paid is chosen on the slip form (equal or custom shares), the 精算 view suggests the transfer, a settlement recorded from a stale view is refused (412) and shown', async () => {
    const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: LAUNCH_FLAGS });
    extraBrowsers.push(browser);
    // Two people of the pool, named on the page and by the API by their `sub`
    const names = { [await pool.subOf(`${args.user}-pay-hanako`)]: `${args.user}-pay-hanako`, [await pool.subOf(`${args.user}-pay-taro`)]: `${args.user}-pay-taro` };
    const api = async (user, method, path, body, headers = {}) => {
      const response = await fetch(`${BASE}${path}`, {
        method,
        headers: { ...(await pool.auth(names[user])), 'Content-Type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, etag: response.headers.get('etag'), data: response.status === 204 ? null : await response.json() };
    };
    // Given a household of two (set up through the API), each with the page open on it
    const hanako = await pool.subOf(`${args.user}-pay-hanako`);
    const taro = await pool.subOf(`${args.user}-pay-taro`);
    const made = await api(hanako, 'POST', '/ledgers', { name: '立替の家' });
    check(made.status === 201, `ledger: ${made.status}`);
    const base = `/ledgers/${made.data.id}`;
    check((await api(hanako, 'POST', `${base}/accounts`, { id: 'cash', name: '財布', type: 'cash', opening_balance: 50000 })).status === 201, 'account');
    const invited = await api(hanako, 'POST', `${base}/invitations`, { role: 'editor' });
    check((await api(taro, 'POST', `/invitations/${invited.data.token}/accept`)).status === 200, 'taro joins');
    const person = async (user) => {
      const storageState = await pool.storageState(names[user]);
      const context = await browser.newContext({ locale: 'ja-JP', timezoneId: 'Asia/Tokyo', viewport: { width: 1280, height: 900 }, storageState });
      await context.addInitScript((l) => localStorage.setItem('kakeibo.ledger', l), made.data.id);
      const page = await openPage(context);
      if ((await page.inputValue('#ledger')) !== made.data.id) {
        await page.selectOption('#ledger', made.data.id);
      }
      await until(`${user} sees the household`, () => page.inputValue('#ledger'), made.data.id);
      return page;
    };
    const h = await person(hanako);
    const t = await person(taro);
    const status = (page, expected) => until('status', () => text(page, '#status').then((s) => s.includes(expected) || s), true);

    // When Hanako records a dinner she paid from her own pocket, shared equally
    await h.bringToFront();
    await h.fill('#slip-date', `${MONTH}-05`);
    await h.selectOption('#slip-kind', 'expense');
    await h.fill('#slip-amount', '3000');
    await h.fill('#slip-category', '外食');
    await h.fill('#slip-memo', '家族で夕食');
    await until('立替 offered on an expense of a shared ledger', () => visible(h, '#slip-payer'), true);
    await h.selectOption('#slip-paid-by', hanako);
    // (the shares listed by the members' ids, their `sub`s, as the page orders them)
    const shares = [hanako, taro].sort().map((who) => `${who === hanako ? `${hanako}（あなた）` : taro} ￥1,500`);
    await until('equal split previewed', () => text(h, '#slip-shares-left'), `均等: ${shares.join('・')}`);
    await h.selectOption('#slip-kind', 'transfer');
    check(!(await visible(h, '#slip-payer')), 'a transfer offers no 立替');
    await h.selectOption('#slip-kind', 'expense');
    await h.click('#slip-submit');
    await status(h, '追加しました');
    await until('the slip says who paid', () => text(h, '#slip-rows tr:has-text("家族で夕食") td.account'), `財布（${hanako}（あなた）の立替）`);
    // Then the 精算 view shows who is owed and who owes, and the one transfer that settles it
    const nets = (page) => page.locator('#settlement-rows tr').evaluateAll((rows) => rows.map((r) => `${r.dataset.user}:${r.querySelector('td.net').textContent}`).sort());
    await until('hanako is owed 1,500', () => nets(h), [`${hanako}:￥1,500 受け取る`, `${taro}:￥1,500 払う`].sort());
    await until('one transfer suggested', () => h.locator('#settlement-suggested li span').allInnerTexts(), [`${taro} → ${hanako}（あなた） ￥1,500`]);
    await fitsBothWidths(h, '40-settlement');

    // And a custom split: Taro's own purchase, mostly his
    await t.bringToFront();
    await t.click('#month-next');
    await t.click('#month-prev');
    await t.waitForSelector('main:not([aria-busy])');
    await t.fill('#slip-date', `${MONTH}-06`);
    await t.fill('#slip-amount', '1000');
    await t.fill('#slip-category', '日用品');
    await t.fill('#slip-memo', '洗剤');
    await t.selectOption('#slip-paid-by', taro);
    await t.selectOption('#slip-shares-mode', 'custom');
    await t.fill(`#share-${taro}`, '800');
    await until('what is left shown as it is typed', () => text(t, '#slip-shares-left'), '負担の残り ￥200');
    await t.click('#slip-submit');
    await until('a short split is refused before sending', () => text(t, '#error'), '負担の合計が金額と一致しません（残り ￥200）');
    await t.fill(`#share-${hanako}`, '２００');
    await until('the shares add up', () => text(t, '#slip-shares-left'), '負担の合計は金額と一致しています');
    await fitsBothWidths(t, '41-payer-custom');
    await t.click('#slip-submit');
    await status(t, '追加しました');
    await until('nets follow', () => nets(t), [`${hanako}:￥1,300 受け取る`, `${taro}:￥1,300 払う`].sort());
    // Editing the slip brings its payer and shares back into the form
    await t.locator('#slip-rows tr:has-text("洗剤") button.edit').click();
    await until('payer in the form', () => t.inputValue('#slip-paid-by'), taro);
    check((await t.inputValue('#slip-shares-mode')) === 'custom' && (await t.inputValue(`#share-${taro}`)) === '800', 'custom shares in the form');
    await t.click('#slip-cancel');

    // When Taro records the suggested payment, but Hanako recorded it a moment before from her own view
    t.removeAllListeners('dialog');
    t.once('dialog', async (dialog) => {
      const now = await api(hanako, 'GET', `${base}/settlement`);
      const first = await api(hanako, 'POST', `${base}/settlements`, { from: taro, to: hanako, amount: 1300 }, { 'If-Match': now.etag });
      check(first.status === 201, `hanako's settlement: ${first.status}`);
      await dialog.accept();
    });
    await t.locator('#settlement-suggested button.settle').click();
    // Then his stale one is refused, he is told why, and the view shows the nets as they are now
    await status(t, 'ほかのメンバーが先に精算や立替を記録しました');
    await until('everyone settled', () => nets(t), [`${hanako}:精算済み`, `${taro}:精算済み`].sort());
    check(await visible(t, '#settlement-done'), 'said to be settled');
    const after = await api(hanako, 'GET', `${base}/settlement`);
    check(after.data.members.every((m) => m.net === 0), `paid once: ${JSON.stringify(after.data.members)}`);
    await fitsBothWidths(t, '42-settled');
    t.on('dialog', (dialog) => dialog.accept());
    for (const page of [h, t]) await page.context().close();
    await browser.close();
  });

  if (routes.has('/accounts/{id}/statements')) await step('カードの請求: billing set in the account editor (a missing bank refused before sending), the next payment and this cycle shown, the payment posted once', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // Given a bank and a card, with a charge two months ago and one this month (dates in Tokyo)
    const owner = `${args.user}-card`;
    const auth = { ...(await pool.auth(owner)), 'Content-Type': 'application/json' };
    const call = (method, path, body) => fetch(`${BASE}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
    const tokyo = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Tokyo' }).format(new Date());
    const monthsAgo = (n) => {
      const index = Number(tokyo.slice(0, 4)) * 12 + Number(tokyo.slice(5, 7)) - 1 - n;
      return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
    };
    const lastDay = (month) => new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
    check((await call('POST', '/accounts', { id: 'bank', name: '銀行', type: 'bank', opening_balance: 100000 })).status === 201, 'bank');
    check((await call('POST', '/accounts', { id: 'visa', name: 'VISA', type: 'credit' })).status === 201, 'card');
    check((await call('POST', '/slips', { date: `${monthsAgo(2)}-10`, kind: 'expense', amount: 3000, account: 'visa', category: '日用品' })).status === 201, 'old charge');
    check((await call('POST', '/slips', { date: `${tokyo.slice(0, 7)}-01`, kind: 'expense', amount: 1200, account: 'visa', category: '食費' })).status === 201, 'charge');
    await openAs(page, owner);
    // When the card's billing is set in the account editor: month-end closing, paid at the end of the month after next
    await page.click('#account-manage-details summary');
    await page.selectOption('#manage-account', 'visa');
    await until('the billing form for a card', () => visible(page, '#billing-form'), true);
    await page.selectOption('#billing-closing', 'last');
    await page.selectOption('#billing-offset', '2');
    await page.selectOption('#billing-payment', 'last');
    await page.selectOption('#billing-shift', 'none');
    // a card paid from nowhere is refused in the page, nothing sent
    await page.click('#billing-submit');
    await until('no bank chosen', () => page.locator('#billing-pay-from').getAttribute('aria-invalid'), 'true');
    check((await (await call('GET', '/accounts/visa')).json()).billing === null, 'nothing sent');
    await page.selectOption('#billing-pay-from', 'bank');
    await page.click('#billing-submit');
    // Then the card's statements show this cycle so far and the next payment: the charge of two months ago
    const card = '#card-list article[data-card="visa"]';
    await until('the card listed', () => visible(page, card), true);
    const due = lastDay(tokyo.slice(0, 7));
    await until('the next payment', () => text(page, `${card} dd.next`).then((t) => t.includes('￥3,000')), true);
    check((await text(page, `${card} dd.open`)).startsWith('￥1,200'), 'this cycle so far');
    const billing = (await (await call('GET', '/accounts/visa')).json()).billing;
    check(billing.closing_day === 'last' && billing.payment_month_offset === 2 && billing.pay_from === 'bank', `billing: ${JSON.stringify(billing)}`);
    await fitsBothWidths(page, '20-cards');
    // And the payment, run twice, is posted once; the page shows the cycle paid
    for (let n = 0; n < 2; n += 1) check((await call('POST', `/jobs/run?until=${due}`)).status === 200, 'job');
    const bank = await (await call('GET', '/accounts/bank')).json();
    check(bank.balance === 97000, `bank after the payment: ${bank.balance}`);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    await until('the cycle paid', () => page.locator(`${card} tr[data-closing="${lastDay(monthsAgo(2))}"]`).getAttribute('data-state'), 'paid');
    await page.close();
  });

  if (routes.has('/receipts')) await step('領収書: a photo attached to a slip at 390 px, uploaded once (chosen again: still one), opened from its thumbnail', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const owner = `${args.user}-receipt`;
    const auth = { ...(await pool.auth(owner)), 'Content-Type': 'application/json' };
    const call = async (method, path, body) => {
      const response = await fetch(`${BASE}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, data: response.status === 204 ? null : await response.json() };
    };
    check((await call('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 5000 })).status === 201, 'wallet');
    await openAs(page, owner);
    await page.setViewportSize({ width: 390, height: 844 });
    // Given a slip being written on a phone
    await page.fill('#slip-amount', '980');
    await page.fill('#slip-category', '外食');
    await page.fill('#slip-memo', 'ラーメン');
    // When a photo is chosen, then the same photo again (a retry after a dropped connection)
    const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(`receipt ${owner}`.repeat(50))]);
    const sha = createHash('sha256').update(photo).digest('hex');
    for (let n = 0; n < 2; n += 1) {
      await page.setInputFiles('#slip-receipt-file', { name: 'receipt.jpg', mimeType: 'image/jpeg', buffer: photo });
      await until('the receipt attached', () => page.locator('#slip-receipts li').count(), 1);
    }
    await until('its thumbnail opens the original', () => page.locator(`#slip-receipts li[data-receipt="${sha}"] a`).count(), 1);
    await fitsBothWidths(page, '50-receipt');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.click('#slip-submit');
    await until('the slip listed', () => row(page, 'ラーメン').count(), 1);
    // Then the slip has the receipt, the receipt knows the slip, and the bytes are stored once
    const slips = (await call('GET', '/slips')).data.items;
    const slip = slips.find((s) => s.memo === 'ラーメン');
    check(JSON.stringify(slip.receipts) === JSON.stringify([sha]), `slip: ${JSON.stringify(slip)}`);
    const receipt = (await call('GET', `/receipts/${sha}`)).data;
    check(receipt.state === 'stored' && JSON.stringify(receipt.slips) === JSON.stringify([slip.id]), `receipt: ${JSON.stringify(receipt)}`);
    const original = await fetch(receipt.download.url);
    check(Buffer.from(await original.arrayBuffer()).equals(photo), 'the original is the photo');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.close();
  });

  if (routes.has('/reports/medical.xlsx')) await step('確定申告: the year\'s medical payments listed, the e-Tax 医療費集計フォーム downloaded as .xlsx (binary, as it is) and as CSV', async () => {
    const page = routed(await context.newPage());
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const owner = `${args.user}-tax`;
    const year = MONTH.slice(0, 4);
    const auth = { ...(await pool.auth(owner)), 'Content-Type': 'application/json' };
    const call = async (method, path, body) => (await fetch(`${BASE}${path}`, { method, headers: auth, body: JSON.stringify(body) })).status;
    // Given a hospital bill, partly reimbursed
    check((await call('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 50000 })) === 201, 'wallet');
    const medical = { patient: 'taro', provider: '中央病院', kind: 'treatment', reimbursed: 1000 };
    check((await call('POST', '/slips', { date: `${MONTH}-05`, kind: 'expense', amount: 12000, account: 'wallet', category: '医療費', medical })) === 201, 'medical slip');
    // When the page shows the year's 確定申告 panel
    await openAs(page, owner);
    await until('the medical row listed', () => page.locator('#tax-medical-rows tr').count(), 1);
    // Then the form downloads as a workbook, its bytes kept (a zip: PK), named for the year
    const [xlsx] = await Promise.all([page.waitForEvent('download', { timeout: WAIT }), page.click('#tax-download-xlsx')]);
    check(xlsx.suggestedFilename() === `医療費集計フォーム-${year}.xlsx`, `file: ${xlsx.suggestedFilename()}`);
    const bytes = Buffer.from(await new Response(await xlsx.createReadStream()).arrayBuffer());
    check(bytes.subarray(0, 2).toString('latin1') === 'PK' && bytes.length > 1000, `an xlsx: ${bytes.subarray(0, 8).toString('hex')}`);
    // And as CSV in the same columns
    const [csv] = await Promise.all([page.waitForEvent('download', { timeout: WAIT }), page.click('#tax-download')]);
    const lines = (await new Response(await csv.createReadStream()).text()).replace(/^\ufeff/, '').trim().split(/\r?\n/);
    check(lines[1] === 'taro,中央病院,該当する,,,,12000,1000,', `csv: ${lines.join(' | ')}`);
    await page.close();
  });

  await step('no uncaught script errors in any tab', async () => {
    check(problems.length === 0, problems.join('; '));
  });
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'kakeibo-e2e-'));
  let context;
  const deadline = setTimeout(() => {
    log({ ok: false, error: `timed out after ${args.timeout}s`, steps });
    process.exit(1);
  }, Number(args.timeout) * 1000);
  let ok = false;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: args.chromium,
      headless: true,
      args: LAUNCH_FLAGS,
      locale: 'ja-JP',
      timezoneId: 'Asia/Tokyo',
      viewport: { width: 1280, height: 900 },
    });
    browserContext = context;
    await run(context);
    ok = true;
  } catch (error) {
    if (!(error instanceof Failed) && !steps.some((s) => !s.ok)) {
      steps.push({ name: 'setup', ok: false, error: String(error?.message ?? error) });
    }
  } finally {
    await context?.close().catch(() => {});
    for (const browser of extraBrowsers) await browser.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
    clearTimeout(deadline);
  }
  log({ ok, user: args.user, people: await pool.known(), steps, screenshots });
  process.exit(ok ? 0 : 1);
}

main();
