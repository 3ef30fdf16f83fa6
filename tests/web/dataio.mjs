// データの書き出し and 自分のデータを削除 in a real browser (Debian's Chromium, headless, driven by
// playwright-core) against the local front: the export is built and offered for download, its
// progress said; deleting one's own data asks for a typed phrase, is refused while the person is the
// only owner of a shared ledger others are in (the page lists it), and once that ledger has another
// owner deletes everything of theirs. axe-core finds nothing serious or critical.
//
//   node tests/web/dataio.mjs --url http://127.0.0.1:3000 --user someone --out test-output/web
//
// Prints one JSON line per step and a final JSON summary; exits 0 only if every step passed.
// tests/api/test_web_scripts.py runs it against a strict front (the user pool's tokens only).

import { harness } from './harness.mjs';
import { openRoute } from './routing.mjs';

const { args, BASE, check, step, until, api, auth, subOf, shot, accessible, openPage, run } = await harness('dataio');

await run(async () => {
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
    const taro = await subOf(`${args.user}-taro`);
    const made = await api('POST', '/ledgers', { name: '山田家' });
    check(made.status === 201, `ledger: ${made.status}`);
    const ledger = made.data.id;
    const invited = await api('POST', `/ledgers/${ledger}/invitations`, { role: 'editor' });
    const accepted = await fetch(`${BASE}/invitations/${invited.data.token}/accept`, { method: 'POST', headers: await auth(`${args.user}-taro`) });
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
    // Then the page says it is done; the person's data is gone, their own ledger answers 404, and they are in no ledger
    await until('done', async () => (await page.innerText('#me-delete-progress')).startsWith('削除しました'), true);
    check(await page.isHidden('#me-delete-blocked'), 'the refusal is no longer shown');
    check((await api('GET', '/accounts')).status === 404, 'the wallet is gone: the personal ledger answers 404');
    check(JSON.stringify((await api('GET', '/ledgers')).data.items.map((l) => l.id)) === '[]', 'in no ledger at all');
    check((await api('POST', '/slips', { date: '2026-11-04', kind: 'expense', amount: 1, account: 'wallet' })).status === 404, 'no new slip');
    await shot(page, 'me-deleted-390');
    await context.close();
  });
});
