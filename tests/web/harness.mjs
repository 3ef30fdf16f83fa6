// What every browser script of tests/web shares: its arguments, one headless Chromium (Debian's,
// driven by playwright-core), named steps that record pass or fail, waiting for what the page shows,
// the API as the test's user, screenshots, axe-core, and the final summary.
//
// Its people are accounts of the front's user pool (people.mjs): the test's user (--user names it)
// and whoever else a script names, each signed up on first use; a page opens signed in as one of them
// (what the page keeps after a sign-in, seeded), and `api` sends the test's user's ID token. So the
// scripts run against a strict front (LOCAL_AUTH=strict) as well as against `make run`'s.
//
//   const { check, step, until, api, accessible, openPage, run } = await harness('rules');
//   await run(async () => {
//     await step('…', async () => { … });
//   }); // closes the browser, prints the summary, exits 0 only if every step passed
//
// Each script prints one JSON line per step and a final JSON summary (with `people`: each name's
// `sub` and email, as the API and the pool know them); tests/api/test_web*.py run them through
// run_page_script.

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { chromium } from 'playwright-core';

import { people } from './people.mjs';
import { WAIT, routed } from './routing.mjs';

export { WAIT };
export const LAUNCH_FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run'];

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js'); // axe-core, from npm (package.json)

export class Failed extends Error {}

/** A check that fails the step it is in with `message`. */
export function check(condition, message) {
  if (!condition) throw new Failed(message);
}

/**
 * Wait until `read()` gives `expected` (compared as JSON), at most `timeout` ms; a read that throws is
 * retried. `explain()`, if given, says what else the page showed when it did not come (for the failure).
 */
export async function until(what, read, expected, timeout = WAIT, explain = null) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await read();
    } catch (error) {
      last = `<${error.message.split('\n')[0]}>`;
    }
    if (JSON.stringify(last) === JSON.stringify(expected)) return last;
    if (Date.now() > deadline) {
      const more = explain ? ` (${await Promise.resolve().then(explain).catch((error) => `<${error.message.split('\n')[0]}>`)})` : '';
      throw new Failed(`${what}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(last)}${more}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The script named `name`'s arguments and browser, and the steps it runs with them. */
export async function harness(name) {
  const { values: args } = parseArgs({
    options: {
      url: { type: 'string' },
      user: { type: 'string', default: `${name}-${Date.now()}` },
      out: { type: 'string', default: 'test-output/web' },
      chromium: { type: 'string', default: process.env.CHROMIUM || '/usr/bin/chromium' },
    },
  });
  if (!args.url) {
    console.error(`usage: node tests/web/${name}.mjs --url http://127.0.0.1:PORT [--user U] [--out DIR]`);
    process.exit(2);
  }
  const BASE = args.url.replace(/\/+$/, '');
  const OUT = resolve(args.out);
  const steps = [];
  const screenshots = [];
  const problems = []; // uncaught page errors: any one fails the run

  const log = (record) => process.stdout.write(`${JSON.stringify(record)}\n`);
  const pool = people(BASE);

  async function step(title, work) {
    try {
      await work();
      steps.push({ name: title, ok: true });
      log({ step: title, ok: true });
    } catch (error) {
      steps.push({ name: title, ok: false, error: String(error?.message ?? error) });
      log({ step: title, ok: false, error: String(error?.stack ?? error) });
    }
  }

  /** The API as the test's user (another person's Authorization in `headers` wins: `await auth(name)`). */
  async function api(method, path, body, headers = {}) {
    const response = await fetch(`${BASE}${path}`, {
      method,
      headers: { ...(await pool.auth(args.user)), 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, data: text ? JSON.parse(text) : null };
  }

  async function shot(page, title) {
    const path = join(OUT, `${title}.png`);
    await page.screenshot({ path, fullPage: true });
    screenshots.push(path);
  }

  /** axe-core on the page as it is: any serious or critical violation fails, with where it was found. */
  async function accessible(page, title) {
    if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE });
    const found = await page.evaluate(async () => {
      const { violations } = await window.axe.run(document, { resultTypes: ['violations'] });
      return violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
    });
    check(found.length === 0, `${title} at ${page.viewportSize().width}px: axe-core finds ${JSON.stringify(found)}`);
  }

  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: LAUNCH_FLAGS });

  /**
   * A new browser context signed in as `user` (the test's user unless given): the page's session as a
   * sign-in leaves it; `user` null: nobody signed in.
   */
  async function signedInContext(options = {}, user = args.user) {
    const signedIn = user === null ? {} : { storageState: await pool.storageState(user) };
    return browser.newContext({ locale: 'ja-JP', timezoneId: 'UTC', ...options, ...signedIn });
  }

  /**
   * A browser context of `user` (the test's user unless given; null: nobody signed in) in a browser whose
   * clock says UTC (as a laptop abroad, or a CI machine), opened at `hash` once the page is ready. `route`: the page opens a
   * panel's view before it acts on it (routing.mjs), as a person taps its tab.
   */
  async function openPage({ width, height, hasTouch = false }, hash = '', clock = null, { user = args.user, route = true } = {}) {
    const context = await signedInContext({ viewport: { width, height }, hasTouch }, user);
    const opened = await context.newPage();
    const page = route ? routed(opened) : opened;
    page.on('pageerror', (error) => problems.push(String(error)));
    if (clock) await page.clock.setFixedTime(clock);
    await page.goto(`${BASE}/${hash}`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    return { context, page };
  }

  /**
   * Run the script's steps, then the last one (no uncaught script error on any page); print the
   * summary and exit 0 only if every step passed. Something thrown between steps fails the run.
   */
  async function run(body) {
    try {
      await body();
    } catch (error) {
      steps.push({ name: 'the script ran to its end', ok: false, error: String(error?.message ?? error) });
      log({ step: 'the script ran to its end', ok: false, error: String(error?.stack ?? error) });
    }
    try {
      await step('no uncaught script errors', async () => {
        check(problems.length === 0, `page errors: ${problems.join(' | ')}`);
      });
    } finally {
      await browser.close();
    }
    const ok = steps.length > 0 && steps.every((s) => s.ok);
    log({ ok, user: args.user, people: await pool.known(), steps, screenshots });
    process.exit(ok ? 0 : 1);
  }

  const { auth, subOf } = pool;
  return { args, BASE, OUT, browser, problems, log, check, step, until, api, auth, subOf, signedInContext, shot, accessible, openPage, run };
}
