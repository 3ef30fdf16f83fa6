// Signing in, in a real browser (Debian's Chromium, headless, driven by playwright-core) at 390 px,
// against a strict local front (LOCAL_AUTH=strict: no `Bearer <name>`, only the user pool's tokens):
// a new person signs up, types the emailed code (a wrong one first: refused in their words), is
// signed in with SRP (USER_SRP_AUTH: no password in any request), records an expense, is still signed
// in after a reload, signs out (RevokeToken: the refresh token renews nothing, nothing of theirs left
// in storage); then someone new opens an invitation link, signs up, confirms and lands on the
// invitation. axe-core finds nothing serious or critical on the sign-in forms.
//
//   KAKEIBO_CODES=DATA_DIR/confirmation-codes.txt node tests/web/signin.mjs --url http://127.0.0.1:3000
//
// The codes file is where the local user pool writes the codes it would email (kakeibo.local.moto_server).
// tests/api/test_web.py runs it against a strict front of its own.

import { readFileSync } from 'node:fs';

import { harness } from './harness.mjs';

const { BASE, check, step, until, shot, accessible, openPage, run } = await harness('signin');
const CODES = process.env.KAKEIBO_CODES;
const PASSWORD = 'Kakeibo-Passw0rd-Long';
const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** The last code of `kind` the pool wrote for `email`, or null. */
function codeFor(email, kind = 'confirmation') {
  let found = null;
  let text = '';
  try {
    text = readFileSync(CODES, 'utf-8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    const match = /^(confirmation|password reset) code for (\S+): (\d{6})$/.exec(line);
    if (match && match[1] === kind && match[2] === email) found = match[3];
  }
  return found;
}

const config = await (await fetch(`${BASE}/config.json`)).json();

/** One call of the pool's API, as the page makes it. */
async function idp(op, body) {
  const response = await fetch(config.cognito_endpoint, {
    method: 'POST',
    headers: { 'X-Amz-Target': `AWSCognitoIdentityProviderService.${op}`, 'Content-Type': 'application/x-amz-json-1.1' },
    body: JSON.stringify(body),
  });
  return { status: response.status, data: await response.json() };
}

async function call(token, method, path, body) {
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, data: text ? JSON.parse(text) : null };
}

/** What the page asked of the user pool: each operation, and every body it sent. */
function watchPool(page) {
  const seen = [];
  page.on('request', (request) => {
    const target = request.headers()['x-amz-target'];
    if (target) seen.push({ op: target.split('.').pop(), body: request.postData() ?? '' });
  });
  return seen;
}

const stored = (page) => page.evaluate(() => Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)])));

/** Sign up `email` on the page shown, type a code, and wait until the page is theirs. */
async function signUp(page, email, { wrongFirst = false } = {}) {
  await page.click('#signup-open');
  await page.fill('#signup-email', email);
  await page.fill('#signup-password', PASSWORD);
  await page.click('#signup-submit');
  await until('the code asked for', () => page.isVisible('#confirm-form'), true);
  const code = await until('the code written by the pool', () => codeFor(email) !== null, true).then(() => codeFor(email));
  if (wrongFirst) {
    await page.fill('#confirm-code', code === '000000' ? '111111' : '000000');
    await page.click('#confirm-submit');
    await until('a wrong code refused in Japanese', () => page.innerText('#error'), 'コードが違います。メールを確かめて、もう一度入力してください');
    check((await page.getAttribute('#confirm-code', 'aria-invalid')) === 'true', 'the code field is marked');
  }
  await page.fill('#confirm-code', code);
  await page.click('#confirm-submit');
  await until('signed in', () => page.evaluate(() => document.body.dataset.auth), 'in');
  await until('the header names them', () => page.innerText('#who'), email);
}

