// 自動分類 in a real browser (Debian's Chromium, headless, driven by playwright-core) against the local
// front, at 390 px: 「この店はいつも○○」 from a slip being edited makes a payee rule; the preview says
// how many slips it would change, apply changes them and offers 取り消す, which takes them back; a rule
// suggested by the household's own corrections is made with one tap. axe-core finds nothing serious
// or critical.
//
//   node tests/web/rules.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_rules.py runs it against a fresh front.

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

import { WAIT, openRoute, routed } from './routing.mjs';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    user: { type: 'string', default: `rules-${Date.now()}` },
    out: { type: 'string', default: 'test-output/web' },
    chromium: { type: 'string', default: process.env.CHROMIUM || '/usr/bin/chromium' },
  },
});
if (!args.url) {
  console.error('usage: node tests/web/rules.mjs --url http://127.0.0.1:PORT [--user U] [--out DIR]');
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

const slipsOf = async () => (await api('GET', '/slips?from=2026-11-01&to=2026-11-30')).data.items;
const slipBy = async (date) => (await slipsOf()).find((s) => s.date === date);

try {
  await step('「この店はいつも○○」 from a slip makes a payee rule; preview, apply, undo; a suggestion accepted (390 px)', async () => {
    // Given slips of November: マルエツ filed under 食費 by hand, the same shop as a card prints it
    // left uncategorised, and a drugstore given 日用品 by hand twice (a rule is suggested from them)
    const cash = await api('POST', '/accounts', { id: 'cash', name: '財布', type: 'cash', opening_balance: 50000 });
    check(cash.status === 201, `account: ${cash.status}`);
    const base = { kind: 'expense', amount: 800, account: 'cash' };
    for (const [date, payee, category] of [['2026-11-10', 'マルエツ', '食費'], ['2026-11-11', 'ﾏﾙｴﾂ', null], ['2026-11-12', 'ドラッグストア', '日用品'], ['2026-11-13', 'ドラッグストア', null]]) {
      const made = await api('POST', '/slips', { ...base, date, payee, ...(category ? { category } : {}) });
      check(made.status === 201, `slip: ${made.status}`);
    }
    const drug = await slipBy('2026-11-13');
    const fixed = await api('PATCH', `/slips/2026-11-13/${drug.id}`, { category: '日用品' }, { 'If-Match': '"1"' });
    check(fixed.status === 200, `by hand: ${fixed.status}`);
    const { context, page } = await openPage({ width: 390, height: 844 }, '#2026-11');
    // When the マルエツ slip is opened for editing (in the slips view)
    await openRoute(page, 'slips');
    await until('the slips listed', () => page.locator('#slip-rows button.edit').count(), 4);
    await page.locator('#slip-rows tr[data-date="2026-11-10"] button.edit').click();
    // Then 「マルエツ」はいつも食費 is offered, and tapping it makes a rule on the payee, not the memo
    await until('offered', () => page.innerText('#slip-always'), '「マルエツ」はいつも食費');
    await accessible(page, 'the slip form offering a rule');
    await page.click('#slip-always');
    const listed = async () => (await api('GET', '/rules')).data.items;
    await until('one rule', async () => (await listed()).length, 1);
    const [rule] = await listed();
    check(JSON.stringify(rule.conditions) === JSON.stringify([{ field: 'payee', op: 'is', value: 'マルエツ' }]), `rule: ${JSON.stringify(rule)}`);
    check(JSON.stringify(rule.actions) === JSON.stringify({ category: '食費' }), `actions: ${JSON.stringify(rule.actions)}`);
    // When the rules are previewed on the slips the ledger has (in the settings view)
    await page.click('#slip-cancel');
    await openRoute(page, 'settings');
    await page.click('#rule-preview');
    // Then the count is said (the card's ﾏﾙｴﾂ is マルエツ), the slip listed, nothing written yet
    await until('the preview', () => page.innerText('#rule-preview-result'), '4件のうち1件が変わります');
    await until('the slip listed', () => page.locator('#rule-preview-rows li').count(), 1);
    check((await slipBy('2026-11-11')).category === 'uncategorized', 'the preview wrote nothing');
    await accessible(page, 'the preview');
    // When it is applied
    await page.click('#rule-apply');
    // Then the slip is filed under 食費, and 取り消す is offered
    await until('applied', async () => (await slipBy('2026-11-11')).category, '食費');
    await until('undo offered', () => page.isVisible('#rule-undo'), true);
    await until('said', async () => (await page.innerText('#status')).includes('1件の伝票にルールを適用しました'), true);
    await shot(page, 'rules-390');
    await accessible(page, 'the rules applied, undo offered');
    // When 取り消す is tapped, Then the slip is uncategorised again and undo is no longer offered
    await page.click('#rule-undo');
    await until('undone', async () => (await slipBy('2026-11-11')).category, 'uncategorized');
    await until('undo gone', () => page.isVisible('#rule-undo'), false);
    // When the suggestion from the drugstore slips is accepted
    const suggestion = page.locator('#rule-suggestions li').filter({ hasText: 'ドラッグストア' });
    await until('suggested', () => suggestion.count(), 1);
    await suggestion.locator('button').click();
    // Then it is a rule, and no longer suggested
    await until('two rules', async () => (await listed()).length, 2);
    await until('no suggestion', () => page.locator('#rule-suggestions li').count(), 0);
    await accessible(page, 'the rules view at the end');
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
