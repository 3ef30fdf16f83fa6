// Writes made without a connection in a real browser (Debian's Chromium, headless, driven by
// playwright-core) at 390 px: an edit and a delete made offline wait in the outbox (shown, the rows
// marked), go out when the connection returns, survive answers lost on the way back, offline/online
// cycles and a reload, and happen exactly once (checked over the API, in each slip's history); an
// offline edit whose slip another screen changed meanwhile is shown as a conflict, never dropped; a
// page reloaded without a connection fills the quick entry from what it kept (kept.js) and records.
//
//   node tests/web/offline.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_scripts.py runs it against a strict front (the user pool's tokens only).

import { harness } from './harness.mjs';
import { WAIT, settled } from './routing.mjs';

const { args, check, step, until, api, shot, accessible, openPage: open, run } = await harness('offline');

/** A phone-sized page of the test's user on 11/20 in Tokyo, its service worker in charge (the page kept). */
async function openPage(hash) {
  const { context, page } = await open({ width: 390, height: 844 }, hash, new Date('2026-11-20T12:00:00+09:00'), { route: false });
  page.on('dialog', (dialog) => dialog.accept()); // 「この伝票を削除しますか？」
  await until('the service worker in charge', () => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), true);
  await page.reload(); // opened again under it: every file the page loads is kept
  await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
  return { context, page };
}

async function reloadOffline(page) {
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: WAIT });
}

async function slip(date, category, amount, memo, key) {
  const made = await api('POST', '/slips', { date, kind: 'expense', amount, account: 'wallet', category, memo }, { 'Idempotency-Key': `${args.user}-${key}` });
  check(made.status === 201, `slip ${key}: ${made.status} ${JSON.stringify(made.data)}`);
  return made.data;
}

/** A slip's life as the API tells it: [op, version] of each change. */
async function lifeOf(id) {
  const { data } = await api('GET', `/slips/${encodeURIComponent(id)}/history`);
  return data.items.map((item) => [item.op, item.version]);
}

const row = (id) => `#slip-rows tr[data-id="${id}"]`;

/** The PATCHes and DELETEs the page sends to /slips/…, with their Idempotency-Keys. */
function writesOf(page) {
  const sent = [];
  page.on('request', (request) => {
    const method = request.method();
    if ((method === 'PATCH' || method === 'DELETE') && new URL(request.url()).pathname.startsWith('/slips/')) {
      sent.push([method, request.headers()['idempotency-key'], request.headers()['if-match']]);
    }
  });
  return sent;
}

/**
 * The next `method` to /slips/… reaches the API, which carries it out, but its answer is lost on the
 * way back; then the connection is gone again for the page's writes (any retry fails on the way out)
 * until the test takes the route away.
 */
async function loseNextAnswer(context, method) {
  const lost = { state: 0 };
  await context.route('**/slips/**', async (route) => {
    const write = ['PATCH', 'DELETE'].includes(route.request().method());
    if (write && lost.state === 2) return route.abort('internetdisconnected');
    if (route.request().method() !== method || lost.state) return route.fallback();
    lost.state = 1;
    await route.fetch(); // the API does it ...
    await route.abort('connectionreset'); // ... and the page never hears
    lost.state = 2;
  });
  return lost;
}

