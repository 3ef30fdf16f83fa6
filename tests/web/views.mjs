// The page's everyday views in a real browser (Debian's Chromium, headless, driven by playwright-core)
// against the local front, one browser for every step: "today" is the ledger's day whatever the
// browser's time zone, and the memo column stays readable at 1280 and 390 px; the slips show their
// payee (and one changed or emptied alone in the form is saved so), the medical table keeps its
// words whole on a phone, the カード tab opens on the statements, the pictures' words stay the page's
// size; axe-core finds nothing serious or critical in any state.
//
//   node tests/web/views.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_views.py runs it against a strict front (the user pool's tokens only).

import { WAIT, harness } from './harness.mjs';
import { settled } from './routing.mjs';

const { args, BASE, check, step, until, api, auth, shot, accessible, openPage: open, run } = await harness('views');

/** A page of `user` opened as it is (these steps open views themselves). */
const openPage = (size, hash = '', clock = null, user = args.user) => open(size, hash, clock, { user, route: false });

const WIDTHS = [[1280, 900], [390, 844]];

/** The API paths a page asks for from now on (the page's own files left out). */
function apiCalls(page) {
  const asked = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === new URL(BASE).origin && !/\.(js|css|html|json|webmanifest|png|svg)$|^\/$/.test(url.pathname)) asked.push(url.pathname);
  });
  return asked;
}

/**
 * Each picture within the window, its words big enough to read (at least 9 px tall as drawn) and
 * no bigger than the page's own text (at most 22 px: a picture blown up to a wide panel's width
 * would draw its legend 40 px tall).
 */
async function fitsAndReads(page, selectors) {
  for (const selector of selectors) {
    const seen = await page.locator(selector).first().evaluate((svg) => {
      const box = svg.getBoundingClientRect();
      const heights = [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect().height).filter((h) => h > 0);
      return { right: box.right, width: window.innerWidth, smallest: Math.min(...heights), largest: Math.max(...heights) };
    });
    check(seen.right <= seen.width, `${selector} ends at ${seen.right} in a window ${seen.width} wide`);
    check(seen.smallest >= 9, `${selector}: its smallest words are ${seen.smallest}px tall`);
    check(seen.largest <= 22, `${selector} at ${seen.width}px: its largest words are ${seen.largest}px tall`);
  }
}

/**
 * The visible cells of a table whose words stand one character per line (more lines than one per
 * two characters): [text, lines] of each.
 */
const crampedCells = (page, selector) =>
  page.evaluate((sel) => {
    const cramped = [];
    for (const cell of document.querySelectorAll(`${sel} th, ${sel} td`)) {
      const text = cell.textContent.trim();
      if (!text || !cell.getClientRects().length) continue; // empty, or not shown (a phone's table head)
      const range = document.createRange();
      range.selectNodeContents(cell);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      if (lines > Math.ceil(text.length / 2)) cramped.push([text, lines]);
    }
    return cramped;
  }, selector);

/** How many lines a cell's text takes (its text's line boxes, by their distinct tops). */
const linesOf = (page, selector) =>
  page.evaluate((sel) => {
    const cell = document.querySelector(sel);
    if (!cell) return -1;
    const range = document.createRange();
    range.selectNodeContents(cell);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  }, selector);

