// Accounts in other units in a real browser (Debian's Chromium, headless, driven by playwright-core)
// at 390 px: a USD account and a points account made on the accounts view (a unit the API refuses
// shown at its field), a dollar expense typed in dollars with its yen, yen changed into dollars
// (受取額), points earned with an expiry and edited, and the points about to lapse under their
// account. axe-core finds nothing serious or critical.
//
//   node tests/web/units.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_scripts.py runs it against a strict front (the user pool's tokens only).

import { harness } from './harness.mjs';
import { openRoute } from './routing.mjs';

const { check, step, until, api, shot, accessible, openPage, run } = await harness('units');

/** A day `days` after today in the ledgers' time zone (Asia/Tokyo), as YYYY-MM-DD. */
function tokyoDay(days = 0) {
  const now = new Date(Date.now() + days * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Tokyo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** The slip of `account` dated `date`, as the API has it. */
async function slipOf(account, date) {
  const { data } = await api('GET', `/slips?from=${date}&to=${date}`);
  return (data?.items ?? []).find((s) => s.account === account) ?? null;
}

await run(async () => {
  const day = tokyoDay();
  const expires = tokyoDay(10);
  const { context, page } = await openPage({ width: 390, height: 844 });

  await step('a dollar account and a points account are made; a unit the API refuses is shown at its field', async () => {
    // Given a new person on the accounts view, its add form open (no account yet)
    await openRoute(page, 'accounts');
    await until('the add form open', () => page.isVisible('#account-form'), true);
    // When an account in a currency that is not ISO 4217 is asked for
    await page.fill('#account-id', 'usd');
    await page.fill('#account-name', 'ドル口座');
    await page.selectOption('#account-unit', 'currency');
    await page.fill('#account-currency', 'abc');
    await page.click('#account-submit');
    // Then the API's 422 is shown at the currency code, and nothing was made
    await until('the code marked', () => page.getAttribute('#account-currency', 'aria-invalid'), 'true');
    check((await page.innerText('#error')).length > 0, 'the error said');
    check((await api('GET', '/accounts')).data.items.length === 0, 'nothing made');
    // When the code is corrected (in lower case) with an opening balance in dollars
    await page.fill('#account-currency', 'usd');
    await until('the opening in dollars', () => page.innerText('#account-opening-label'), '開始残高（USD）');
    await page.fill('#account-opening', '100.50');
    await page.click('#account-submit');
    await until('the dollar account listed', () => page.locator('#balance-rows tr[data-account="usd"] td.current').innerText(), '$100.50');
    // And a points account with its value and program
    if (!(await page.isVisible('#account-form'))) await page.click('#account-details summary'); // closed after the first
    await until('the add form open again', () => page.isVisible('#account-form'), true);
    await page.fill('#account-id', 'rakuten');
    await page.fill('#account-name', '楽天');
    await page.selectOption('#account-type', 'other');
    await page.selectOption('#account-unit', 'points');
    await page.fill('#account-point-value', '1');
    await page.fill('#account-program', '楽天ポイント');
    await page.click('#account-submit');
    await until('the points account listed', () => page.locator('#balance-rows tr[data-account="rakuten"] td.current').innerText(), '0 pt');
    // And a wallet in yen, the unit when none is chosen
    if (!(await page.isVisible('#account-form'))) await page.click('#account-details summary'); // closed after the first
    await until('the add form open once more', () => page.isVisible('#account-form'), true);
    await page.fill('#account-id', 'wallet');
    await page.fill('#account-name', '財布');
    await page.fill('#account-opening', '5000');
    await page.click('#account-submit');
    await until('the wallet listed', () => page.locator('#balance-rows tr[data-account="wallet"] td.current').innerText(), '￥5,000');
    // Then the API has them in their units
    const accounts = Object.fromEntries((await api('GET', '/accounts')).data.items.map((a) => [a.id, a]));
    check(accounts.usd.unit === 'USD' && accounts.usd.balance === 10050, `usd: ${JSON.stringify(accounts.usd)}`);
    check(accounts.rakuten.unit === 'points' && accounts.rakuten.point_value === 1 && accounts.rakuten.program === '楽天ポイント', `rakuten: ${JSON.stringify(accounts.rakuten)}`);
  });

  await step('a dollar expense is typed in dollars with its yen, a transfer into dollars with what arrived; points are earned with an expiry', async () => {
    // Given the slip form
    await openRoute(page, 'slips');
    await page.fill('#slip-date', day);
    await page.selectOption('#slip-kind', 'expense');
    await page.selectOption('#slip-account', 'usd');
    // Then it asks for the amount in dollars and for its yen
    await until('the amount in dollars', () => page.innerText('#slip-amount-label'), '金額（USD）');
    check(await page.isVisible('#slip-jpy-amount'), '円換算 shown');
    // When 12.34 is typed without its yen, the form says so at 円換算 and sends nothing
    await page.fill('#slip-amount', '12.34');
    await page.fill('#slip-category', '食費');
    await page.click('#slip-submit');
    await until('円換算 marked', () => page.getAttribute('#slip-jpy-amount', 'aria-invalid'), 'true');
    check((await slipOf('usd', day)) === null, 'nothing sent');
    // When its yen is given
    await page.fill('#slip-jpy-amount', '1850');
    await page.click('#slip-submit');
    // Then the API has the amount in cents and the yen; the list shows dollars
    await until('the dollar slip', async () => {
      const slip = await slipOf('usd', day);
      return slip && [slip.amount, slip.jpy_amount];
    }, [1234, 1850]);
    await until('the list in dollars', async () => (await page.locator('#slip-rows td.amount').allInnerTexts()).join('|'), '-$12.34（￥1,850）');
    await until('the form done saving', () => page.getAttribute('#slip-form', 'aria-busy'), null);
    // When yen are changed into dollars: a transfer from the wallet asks what arrived, in dollars
    await page.selectOption('#slip-kind', 'transfer');
    await page.selectOption('#slip-account', 'wallet');
    await page.selectOption('#slip-to-account', 'usd');
    await until('受取額 in dollars', () => page.innerText('#slip-to-amount-label'), '受取額（USD）');
    check(await page.isHidden('#slip-jpy-amount'), 'no 円換算 on a transfer');
    await page.fill('#slip-amount', '1500');
    await page.fill('#slip-to-amount', '10');
    await page.click('#slip-submit');
    await until('the transfer', async () => {
      const slip = await slipOf('wallet', day);
      return slip && [slip.amount, slip.to_account, slip.to_amount];
    }, [1500, 'usd', 1000]);
    await until('the form done saving', () => page.getAttribute('#slip-form', 'aria-busy'), null);
    // When 120 points are earned that expire in ten days
    await page.selectOption('#slip-kind', 'income');
    await page.selectOption('#slip-account', 'rakuten');
    check(await page.isHidden('#slip-jpy-amount'), 'no 円換算 for points');
    await until('有効期限 shown', () => page.isVisible('#slip-expires-on'), true);
    await page.fill('#slip-amount', '120');
    await page.fill('#slip-category', 'ポイント獲得');
    await page.fill('#slip-expires-on', expires);
    await page.click('#slip-submit');
    // Then the API has the lot with its expiry
    await until('the points slip', async () => {
      const slip = await slipOf('rakuten', day);
      return slip ? [slip.amount, slip.expires_on] : [await page.innerText('#error'), await page.inputValue('#slip-date'), await page.inputValue('#slip-kind')];
    }, [120, expires]);
    // When the points slip is edited to 150 points
    await until('the points slip listed', () => page.locator('#slip-rows tr', { hasText: '+120 pt' }).count(), 1);
    await page.locator('#slip-rows tr', { hasText: '+120 pt' }).locator('button.edit').click();
    await until('its amount in the form', () => page.inputValue('#slip-amount'), '120');
    check((await page.inputValue('#slip-expires-on')) === expires, 'its expiry in the form');
    await page.fill('#slip-amount', '150');
    await page.click('#slip-submit');
    // Then the API has 150 points with the same expiry (and their yen, made by the API)
    await until('the points slip edited', async () => {
      const slip = await slipOf('rakuten', day);
      return slip ? [slip.amount, slip.expires_on, slip.jpy_amount] : null;
    }, [150, expires, 150]);
    await until('the form done saving', () => page.getAttribute('#slip-form', 'aria-busy'), null);
    await accessible(page, 'the slip form of a points account');
    await shot(page, 'units-slips-390');
  });

  await step('the points about to lapse are shown under their account', async () => {
    // When the accounts view is opened
    await openRoute(page, 'accounts');
    // Then under 楽天: 150 pt lapse at the end of their last day
    const label = `${Number(expires.slice(5, 7))}/${Number(expires.slice(8))}`;
    await until('the lapse line', async () => {
      const text = await page.locator('#balance-rows tr[data-account="rakuten"] small.lapse').allInnerTexts();
      return text.length === 1 && text[0].startsWith(`150 pt が ${label}`) && text[0].endsWith('の終わりに失効');
    }, true);
    await until('the balance in points', () => page.locator('#balance-rows tr[data-account="rakuten"] td.current').innerText(), '150 pt');
    await accessible(page, 'the accounts view with points about to lapse');
    await shot(page, 'units-accounts-390');
  });

  await step('a dollar expense is split into lines in dollars; each account in another unit shows its yen', async () => {
    // Given the slip form on a dollar expense of $20.00 (¥3,000), dated yesterday
    const yesterday = tokyoDay(-1);
    await openRoute(page, 'slips');
    await page.fill('#slip-date', yesterday);
    await page.selectOption('#slip-kind', 'expense');
    await page.selectOption('#slip-account', 'usd');
    await page.fill('#slip-amount', '20.00');
    await page.fill('#slip-jpy-amount', '3000');
    await page.fill('#slip-category', '食費');
    // When it is split: $12.50 of food and $7.50 of daily goods, typed in dollars
    await page.click('#slip-split');
    await until('two lines', () => page.locator('#slip-line-rows li').count(), 2);
    check((await page.getAttribute('#slip-line-rows li:first-child .line-amount', 'aria-label')).endsWith('（USD）'), 'the lines in dollars');
    await page.fill('#slip-line-rows li:nth-child(1) .line-amount', '12.50');
    await page.fill('#slip-line-rows li:nth-child(2) .line-amount', '7.50');
    await page.fill('#slip-line-rows li:nth-child(2) .line-category', '日用品');
    await until('nothing left', () => page.innerText('#slip-lines-left'), '合計は金額と一致しています');
    await page.click('#slip-submit');
    // Then the API has the lines in cents and the whole slip's yen
    await until('the split slip', async () => {
      const slip = await slipOf('usd', yesterday);
      return slip ? [slip.amount, slip.jpy_amount, slip.lines?.map((l) => [l.amount, l.category])] : await page.innerText('#error');
    }, [2000, 3000, [[1250, '食費'], [750, '日用品']]]);
    await until('the lines listed in dollars', () => page.locator('#slip-rows tr', { hasText: '日用品 $7.50' }).count(), 1);
    await until('the form done saving', () => page.getAttribute('#slip-form', 'aria-busy'), null);
    // When the accounts view is opened
    await openRoute(page, 'accounts');
    // Then the dollars are in yen at the rate of their latest slip, and the points at their value
    await until('the dollars in yen', async () => {
      const text = await page.locator('#balance-rows tr[data-account="usd"] small.jpy-value').allInnerTexts();
      return text.length === 1 && text[0].startsWith('円換算 ￥') && text[0].endsWith('の伝票のレート）');
    }, true);
    await until('the points in yen', () => page.locator('#balance-rows tr[data-account="rakuten"] small.jpy-value').innerText(), '円換算 ￥150');
    check((await page.locator('#balance-rows tr[data-account="wallet"] small.jpy-value').count()) === 0, 'no yen line for yen');
    await accessible(page, 'the accounts view with the yen of each unit');
  });

  await context.close();
});
