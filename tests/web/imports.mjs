// CSV 取込 of a card's statement in a real browser (Debian's Chromium, headless, driven by
// playwright-core) against the local front, at 390 px: 楽天カード's e-NAVI download (the sample of
// tests/samples/statements) chosen onto the ledger's card, its dry run naming the format and showing
// each row, the lines skipped and the check against the card's statement, then imported, and the
// slips read back through the API; MyJCB's Shift_JIS download recognised as sent (its bytes
// untouched); a file of no known layout refused with the API's 422 naming what it resembles.
// axe-core finds nothing serious or critical; nothing is wider than the phone.
//
//   node tests/web/imports.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_scripts.py runs it against a fresh front.

import { readFileSync } from 'node:fs';

import { harness } from './harness.mjs';

const { check, step, until, api, shot, accessible, openPage, run } = await harness('imports');

const SAMPLES = new URL('../samples/statements/', import.meta.url);
const sample = (name) => readFileSync(new URL(name, SAMPLES));

/** Nothing of the page is wider than the phone. */
async function fits(page, where) {
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(widths[0] <= widths[1], `${where}: the page is ${widths[0]}px wide in a window of ${widths[1]}`);
}

const text = (page, selector) => page.locator(selector).innerText();
const rowsOf = (page, table) => page.locator(`${table} tbody tr`).count();

