// 自動分類 in a real browser (Debian's Chromium, headless, driven by playwright-core) against the local
// front, at 390 px: 「この店はいつも○○」 from a slip being edited makes a payee rule; the preview says
// how many slips it would change, apply changes them and offers 取り消す, which takes them back; a rule
// suggested by the household's own corrections is made with one tap. axe-core finds nothing serious
// or critical.
//
//   node tests/web/rules.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_scripts.py runs it against a strict front (the user pool's tokens only).

import { harness } from './harness.mjs';
import { openRoute } from './routing.mjs';

const { check, step, until, api, shot, accessible, openPage, run } = await harness('rules');

const slipsOf = async () => (await api('GET', '/slips?from=2026-11-01&to=2026-11-30')).data.items;
const slipBy = async (date) => (await slipsOf()).find((s) => s.date === date);

await run(async () => {
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
});