await run(async () => {
  check((await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 30000 })).status === 201, 'account');

  await step('offline: an edit and a delete wait (shown), survive answers lost, offline/online cycles and a reload, and happen exactly once', async () => {
    // Given two slips of November, the page open on them (installed: its service worker keeps it)
    const bread = await slip('2026-11-05', '食費', 1200, 'パン', 'bread');
    const soap = await slip('2026-11-07', '日用品', 800, '洗剤', 'soap');
    const { context, page } = await openPage('#/slips/2026-11');
    await until('listed', () => page.locator('#slip-rows tr').count(), 2);
    const sent = writesOf(page);

    // When the connection drops, the bread's memo is changed and the soap deleted
    await context.setOffline(true);
    await page.click(`${row(bread.id)} button.edit`);
    await until('the slip in the form', () => page.inputValue('#slip-memo'), 'パン');
    await page.fill('#slip-memo', 'パンと牛乳');
    await page.click('#slip-submit');
    await until('the edit said', async () => (await page.innerText('#status')).startsWith('送信待ちにしました: 変更'), true);
    await page.click(`${row(soap.id)} button.delete`);
    await until('the delete said', async () => (await page.innerText('#status')).startsWith('送信待ちにしました: 削除'), true);
    // Then both wait, listed under the header, their rows marked; nothing was sent
    await until('what waits', () => page.innerText('#outbox-text'), '送信待ち 2件（オフライン: 接続が戻ると送ります）');
    const listed = await page.innerText('#outbox-list');
    check(listed.includes('変更: 11/5') && listed.includes('削除: 11/7'), `listed: ${listed}`);
    check((await page.innerText(`${row(bread.id)} .pending-mark`)) === '変更の送信待ち', 'the bread marked');
    check((await page.innerText(`${row(bread.id)} td.memo`)) === 'パンと牛乳', 'the bread shows its new memo');
    check((await page.innerText(`${row(soap.id)} .pending-mark`)) === '削除の送信待ち', 'the soap marked');
    check(sent.length === 0, `sent while offline: ${JSON.stringify(sent)}`);
    await accessible(page, 'an edit and a delete waiting offline');
    await shot(page, 'offline-writes-390');

    // When the connection returns and the edit's answer is lost on the way back (first cycle)
    const patchLost = await loseNextAnswer(context, 'PATCH');
    await context.setOffline(false);
    await until('the edit sent, its answer lost', () => patchLost.state, 2);
    // Then both still wait (the page cannot know; the delete waits behind the edit), the API has the edit once
    await until('still waiting', () => page.innerText('#outbox-text').then((t) => t.slice(0, 7)), '送信待ち 2件');
    check(JSON.stringify(await lifeOf(bread.id)) === JSON.stringify([['create', 1], ['update', 2]]), `the bread: ${JSON.stringify(await lifeOf(bread.id))}`);

    // When the connection drops, the page is reloaded without it, and the connection returns with the delete's answer lost (second cycle)
    await context.setOffline(true);
    await context.unroute('**/slips/**');
    await reloadOffline(page);
    await until('waiting after the reload', () => page.innerText('#outbox-text'), '送信待ち 2件（オフライン: 接続が戻ると送ります）');
    const deleteLost = await loseNextAnswer(context, 'DELETE');
    await context.setOffline(false);
    // Then the edit, sent again, is found done (its version moved on by this very change): no conflict
    await until('the delete sent, its answer lost', () => deleteLost.state, 2);
    await until('the delete still waits', () => page.innerText('#outbox-text').then((t) => t.slice(0, 7)), '送信待ち 1件');
    check(JSON.stringify(await lifeOf(soap.id)) === JSON.stringify([['create', 1], ['delete', 2]]), `the soap: ${JSON.stringify(await lifeOf(soap.id))}`);

    // When the connection drops and returns once more (third cycle), the page done reading what came back
    await settled(page);
    await context.setOffline(true);
    await context.unroute('**/slips/**');
    await context.setOffline(false);
    // Then the delete, sent again, is found done too; nothing waits and no conflict is shown
    await until('nothing waits', () => page.isVisible('#outbox'), false);
    await until('the month read again', () => page.locator('#slip-rows tr').count(), 1);
    check(!(await page.isVisible('#conflict')), 'no conflict shown');
    // And the page, opened without a connection, read its data once it came back: no error left shown
    await until('no error shown', () => page.isVisible('#error'), false);
    // And each was sent again (at least twice) with one key and the version it was made on, and happened once
    const edits = sent.filter(([method]) => method === 'PATCH');
    const deletes = sent.filter(([method]) => method === 'DELETE');
    check(edits.length >= 2 && new Set(edits.map((s) => s.join())).size === 1 && edits[0][2] === '"1"', `PATCHes: ${JSON.stringify(edits)}`);
    check(deletes.length >= 2 && new Set(deletes.map((s) => s.join())).size === 1 && deletes[0][2] === '"1"', `DELETEs: ${JSON.stringify(deletes)}`);
    check(JSON.stringify(await lifeOf(bread.id)) === JSON.stringify([['create', 1], ['update', 2]]), `the bread: ${JSON.stringify(await lifeOf(bread.id))}`);
    check(JSON.stringify(await lifeOf(soap.id)) === JSON.stringify([['create', 1], ['delete', 2]]), `the soap: ${JSON.stringify(await lifeOf(soap.id))}`);
    const now = await api('GET', `/slips/2026-11-05/${bread.id}`);
    check(now.data.memo === 'パンと牛乳' && now.data.amount === 1200 && now.data.category === '食費', `the bread now: ${JSON.stringify(now.data)}`);
    check((await api('GET', `/slips/2026-11-07/${soap.id}`)).status === 404, 'the soap is gone');
    await context.close();
  });

  await step('offline: an edit whose slip another screen changed meanwhile is shown as a conflict to resolve, not dropped', async () => {
    // Given a slip, the page open on it
    const fare = await slip('2026-11-12', '交通費', 300, 'バス', 'fare');
    const { context, page } = await openPage('#/slips/2026-11');
    await until('listed', () => page.locator(`${row(fare.id)}`).count(), 1);
    // When its memo is changed offline, and meanwhile another screen changes its amount
    await context.setOffline(true);
    await page.click(`${row(fare.id)} button.edit`);
    await until('the slip in the form', () => page.inputValue('#slip-memo'), 'バス');
    await page.fill('#slip-memo', 'バス（往復）');
    await page.click('#slip-submit');
    await until('waiting', () => page.innerText('#outbox-text'), '送信待ち 1件（オフライン: 接続が戻ると送ります）');
    const theirs = await api('PATCH', `/slips/2026-11-12/${fare.id}`, { amount: 600 }, { 'If-Match': '"1"' });
    check(theirs.status === 200, `the other screen's change: ${theirs.status}`);
    await context.setOffline(false);
    // Then the conflict panel shows what the other screen did next to what was tried offline
    await until('the conflict shown', () => page.isVisible('#conflict'), true);
    check((await page.innerText('#conflict-text')).includes('オフラインの間のあなたの保存'), `the lead: ${await page.innerText('#conflict-text')}`);
    check((await page.innerText('#conflict-table tr[data-field="amount"] td.now')).includes('600'), 'their amount shown');
    check((await page.innerText('#conflict-table tr[data-field="memo"] td.mine')) === 'バス（往復）', 'the memo tried shown');
    await until('nothing waits', () => page.isVisible('#outbox'), false);
    // And nothing was overwritten: the slip is as the other screen left it
    const now = await api('GET', `/slips/2026-11-12/${fare.id}`);
    check(now.data.memo === 'バス' && now.data.amount === 600, `the slip now: ${JSON.stringify(now.data)}`);
    await accessible(page, 'an offline edit in conflict');
    await shot(page, 'offline-conflict-390');
    // When the person puts their change back on top of the current slip and saves
    await page.click('#conflict-reapply');
    await until('the memo back in the form', () => page.inputValue('#slip-memo'), 'バス（往復）');
    check((await page.inputValue('#slip-amount')) === '600', 'the other screen\'s amount kept');
    await page.click('#slip-submit');
    await until('saved', async () => (await page.innerText('#status')).startsWith('保存しました'), true);
    // Then both changes are in, each once
    const after = await api('GET', `/slips/2026-11-12/${fare.id}`);
    check(after.data.memo === 'バス（往復）' && after.data.amount === 600, `the slip after: ${JSON.stringify(after.data)}`);
    check(JSON.stringify(await lifeOf(fare.id)) === JSON.stringify([['create', 1], ['update', 2], ['update', 3]]), `the fare: ${JSON.stringify(await lifeOf(fare.id))}`);
    await context.close();
  });

  await step('offline: a page reloaded without a connection still offers its ledger, the accounts, the usual chips, the account and today; an expense entered then goes to that ledger once', async () => {
    // Given a shared ledger of the person's with a wallet and a card, and a November of fares by card and meals out from the wallet
    const ledger = await api('POST', '/ledgers', { name: '我が家' });
    check(ledger.status === 201, `ledger: ${ledger.status}`);
    const L = ledger.data.id;
    for (const [id, name, type] of [['wallet', '財布', 'cash'], ['card', 'カード', 'credit']]) {
      check((await api('POST', `/ledgers/${L}/accounts`, { id, name, type, opening_balance: 20000 })).status === 201, `account ${id}`);
    }
    const past = [['2026-11-02', '外食', 'wallet'], ['2026-11-04', '外食', 'wallet'], ['2026-11-10', '交通費', 'card'], ['2026-11-12', '交通費', 'card'], ['2026-11-16', '交通費', 'card']];
    for (const [i, [date, category, account]] of past.entries()) {
      const made = await api('POST', `/ledgers/${L}/slips`, { date, kind: 'expense', amount: 300 + i, account, category }, { 'Idempotency-Key': `${args.user}-shared-${i}` });
      check(made.status === 201, `slip ${i}: ${made.status}`);
    }
    // And the page opened on it once with a connection (11/20 in Tokyo): what the quick entry offers
    const { context, page } = await openPage('#/slips/2026-11');
    await page.selectOption('#ledger', L);
    await until('the shared ledger read', () => page.locator('#slip-rows tr').count(), past.length);
    const usual = ['交通費', '外食', '食費', '日用品', '娯楽費', '医療費'];
    await until('the usual chips', () => page.locator('#quick-chips .chip').allInnerTexts(), usual);
    await until('the latest expense\'s account', () => page.inputValue('#quick-account'), 'card');
    const accounts = () => page.locator('#quick-account option').evaluateAll((options) => options.map((o) => o.value).sort());
    check(JSON.stringify(await accounts()) === '["card","wallet"]', `the accounts online: ${JSON.stringify(await accounts())}`);

    // When the connection drops and the page is reloaded without it
    await context.setOffline(true);
    await reloadOffline(page);
    // Then the quick entry offers the accounts, that account, the same chips and today
    await until('the accounts offered', accounts, ['card', 'wallet']);
    await until('the account', () => page.inputValue('#quick-account'), 'card');
    await until('the chips', () => page.locator('#quick-chips .chip').allInnerTexts(), usual);
    check((await page.inputValue('#quick-date')) === '2026-11-20', `the day: ${await page.inputValue('#quick-date')}`);
    // And it still shows that ledger (what is entered goes there, not to the personal one)
    check((await page.inputValue('#ledger')) === L, `the ledger shown: ${await page.inputValue('#ledger')}`);
    // And the slip form offers the accounts too
    check((await page.locator('#slip-account option').count()) >= 2, 'the slip form\'s accounts');
    await accessible(page, 'the quick entry reloaded offline');
    await shot(page, 'offline-quick-390');

    // When an expense is entered in three taps
    await page.fill('#quick-amount', '480');
    await page.click('#quick-chips .chip >> text=交通費');
    await page.click('#quick-submit');
    // Then it waits
    await until('what waits', () => page.innerText('#outbox-text'), '送信待ち 1件（オフライン: 接続が戻ると送ります）');
    // When the connection returns
    await context.setOffline(false);
    // Then it goes out once, to the shared ledger, as that expense of that day on that account; nothing to the personal ledger
    await until('nothing waits', () => page.isVisible('#outbox'), false);
    const day = async (path) => (await api('GET', `${path}?from=2026-11-20&to=2026-11-20`)).data.items.map((s) => [s.date, s.amount, s.category, s.account]);
    await until('recorded in the shared ledger', () => day(`/ledgers/${L}/slips`), [['2026-11-20', 480, '交通費', 'card']]);
    check(JSON.stringify(await day('/slips')) === '[]', `the personal ledger: ${JSON.stringify(await day('/slips'))}`);
    await context.close();
  });
});
