// データの書き出し and 自分のデータを削除 in a real browser (Debian's Chromium, headless, driven by
// playwright-core) against the local front: the export is built and offered for download, its
// progress said; deleting one's own data asks for a typed phrase, is refused while the person is the
// only owner of a shared ledger others are in (the page lists it), and once that ledger has another
// owner deletes everything of theirs. axe-core finds nothing serious or critical.
//
//   node tests/web/dataio.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_dataio.py runs it against a fresh front.

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

import { WAIT, openRoute, routed } from './routing.mjs';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    user: { type: 'string', default: `dataio-${Date.now()}` },
    out: { type: 'string', default: 'test-output/web' },
    chromium: { type: 'string', default: process.env.CHROMIUM || '/usr/bin/chromium' },
  },
});
if (!args.url) {
  console.error('usage: node tests/web/dataio.mjs --url http://127.0.0.1:PORT [--user U] [--out DIR]');
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
  await step('the export is built, its progress said, and offered for download', async () => {
    // Given a personal ledger with a wallet and a slip
    check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 5000 })).status === 201, 'account');
    check((await api('POST', '/slips', { date: '2026-11-03', kind: 'expense', amount: 700, account: 'wallet', category: '食費' })).status === 201, 'slip');
    const { context, page } = await openPage({ width: 1280, height: 900 }, '#2026-11');
    await openRoute(page, 'settings'); // the data panel is in the settings view
    await until('the data panel shown', () => page.isVisible('#data-panel'), true);
    // When 書き出す is pressed
    await page.click('#export-start');
    // Then the progress says it was written, and the archive can be downloaded
    await until('the export written', async () => (await page.innerText('#export-progress')).startsWith('書き出しました'), true);
    await until('the download offered', () => page.locator('#export-download a').count(), 1);
    await context.close();
  });

  await step('deleting my data: a typed phrase, refused while I alone own a shared ledger (listed), then done', async () => {
    // Given a household 山田家 the person alone owns, Taro a member of it
    const taro = `${args.user}-taro`;
    const made = await api('POST', '/ledgers', { name: '山田家' });
    check(made.status === 201, `ledger: ${made.status}`);
    const ledger = made.data.id;
    const invited = await api('POST', `/ledgers/${ledger}/invitations`, { role: 'editor' });
    const accepted = await fetch(`${BASE}/invitations/${invited.data.token}/accept`, { method: 'POST', headers: { Authorization: `Bearer ${taro}` } });
    check(accepted.status === 200, `accepted: ${accepted.status}`);
    const { context, page } = await openPage({ width: 390, height: 844 }, '#2026-11');
    await openRoute(page, 'settings'); // deleting one's data is in the settings view
    await until('the form shown with the personal ledger', () => page.isVisible('#me-delete-form'), true);
    // When a wrong phrase is typed, the button stays disabled; the phrase itself enables it
    await page.fill('#me-delete-phrase', '削除');
    check(await page.isDisabled('#me-delete'), 'disabled on a wrong phrase');
    await page.fill('#me-delete-phrase', 'すべて削除');
    await until('enabled on the phrase', () => page.isEnabled('#me-delete'), true);
    await page.click('#me-delete');
    // Then the API refuses, the page lists 山田家, and nothing is deleted
    await until('the blocking ledger listed', async () => (await page.locator('#me-delete-ledgers li').allInnerTexts()).join(), `山田家（${ledger}）`);
    await accessible(page, 'the refused deletion');
    await shot(page, 'me-delete-refused-390');
    check((await api('GET', '/accounts')).data.items.length === 1, 'nothing deleted');
    // When Taro is made an owner too, and the deletion asked again
    const members = (await api('GET', `/ledgers/${ledger}`)).data.members;
    const version = members.find((m) => m.user === taro).version;
    const promoted = await api('PUT', `/ledgers/${ledger}/members/${taro}`, { role: 'owner' }, { 'If-Match': `"${version}"` });
    check(promoted.status === 200, `promoted: ${promoted.status}`);
    await page.click('#me-delete');
    // Then the page says it is done; the person's data is gone and they are in no ledger
    await until('done', async () => (await page.innerText('#me-delete-progress')).startsWith('削除しました'), true);
    check(await page.isHidden('#me-delete-blocked'), 'the refusal is no longer shown');
    check((await api('GET', '/accounts')).data.items.length === 0, 'the wallet is gone');
    check(JSON.stringify((await api('GET', '/ledgers')).data.items.map((l) => l.id)) === '["me"]', 'in no shared ledger');
    check((await api('POST', '/slips', { date: '2026-11-04', kind: 'expense', amount: 1, account: 'wallet' })).status === 404, 'no new slip');
    await shot(page, 'me-deleted-390');
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