await run(async () => {
  await step("today is the ledger's day (Asia/Tokyo), not the browser's (UTC): the month and the slip's day", async () => {
    // Given a browser in UTC at 15:30 on 11/30, which is already 00:30 on 12/1 in Tokyo
    const { context, page } = await openPage({ width: 1280, height: 900 }, '', new Date('2026-11-30T15:30:00Z'));
    // Then the page opens on Tokyo's month and a new slip is dated Tokyo's day
    await until('the month shown', () => page.inputValue('#month'), '2026-12');
    await until("a new slip's day", () => page.inputValue('#slip-date'), '2026-12-01');
    // And 今月 goes there too
    await page.click('#month-prev');
    await until('the month before', () => page.inputValue('#month'), '2026-11');
    await page.click('#month-today');
    await until('今月', () => page.inputValue('#month'), '2026-12');
    await context.close();
  });

  await step('the memo column is readable: JR東日本 on one line beside a long account name, at 1280 and 390 px', async () => {
    // Given a card with a long name and a slip on it whose memo is a short name without spaces
    const card = await api('POST', '/accounts', { id: 'family-card', name: '楽天カード（家族カード）', type: 'credit', opening_balance: 0 });
    check(card.status === 201, `account: ${card.status}`);
    const slip = await api(
      'POST',
      '/slips',
      { date: '2026-11-06', kind: 'expense', amount: 12345, account: 'family-card', category: '交通費', memo: 'JR東日本' },
      { 'Idempotency-Key': '7b0f6a52-4c1e-4d7e-9a55-1f2a3b4c5d6e' },
    );
    check(slip.status === 201, `slip: ${slip.status}`);
    for (const size of WIDTHS) {
      const [width, height] = size;
      // When the month is shown
      const { context, page } = await openPage({ width, height }, '#2026-11');
      const memo = '#slip-rows tr td.memo';
      await until('the slip listed', () => page.locator(memo).first().innerText(), 'JR東日本');
      // Then its memo takes one line, not one character per line
      check((await linesOf(page, memo)) === 1, `${width}px: JR東日本 takes ${await linesOf(page, memo)} lines`);
      await shot(page, `views-memo-${width}`);
      await accessible(page, 'the month with its slip');
      await context.close();
    }
  });

  await step('navigation: a view per hash route, tabs at the top (1280 px) or the bottom (390 px), the back button, each view reading only what it shows', async () => {
    for (const [width, height] of WIDTHS) {
      // Given the slips of November opened from a link
      const { context, page } = await openPage({ width, height }, '#/slips/2026-11');
      const asked = apiCalls(page);
      await until('the slips view', () => page.evaluate(() => document.body.dataset.route), 'slips');
      check(await page.isVisible('#slips-panel'), `${width}px: the slips are shown`);
      check(!(await page.isVisible('#budgets-panel')) && !(await page.isVisible('#report-panel')), `${width}px: other views hidden`);
      // Then nothing of the hidden views was read (the quick entry's chips come from the months' totals)
      const hidden = asked.filter((path) => /^\/(budgets|rules|balances|reports\/(yearly|medical|donations))/.test(path));
      check(hidden.length === 0, `${width}px: the slips view read ${hidden}`);
      // And the tabs sit under the header on a wide screen, at the bottom of a phone's
      const bar = await page.locator('#views-nav').boundingBox();
      if (width === 390) check(Math.abs(bar.y + bar.height - height) <= 1, `${width}px: the tab bar ends at ${bar.y + bar.height}`);
      else check(bar.y < 200, `${width}px: the tabs start at ${bar.y}`);
      check((await page.locator('#views-nav a').count()) === 7, `${width}px: seven tabs`);
      // When the budgets tab is tapped
      asked.length = 0;
      await page.click('#views-nav a[data-route="budgets"]');
      await until('the budgets view', () => page.evaluate(() => [location.hash, document.body.dataset.route]), ['#/budgets/2026-11', 'budgets']);
      // Then the budgets are read and shown, the slips hidden, its tab marked as the current page
      await until('the budgets read', () => asked.includes('/budgets'), true);
      check(!asked.some((path) => path.startsWith('/slips')), `${width}px: the budgets view read the slips: ${asked}`);
      check(!(await page.isVisible('#slips-panel')), `${width}px: the slips hidden`);
      check((await page.getAttribute('#views-nav a[data-route="budgets"]', 'aria-current')) === 'page', `${width}px: the budgets tab is current`);
      // When the totals tab is tapped, then the back button twice and forward once
      await page.click('#views-nav a[data-route="reports"]');
      await until('the totals', () => page.isVisible('#report-panel'), true);
      await page.goBack();
      await until('back to the budgets', () => page.evaluate(() => [location.hash, document.body.dataset.route]), ['#/budgets/2026-11', 'budgets']);
      await page.goBack();
      await until('back to the slips', () => page.evaluate(() => [location.hash, document.body.dataset.route]), ['#/slips/2026-11', 'slips']);
      check(await page.isVisible('#slips-panel'), `${width}px: the slips shown again`);
      await page.goForward();
      await until('forward to the budgets', () => page.evaluate(() => document.body.dataset.route), 'budgets');
      // And the month goes with the view: the next month keeps the view and its address
      await page.click('#month-next');
      await until('December', () => page.evaluate(() => location.hash), '#/budgets/2026-12');
      // And every view passes axe-core
      for (const route of await page.locator('#views-nav a').evaluateAll((links) => links.map((a) => a.dataset.route))) {
        await page.click(`#views-nav a[data-route="${route}"]`);
        await until(`#/${route}`, () => page.evaluate(() => [document.body.dataset.route, !document.querySelector('main[aria-busy]')]), [route, true]);
        await accessible(page, `#/${route}`);
      }
      await shot(page, `views-nav-${width}`);
      await context.close();
    }
  });

  await step('three taps for a usual expense on a phone: the amount (numeric keypad), a usual category chip, 記録; today and the last account preselected', async () => {
    // Given a household of its own with two accounts and the expenses of a few weeks: 食費 most often,
    // then 日用品, the latest paid by card
    const user = `${args.user}-quick`;
    const as = await auth(user);
    for (const [id, name, type] of [['wallet', '財布', 'cash'], ['card', 'カード', 'credit']]) {
      const made = await api('POST', '/accounts', { id, name, type, opening_balance: 50000 }, as);
      check(made.status === 201, `account ${id}: ${made.status}`);
    }
    const past = [
      ['2026-10-28', '日用品', 'wallet'], ['2026-11-02', '食費', 'wallet'], ['2026-11-05', '食費', 'wallet'],
      ['2026-11-08', '日用品', 'wallet'], ['2026-11-12', '食費', 'card'], ['2026-11-14', '交通費', 'card'],
    ];
    for (const [i, [date, category, account]] of past.entries()) {
      const made = await api('POST', '/slips', { date, kind: 'expense', amount: 100 + i, account, category }, { ...as, 'Idempotency-Key': `${user}-${i}` });
      check(made.status === 201, `slip ${i}: ${made.status}`);
    }
    // When the page opens on a phone (a touch screen) on 11/20 in Tokyo
    const { context, page } = await openPage({ width: 390, height: 844, hasTouch: true }, '#/slips', new Date('2026-11-20T12:00:00+09:00'), user);
    await until('the usual categories as chips', () => page.locator('#quick-chips .chip').allInnerTexts(), ['食費', '日用品', '交通費', '外食', '娯楽費', '医療費']);
    // Then the amount comes first with a numeric keypad, today and the latest expense's account are chosen
    check((await page.getAttribute('#quick-amount', 'inputmode')) === 'numeric', 'the amount asks for a numeric keypad');
    const first = await page.evaluate(() => document.querySelector('#quick-form').querySelector('input, select, button')?.id);
    check(first === 'quick-amount', `the first control: ${first}`);
    check((await page.inputValue('#quick-date')) === '2026-11-20', `the day: ${await page.inputValue('#quick-date')}`);
    await until('the last account', () => page.inputValue('#quick-account'), 'card');
    await accessible(page, 'quick entry');
    // When the person taps the amount, types 850, taps 食費 and 記録: three taps
    await page.tap('#quick-amount');
    await page.keyboard.type('850');
    await page.tap('#quick-chips .chip >> text=食費');
    check((await page.getAttribute('#quick-chips .chip >> text=食費', 'aria-pressed')) === 'true', 'the chip pressed');
    await page.tap('#quick-submit');
    // Then it is recorded once, as that expense, and said so; the amount is empty for the next one
    await until('recorded', async () => (await page.innerText('#status')).startsWith('記録しました'), true);
    check((await page.inputValue('#quick-amount')) === '', 'the amount emptied');
    const { data } = await api('GET', '/slips?from=2026-11-20&to=2026-11-20', undefined, as);
    const got = data.items.map((s) => [s.date, s.kind, s.amount, s.category, s.account]);
    check(JSON.stringify(got) === JSON.stringify([['2026-11-20', 'expense', 850, '食費', 'card']]), `recorded: ${JSON.stringify(got)}`);
    await shot(page, 'views-quick-390');
    // And a wrong amount is refused in words, naming the field, nothing sent
    await page.fill('#quick-amount', 'abc');
    await page.tap('#quick-submit');
    await until('the refusal', () => page.getAttribute('#quick-amount', 'aria-invalid'), 'true');
    check((await page.innerText('#error')).includes('金額'), `the error: ${await page.innerText('#error')}`);
    // And the account chosen by hand is the one offered next time
    await page.selectOption('#quick-account', 'wallet');
    await page.fill('#quick-amount', '120');
    await page.tap('#quick-submit');
    await until('recorded again', async () => (await page.innerText('#status')).includes('￥120'), true);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    await until('the account used last', () => page.inputValue('#quick-account'), 'wallet');
    await context.close();
  });

  await step('offline: an entry made without a connection waits (shown), survives two offline/online cycles and a reload, and is recorded exactly once', async () => {
    // Given a ledger of its own with a wallet, the page installed (its service worker keeps the page)
    const user = `${args.user}-offline`;
    const as = await auth(user);
    check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 30000 }, as)).status === 201, 'account');
    const { context, page } = await openPage({ width: 390, height: 844, hasTouch: true }, '#/slips', new Date('2026-11-20T12:00:00+09:00'), user);
    await until('the service worker in charge', () => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), true);
    await page.reload(); // opened again under it: every file the page loads is kept
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    await until('the page kept for offline use', () => page.evaluate(async () => Boolean(await caches.match(new URL('views/quick.js', location).href))), true);
    const manifest = await page.evaluate(async () => (await fetch(document.querySelector('link[rel="manifest"]').href)).json());
    check(manifest.display === 'standalone' && manifest.icons.length > 0 && manifest.start_url, `manifest: ${JSON.stringify(manifest)}`);
    await until('the account offered', () => page.inputValue('#quick-account'), 'wallet');
    const sent = []; // the Idempotency-Key of every POST /slips the page sends
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/slips') sent.push(request.headers()['idempotency-key']);
    });
    const recorded = async () => (await api('GET', '/slips?from=2026-11-01&to=2026-11-30', undefined, as)).data.items.map((s) => [s.amount, s.category]);

    // When the connection drops and an expense is entered (three taps)
    await context.setOffline(true);
    await page.tap('#quick-amount');
    await page.keyboard.type('640');
    await page.tap('#quick-chips .chip >> text=食費');
    await page.tap('#quick-submit');
    // Then it waits, and the page says so
    await until('said', async () => (await page.innerText('#status')).startsWith('送信待ちにしました'), true);
    await until('what waits', () => page.innerText('#outbox-text'), '送信待ち 1件（オフライン: 接続が戻ると送ります）');
    check((await page.innerText('#outbox-list')).includes('食費 ￥640'), `listed: ${await page.innerText('#outbox-list')}`);
    await accessible(page, 'an entry waiting offline');
    await shot(page, 'views-offline-390');

    // When the connection returns but the API's answer is lost on the way back (first cycle)
    let lost = 0;
    await context.route('**/slips', async (route) => {
      if (route.request().method() !== 'POST' || lost) return route.fallback();
      lost = 1;
      await route.fetch(); // the API records it ...
      await route.abort('connectionreset'); // ... and the page never hears
      lost = 2;
    });
    await context.setOffline(false);
    await until('sent once, its answer lost', () => sent.length === 1 && lost === 2, true);
    // Then it still waits (the page cannot know), while the API has it once
    await until('still waiting', () => page.innerText('#outbox-text').then((t) => t.startsWith('送信待ち 1件')), true);
    check(JSON.stringify(await recorded()) === JSON.stringify([[640, '食費']]), `recorded: ${JSON.stringify(await recorded())}`);

    // When the connection drops again and the page is reloaded without it (second cycle)
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
    // Then the page opens from its service worker and what waits is still there (IndexedDB)
    await until('waiting after the reload', () => page.innerText('#outbox-text'), '送信待ち 1件（オフライン: 接続が戻ると送ります）');
    // When the connection returns
    await context.setOffline(false);
    // Then it goes out again with the same key, nothing waits, and the slip is listed
    await until('nothing waits', () => page.isVisible('#outbox'), false);
    await until('listed', () => page.locator('#slip-rows tr').count(), 1);
    check(sent.length === 2 && new Set(sent).size === 1, `POST /slips sent with keys ${JSON.stringify(sent)}`);
    // And the API has exactly one slip
    check(JSON.stringify(await recorded()) === JSON.stringify([[640, '食費']]), `recorded: ${JSON.stringify(await recorded())}`);
    await context.close();
  });

  await step('the slip list shows where each slip was paid (its payee), at 1280 and 390 px', async () => {
    // Given a slip with a payee and a memo, and one without either
    const user = `${args.user}-payee`;
    const as = await auth(user);
    check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 30000 }, as)).status === 201, 'account');
    const slips = [{ date: '2026-11-06', amount: 1280, category: '食費', payee: 'スーパーマルエツ', memo: 'パン' }, { date: '2026-11-07', amount: 300, category: '交通費' }];
    for (const [i, slip] of slips.entries()) {
      const made = await api('POST', '/slips', { kind: 'expense', account: 'wallet', ...slip }, { ...as, 'Idempotency-Key': `${user}-${i}` });
      check(made.status === 201, `slip ${i}: ${made.status}`);
    }
    for (const [width, height] of WIDTHS) {
      // When the month is shown
      const { context, page } = await openPage({ width, height }, '#/slips/2026-11', null, user);
      await until('listed', () => page.locator('#slip-rows tr').count(), 2);
      // Then the slip with a payee shows it beside its memo, on one line each, and the other shows none
      const payee = '#slip-rows tr[data-date="2026-11-06"] td.payee';
      check(await page.isVisible(payee), `${width}px: the payee is not shown`);
      check((await page.innerText(payee)) === 'スーパーマルエツ', `${width}px: the payee: ${await page.innerText(payee)}`);
      check((await linesOf(page, payee)) === 1, `${width}px: the payee takes ${await linesOf(page, payee)} lines`);
      check((await linesOf(page, '#slip-rows tr[data-date="2026-11-06"] td.memo')) === 1, `${width}px: the memo wraps`);
      check((await page.locator('#slip-rows tr[data-date="2026-11-07"] td.payee').innerText()) === '', `${width}px: a payee on the slip without one`);
      await shot(page, `views-payee-${width}`);
      await accessible(page, 'the slips with their payees');
      await context.close();
    }
  });

  await step('a payee changed alone in the slip form is saved, and one emptied is removed (1280 px)', async () => {
    // Given a slip paid at スーパーマルエツ, its month shown
    const user = `${args.user}-payee-edit`;
    const as = await auth(user);
    check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 30000 }, as)).status === 201, 'account');
    const made = await api('POST', '/slips', { kind: 'expense', account: 'wallet', date: '2026-11-06', amount: 1280, category: '食費', payee: 'スーパーマルエツ' }, { ...as, 'Idempotency-Key': `${user}-0` });
    check(made.status === 201, `slip: ${made.status}`);
    const payees = async () => JSON.stringify((await api('GET', '/slips?from=2026-11-01&to=2026-11-30', undefined, as)).data.items.map((s) => s.payee ?? null));
    const [width, height] = WIDTHS[0];
    const { context, page } = await openPage({ width, height }, '#/slips/2026-11', null, user);
    await until('listed', () => page.locator('#slip-rows tr').count(), 1);
    for (const [before, typed, saved] of [['スーパーマルエツ', '八百屋', '八百屋'], ['八百屋', '', null]]) {
      // When the slip is edited, only its payee changed (then emptied), and saved
      await page.click('#slip-rows tr button.edit');
      await until('in the form', () => page.inputValue('#slip-payee'), before);
      await page.fill('#slip-payee', typed);
      await page.click('#slip-submit');
      // Then the API has the payee typed (none once emptied), and the page says it saved, not that nothing changed
      await until(`the payee ${typed || '(none)'} saved`, payees, JSON.stringify([saved]));
      await until('said', async () => (await page.innerText('#status')).startsWith('保存しました'), true);
      await until('listed with it', () => page.innerText('#slip-rows tr td.payee'), typed);
    }
    await context.close();
  });

  await step('the medical table (確定申告) keeps its words readable at 390 px: no column one character per line', async () => {
    // Given a year's medical payments with a long provider name and large amounts
    const user = `${args.user}-medical`;
    const as = await auth(user);
    check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 5000000 }, as)).status === 201, 'account');
    const paid = [
      ['2026-11-05', 1234567, { patient: '山田 花子', provider: '医療法人社団さくら会 中央総合病院', kind: 'treatment', reimbursed: 100000 }],
      ['2026-11-06', 2980, { patient: 'taro', provider: 'ドラッグストア', kind: 'medicine', reimbursed: 0, otc: true }],
    ];
    for (const [i, [date, amount, medical]] of paid.entries()) {
      const made = await api('POST', '/slips', { date, kind: 'expense', amount, account: 'wallet', category: '医療費', medical }, { ...as, 'Idempotency-Key': `${user}-${i}` });
      check(made.status === 201, `slip ${i}: ${made.status} ${JSON.stringify(made.data)}`);
    }
    for (const [width, height] of WIDTHS) {
      // When the totals of November are opened
      const { context, page } = await openPage({ width, height }, '#/reports/2026-11', new Date('2026-11-20T12:00:00+09:00'), user);
      await until('the medical rows', () => page.locator('#tax-medical-rows tr').count(), 2);
      // Then no header or cell stands one character per line, and the table is within the window
      const cramped = await crampedCells(page, '#tax-medical-table');
      check(cramped.length === 0, `${width}px: cramped cells ${JSON.stringify(cramped)}`);
      const right = await page.locator('#tax-medical-table').evaluate((table) => table.getBoundingClientRect().right);
      check(right <= width, `${width}px: the medical table ends at ${right}`);
      // And each amount is still named by what it is
      const paidCell = page.locator('#tax-medical-rows tr').first().locator('td[data-label="支払った"]');
      check((await paidCell.count()) === 1, `${width}px: the paid amount's label`);
      await shot(page, `views-medical-${width}`);
      await accessible(page, 'the medical payments');
      await context.close();
    }
  });

  await step('the カード tab opens on the card statements, the balances below, at 1280 and 390 px', async () => {
    // Given a card billed at the month's end from a bank account, with a charge of October
    const user = `${args.user}-cards`;
    const as = await auth(user);
    check((await api('POST', '/accounts', { id: 'bank', name: '銀行', type: 'bank', opening_balance: 100000 }, as)).status === 201, 'bank');
    const billing = { closing_day: 'last', payment_day: 27, payment_month_offset: 1, pay_from: 'bank', shift: 'none' };
    const card = await api('POST', '/accounts', { id: 'card', name: 'カード', type: 'credit', opening_balance: 0, billing }, as);
    check(card.status === 201, `card: ${card.status} ${JSON.stringify(card.data)}`);
    const charge = await api('POST', '/slips', { date: '2026-11-10', kind: 'expense', amount: 3000, account: 'card', category: '食費' }, { ...as, 'Idempotency-Key': `${user}-charge` });
    check(charge.status === 201, `charge: ${charge.status}`);
    for (const [width, height] of WIDTHS) {
      // When the カード tab is tapped
      const { context, page } = await openPage({ width, height }, '#/slips/2026-11', new Date('2026-11-20T12:00:00+09:00'), user);
      await page.click('#views-nav a[data-route="cards"]');
      await until('the statements', () => page.locator('#card-list .card-statement').count(), 1);
      await settled(page);
      // Then the statements come first, the balances list after them
      const tops = await page.evaluate(() => ['cards-panel', 'balances-panel'].map((id) => document.getElementById(id).getBoundingClientRect().top));
      check(tops[0] < tops[1], `${width}px: the statements at ${tops[0]}, the balances at ${tops[1]}`);
      // And the statements are what the view opens on: their heading within the first screen
      const heading = await page.locator('#cards-title').boundingBox();
      check(heading && heading.y + heading.height <= height, `${width}px: the statements' heading at ${heading?.y}`);
      await shot(page, `views-cards-${width}`);
      await context.close();
    }
  });

  await step('tags: typed on the slip form, shown as chips, a chip narrows to its tag with its total, many slips tagged at once and undone, a search of past months', async () => {
    // Given slips tagged 旅行 (one also 京都) and one without tags
    const user = `${args.user}-tags`;
    const as = await auth(user);
    check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 30000 }, as)).status === 201, 'account');
    const slips = [
      { date: '2026-11-06', amount: 1280, category: '食費', tags: ['旅行', '京都'] },
      { date: '2026-11-07', amount: 300, category: '交通費', tags: ['旅行'] },
      { date: '2026-11-08', amount: 500, category: '日用品' },
    ];
    for (const [i, slip] of slips.entries()) {
      const made = await api('POST', '/slips', { kind: 'expense', account: 'wallet', ...slip }, { ...as, 'Idempotency-Key': `${user}-${i}` });
      check(made.status === 201, `slip ${i}: ${made.status}`);
    }
    const { context, page } = await openPage({ width: 1280, height: 900 }, '#/slips/2026-11', null, user);
    const row = (date) => `#slip-rows tr[data-date="${date}"]`;
    await until('listed', () => page.locator('#slip-rows tr').count(), 3);
    // Then each slip shows its tags as chips
    check(JSON.stringify(await page.locator(`${row('2026-11-06')} td.tags button`).allInnerTexts()) === JSON.stringify(['旅行', '京都']), 'the chips');
    check((await page.locator(`${row('2026-11-08')} td.tags button`).count()) === 0, 'no chips on a slip without tags');
    // When a chip is clicked: only the tag's slips, with its total for the month
    await page.click(`${row('2026-11-07')} td.tags button`);
    await until('narrowed to 旅行', () => page.locator('#slip-rows tr').count(), 2);
    await until('the tag total', () => page.locator('#tag-total').innerText().then((t) => t.includes('支出 ￥1,580') && t.includes('2 件')), true);
    await accessible(page, 'the slips narrowed to a tag');
    await page.click('#tag-filter-clear');
    await until('every slip again', () => page.locator('#slip-rows tr').count(), 3);
    // When two slips are chosen and tagged at once
    await page.check(`${row('2026-11-07')} td.select input`);
    await page.check(`${row('2026-11-08')} td.select input`);
    await until('the bulk form', () => page.isVisible('#bulk-form'), true);
    check((await page.innerText('#bulk-count')).includes('2 件'), 'two chosen');
    await page.fill('#bulk-tags-add', 'まとめ');
    await accessible(page, 'two slips chosen for a bulk edit');
    await page.click('#bulk-apply');
    await until('said', () => page.innerText('#bulk-done-text').then((t) => t.includes('2 件を変更しました')), true);
    await until('tagged', () => page.locator(`${row('2026-11-08')} td.tags button`).allInnerTexts().then((t) => t.join(',')), 'まとめ');
    // And undone: both as they were
    await page.click('#bulk-undo');
    await until('undone', () => page.locator(`${row('2026-11-08')} td.tags button`).count(), 0);
    check((await page.locator(`${row('2026-11-07')} td.tags button`).allInnerTexts()).join(',') === '旅行', 'the other slip as it was');
    // When a slip is added with tags typed in the form
    await page.fill('#slip-amount', '700');
    await page.fill('#slip-category', '外食');
    await page.fill('#slip-tags', '旅行, ＫＹＯＴＯ');
    await page.click('#slip-submit');
    await until('added', () => page.locator('#slip-rows tr').count(), 4);
    const listed = await api('GET', '/slips?from=2026-11-01&to=2026-11-30&tag=kyoto', undefined, as);
    check(listed.status === 200 && listed.data.items.length === 1 && JSON.stringify(listed.data.items[0].tags) === JSON.stringify(['旅行', 'kyoto']), `the tags sent: ${JSON.stringify(listed.data)}`);
    // When the past months are searched
    await page.fill('#search-q', '京都');
    await page.click('#search-submit');
    await until('found', () => page.locator('#slip-rows tr').count(), 1);
    await page.click('#search-clear');
    await until('the month again', () => page.locator('#slip-rows tr').count(), 4);
    await context.close();
  });

  await step('pictures at 1280 and 390 px: spending by category (a donut), the year by month, budgets with the pace, an account\'s balance over time; each with its table', async () => {
    // Given a household's November: three kinds of spending from a wallet, a salary, two budgets (日用品 overspent)
    const user = `${args.user}-charts`;
    const as = await auth(user);
    check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 100000 }, as)).status === 201, 'account');
    const slips = [
      ['2026-10-25', 'income', 250000, '給与'], ['2026-11-03', 'expense', 4200, '食費'], ['2026-11-07', 'expense', 1800, '日用品'],
      ['2026-11-10', 'expense', 2600, '食費'], ['2026-11-12', 'expense', 900, '交通費'],
    ];
    for (const [i, [date, kind, amount, category]] of slips.entries()) {
      const made = await api('POST', '/slips', { date, kind, amount, account: 'wallet', category }, { ...as, 'Idempotency-Key': `${user}-${i}` });
      check(made.status === 201, `slip ${i}: ${made.status}`);
    }
    for (const [category, limit] of [['食費', 20000], ['日用品', 1500]]) {
      check((await api('PUT', `/budgets/2026-11/${encodeURIComponent(category)}`, { limit }, as)).status < 300, `budget ${category}`);
    }
    for (const [width, height] of WIDTHS) {
      // When the totals are opened on 11/15 (half the month gone)
      const { context, page } = await openPage({ width, height }, '#/reports/2026-11', new Date('2026-11-15T12:00:00+09:00'), user);
      await until('the donut', () => page.locator('#report-donut svg .donut-slice').count(), 3);
      // Then the donut names each category's amount and share, and the table beside it has the numbers
      const donut = await page.locator('#report-donut svg > title').textContent();
      check(donut.includes('食費 ￥6,800（72%）') && donut.includes('交通費 ￥900（9%）'), `the donut says: ${donut}`);
      check((await page.locator('#report-rows tr').count()) === 3, 'the totals table');
      // And the year month by month, with its table of twelve months
      await until('the year', () => page.locator('#trends-chart svg g.trend-month').count(), 12);
      check((await page.locator('#trends-table tbody tr').count()) === 12, 'the year table');
      await fitsAndReads(page, ['#report-donut svg', '#chart svg', '#trends-chart svg']);
      await accessible(page, 'the totals with their pictures');
      await shot(page, `views-charts-reports-${width}`);
      // When the budgets are opened
      await page.click('#views-nav a[data-route="budgets"]');
      await until('the budget bars', () => page.locator('#budget-chart svg g.budget-bar').count(), 2);
      // Then each is a bar with the pace marked halfway (11/15 of 30 days), the overspent one marked, the table beside
      const paces = await page.locator('#budget-chart svg line.budget-pace').evaluateAll((lines) => lines.map((l) => l.getAttribute('x1')));
      const track = await page.locator('#budget-chart svg rect.budget-track').first().evaluate((r) => [Number(r.getAttribute('x')), Number(r.getAttribute('width'))]);
      check(paces.every((x) => Math.abs(Number(x) - (track[0] + track[1] / 2)) < 0.5), `the pace at ${paces}, the track ${track}`);
      check((await page.getAttribute('#budget-chart g.budget-bar[data-category="日用品"]', 'class')).includes('over'), '日用品 is over its budget');
      check((await page.locator('#budget-chart svg > title').textContent()).includes('日用品 ￥1,800 / ￥1,500'), 'the bars say their numbers');
      check((await page.locator('#budget-rows tr').count()) === 2, 'the budgets table');
      await fitsAndReads(page, ['#budget-chart svg']);
      await accessible(page, 'the budgets with their bars');
      await shot(page, `views-charts-budgets-${width}`);
      // When the wallet's balance over time is asked for
      await page.click('#views-nav a[data-route="accounts"]');
      await page.click('#balance-rows tr[data-account="wallet"] button.history');
      // Then a line, and the table of the days it moved
      await until('the line', () => page.locator('#history-chart svg polyline').count(), 1);
      await until('the days it moved', () => page.locator('#history-table tbody tr').count(), 4);
      await fitsAndReads(page, ['#history-chart svg']);
      await accessible(page, 'an account\'s balance over time');
      await context.close();
    }
  });
});