await run(async () => {
  check(Boolean(CODES), 'KAKEIBO_CODES names the local pool\'s codes file');
  check(config.local_names === false, `a strict front: ${JSON.stringify(config)}`);
  const hanako = `hanako-${stamp}@example.com`;
  let page;
  let context;
  let pool;
  let sub;

  await step('a new person signs up, a wrong code is refused, the right one signs them in with SRP (390 px)', async () => {
    ({ context, page } = await openPage({ width: 390, height: 844 }, '#/slips/2026-11'));
    pool = watchPool(page);
    // Nobody signed in: the sign-in panel alone, the ledger's views hidden
    await until('the sign-in panel', () => page.isVisible('#signin-form'), true);
    check(!(await page.isVisible('main')), 'the ledger is not shown to nobody');
    await accessible(page, 'the sign-in form');
    await page.click('#signup-open');
    await accessible(page, 'the sign-up form');
    await page.click('#signup-form button.back');
    // A weak password: the pool's policy, said at the field
    await page.click('#signup-open');
    await page.fill('#signup-email', hanako);
    await page.fill('#signup-password', 'short1A');
    await page.click('#signup-submit');
    await until('a weak password refused', () => page.innerText('#error'), 'パスワードが条件を満たしていません（12文字以上で、大文字・小文字・数字を含めてください）');
    await page.click('#signup-form button.back');
    await signUp(page, hanako, { wrongFirst: true });
    await shot(page, 'signin-signed-in-390');
    const ops = pool.map((r) => r.op);
    check(JSON.stringify(ops) === JSON.stringify(['SignUp', 'SignUp', 'ConfirmSignUp', 'ConfirmSignUp', 'InitiateAuth', 'RespondToAuthChallenge']), `the pool was asked: ${ops}`);
    const start = JSON.parse(pool[4].body);
    check(start.AuthFlow === 'USER_SRP_AUTH' && /^[0-9a-f]{500,}$/.test(start.AuthParameters.SRP_A), `SRP: ${pool[4].body.slice(0, 200)}`);
    check(!pool.slice(4).some((r) => r.body.includes(PASSWORD)), 'the password never left the browser at sign-in');
    check(JSON.parse(pool[5].body).ChallengeResponses.PASSWORD_CLAIM_SIGNATURE.length === 44, 'a claim signature');
    const session = JSON.parse((await stored(page))['kakeibo.session']);
    sub = session.who.sub;
    check(session.who.email === hanako && session.tokens.refresh, `kept: ${JSON.stringify(session.who)}`);
  });

  await step('an expense recorded as them, still signed in after a reload', async () => {
    const { tokens } = JSON.parse((await stored(page))['kakeibo.session']);
    const made = await call(tokens.id, 'POST', '/accounts', { id: 'wallet', name: '財布', type: 'cash', opening_balance: 10000 });
    check(made.status === 201, `account: ${made.status}`);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    check((await page.evaluate(() => document.body.dataset.auth)) === 'in', 'still signed in after the reload');
    await until('the account offered', () => page.locator('#slip-account option[value="wallet"]').count(), 1);
    await page.fill('#slip-date', '2026-11-05');
    await page.fill('#slip-amount', '1200');
    await page.selectOption('#slip-account', 'wallet');
    await page.fill('#slip-category', '食費');
    await page.fill('#slip-memo', 'サインインして記録');
    await page.click('#slip-submit');
    await until('the slip listed', () => page.locator('#slip-rows tr', { hasText: 'サインインして記録' }).count(), 1);
    const slips = await call(tokens.id, 'GET', '/slips?from=2026-11-01&to=2026-11-30');
    const mine = slips.data.items.map((s) => [s.amount, s.memo, s.created_by]);
    check(JSON.stringify(mine) === JSON.stringify([[1200, 'サインインして記録', sub]]), `the ledger: ${JSON.stringify(mine)}`);
  });

  let oldTokens;
  await step('sign-out revokes the refresh token and leaves nothing of them in the browser', async () => {
    oldTokens = JSON.parse((await stored(page))['kakeibo.session']).tokens;
    await page.click('#settings summary');
    await until('their email under 接続', () => page.innerText('#account-email'), hanako);
    await accessible(page, 'the signed-in connection panel');
    await page.click('#signout');
    await until('the sign-in panel again', () => page.isVisible('#signin-form'), true);
    await until('said', () => page.innerText('#signin-note'), 'サインアウトしました。このブラウザーにはあなたのデータもトークンも残っていません');
    check(pool.at(-1).op === 'RevokeToken', `last asked: ${pool.at(-1).op}`);
    const left = Object.keys(await stored(page)).filter((k) => k.startsWith('kakeibo.session') || k.startsWith('kakeibo.kept') || k.startsWith('kakeibo.quick') || k === 'kakeibo.ledger');
    check(left.length === 0, `left in storage: ${left}`);
    check(!(await page.isVisible('main')), 'the ledger is hidden again');
    check((await page.locator('#slip-rows tr').count()) === 0, 'no slip of theirs left on the page');
    const renewed = await idp('InitiateAuth', { AuthFlow: 'REFRESH_TOKEN_AUTH', ClientId: config.client_id, AuthParameters: { REFRESH_TOKEN: oldTokens.refresh } });
    check(renewed.status === 400 && renewed.data.__type === 'NotAuthorizedException', `the revoked refresh token: ${JSON.stringify(renewed)}`);
    check((await call(null, 'GET', '/accounts')).status === 401, 'no token: 401');
    check((await call('hanako', 'GET', '/accounts')).status !== 200, 'no `Bearer <name>` on a strict front');
    await shot(page, 'signin-signed-out-390');
    await context.close();
  });

  await step('an invitation opened by someone new: sign up, confirm, back at the invitation, joined', async () => {
    // Given Hanako's shared ledger and an invitation to it (her ID token still valid for its hour)
    const ledger = await call(oldTokens.id, 'POST', '/ledgers', { name: '山田家' });
    check(ledger.status === 201, `ledger: ${ledger.status}`);
    const invitation = await call(oldTokens.id, 'POST', `/ledgers/${ledger.data.id}/invitations`, { role: 'editor' });
    check(invitation.status === 201, `invitation: ${invitation.status}`);
    // When Taro, who has no account, opens the link
    const taro = `taro-${stamp}@example.com`;
    const opened = await openPage({ width: 390, height: 844 }, `#invite=${invitation.data.token}`);
    const other = opened.page;
    await until('told why to sign in', () => other.innerText('#signin-note'), '共有の家計簿に招待されています。参加するには、サインインするかアカウントを作ってください（確認のあと招待に戻ります）');
    await signUp(other, taro);
    // Then the invitation is offered once he is in, and joining takes one tap
    await until('the invitation offered', () => other.inputValue('#accept-token'), invitation.data.token);
    check((await other.evaluate(() => document.body.dataset.route)) === 'household', 'on the household view');
    await other.click('#accept-submit');
    await until('joined', () => other.innerText('#status'), '「山田家」に編集者として参加しました');
    await shot(other, 'signin-invited-390');
    const members = await call(oldTokens.id, 'GET', `/ledgers/${ledger.data.id}`);
    check(members.data.members.length === 2, `members: ${JSON.stringify(members.data.members)}`);
    await opened.context.close();
  });
});