await run(async () => {
  // Given a wallet, a bank account and a 楽天カード card paid from it (closing at the month's end, paid on the 27th)
  const wallet = await api('POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 5000 });
  check(wallet.status === 201, `wallet: ${wallet.status}`);
  const bank = await api('POST', '/accounts', { id: 'bank', name: '楽天銀行', type: 'bank', opening_balance: 100000 });
  check(bank.status === 201, `bank: ${bank.status}`);
  const card = await api('POST', '/accounts', {
    id: 'card', name: '楽天カード', type: 'credit', allow_negative: true,
    billing: { closing_day: 'last', payment_day: 27, pay_from: 'bank' },
  });
  check(card.status === 201, `card: ${card.status} ${JSON.stringify(card.data)}`);
  const { context, page } = await openPage({ width: 390, height: 844 }, '#/slips/2026-11');

  await step('a 楽天カード statement checked on the card: its format, each row, the lines skipped, the card check (390 px)', async () => {
    // When the e-NAVI download is chosen onto the card and checked first
    await until('the card offered', () => page.locator('#import-account option[value="card"]').count(), 1);
    check((await page.locator('#import-account option[value="wallet"]').count()) === 0, 'only cards and banks offered');
    await page.selectOption('#import-account', 'card');
    await until('no accounts to create for a statement', () => page.isVisible('#import-create-accounts'), false);
    await page.setInputFiles('#import-file', { name: 'enavi202612.csv', mimeType: 'text/csv', buffer: sample('rakuten_card.csv') });
    await page.click('#import-preview');
    // Then the format is named as GET /imports/formats lists it, onto the card, with nothing written yet
    await until('the format said', async () => (await text(page, '#import-dry-summary')).includes('楽天カード（楽天e-NAVI ご利用明細） → 楽天カード'), true);
    check((await text(page, '#import-dry-summary')).includes('追加 6 件'), `summary: ${await text(page, '#import-dry-summary')}`);
    // And each of the six rows says what it becomes: the date, the kind and the issuer's payee, the amount
    await until('six rows', () => rowsOf(page, '#import-dry-rows'), 6);
    const maruetsu = page.locator('#import-dry-rows tbody tr').filter({ hasText: 'ｽｰﾊﾟｰ ﾏﾙｴﾂ' });
    const cells = await maruetsu.locator('td').allInnerTexts();
    check(cells[0] === '7' && cells[1] === '追加' && cells[2] === '2026-11-10', `the row: ${JSON.stringify(cells)}`);
    check(cells[3] === '支出 ｽｰﾊﾟｰ ﾏﾙｴﾂ' && cells[4].includes('2,480'), `the row: ${JSON.stringify(cells)}`);
    const refund = await page.locator('#import-dry-rows tbody tr').filter({ hasText: '収入 AMAZON.CO.JP' }).count();
    check(refund === 1, 'the cancelled purchase is a refund');
    const netflix = await page.locator('#import-dry-rows tbody tr').filter({ hasText: 'NETFLIX' }).innerText();
    check(netflix.includes('現地通貨 USD 9.99'), `the local amount kept: ${netflix}`);
    // And the header, the 現地利用額 note, the blank line and the cancellations' heading are listed as skipped
    await until('skipped lines', () => rowsOf(page, '#import-dry-skipped'), 4);
    const skipped = await page.locator('#import-dry-skipped tbody tr td:nth-child(2)').allInnerTexts();
    check(JSON.stringify(skipped) === JSON.stringify(['見出し行', '注記', '空行', '区切り']), `skipped: ${JSON.stringify(skipped)}`);
    // And the file is checked against the card's statement: the ledger holds none of it yet
    const checked = await text(page, '#import-dry-check');
    check(/支払い分.*ファイルの合計 .*家計簿の請求額 ￥0 — .*違います/.test(checked), `the check: ${checked}`);
    check((await rowsOf(page, '#import-dry-differences')) > 0, 'the rows that differ are listed');
    check(!(await page.isVisible('#import-dry-payments')), 'a card file pays no card');
    check((await api('GET', '/slips?account=card')).data.items.length === 0, 'the dry run wrote nothing');
    await fits(page, 'the dry run');
    await shot(page, 'imports-dry-run-390');
    await accessible(page, 'the statement dry run');
  });

  await step('imported on confirmation: the six slips are on the card, the card check said with the result', async () => {
    // When the person imports what was checked
    await page.click('#import-commit');
    // Then it is said, and the slips are there, dated by their 利用日, the issuer's payee their payee
    await until('imported', async () => (await page.isVisible('#import-summary')) && (await text(page, '#import-summary')).includes('6 件を追加'), true);
    const slips = (await api('GET', '/slips?account=card&limit=100')).data.items;
    const got = slips.map((s) => [s.date, s.kind, s.amount, s.payee]).sort((a, b) => a[0].localeCompare(b[0]) || a[2] - b[2]);
    check(JSON.stringify(got) === JSON.stringify([
      ['2026-09-15', 'expense', 22000, 'ビックカメラ\u3000有楽町店'],
      ['2026-10-28', 'expense', 1051, 'ローソン\u3000銀座店'],
      ['2026-11-03', 'expense', 3980, 'AMAZON.CO.JP'],
      ['2026-11-05', 'expense', 1590, 'NETFLIX.COM利用国USA'],
      ['2026-11-10', 'expense', 2480, 'ｽｰﾊﾟｰ ﾏﾙｴﾂ'],
      ['2026-11-12', 'income', 1200, 'AMAZON.CO.JP'],
    ]), `slips: ${JSON.stringify(got)}`);
    const balance = (await api('GET', '/balances')).data.items.find((b) => b.account === 'card')?.balance;
    check(balance === -29901, `the card's balance: ${balance}`);
    // And the card's statement check is said with the result
    await until('the check after the import', async () => (await text(page, '#import-check')).includes('家計簿の請求額'), true);
    await fits(page, 'the import');
    await shot(page, 'imports-done-390');
    await accessible(page, 'the statement imported');
  });

  await step("MyJCB's Shift_JIS download is recognised as sent; the same 楽天カード file again adds nothing", async () => {
    // When MyJCB's file (Shift_JIS, sent as its bytes) is checked on the card
    await page.setInputFiles('#import-file', { name: 'meisai.csv', mimeType: 'text/csv', buffer: sample('jcb.csv') });
    await page.click('#import-preview');
    // Then its format is named: the page did not decode it
    await until('JCB recognised', async () => /JCB.* → 楽天カード/.test(await text(page, '#import-dry-summary')), true);
    // When the 楽天カード file is checked again, Then every row is already imported
    await page.setInputFiles('#import-file', { name: 'enavi202612.csv', mimeType: 'text/csv', buffer: sample('rakuten_card.csv') });
    await page.click('#import-preview');
    await until('all imported before', async () => (await text(page, '#import-dry-summary')).includes('取込済み 6 件'), true);
    await until('six rows imported before', () => page.locator('#import-dry-rows tbody tr.import-duplicate').count(), 6);
    check(!(await page.isVisible('#import-commit')), 'nothing to import: no button to');
    await accessible(page, 'a file imported before');
  });

  await step('a file of no known layout is refused as the page shows every problem, naming what it resembles', async () => {
    // When a bank file that lacks the amount columns of 住信SBI's download is checked on the bank
    await page.selectOption('#import-account', 'bank');
    await page.setInputFiles('#import-file', { name: 'odd.csv', mimeType: 'text/csv', buffer: Buffer.from('日付,内容,金額\n2026/11/01,コンビニ,-500\n') });
    await page.click('#import-preview');
    // Then the API's 422 is shown in the page's language, naming the layout it resembles
    await until('refused', async () => (await page.isVisible('#error')) && (await text(page, '#error')).includes('似ている形式: 住信SBIネット銀行'), true);
    check((await api('GET', '/slips?account=bank')).data.items.length === 0, 'nothing written on the bank');
    await fits(page, 'the refusal');
    await accessible(page, 'the refusal');
    await context.close();
  });
});
