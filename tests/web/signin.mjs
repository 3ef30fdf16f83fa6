// Signing in, in a real browser (Debian's Chromium, headless, driven by playwright-core) at 390 px,
// against a strict local front (LOCAL_AUTH=strict: no `Bearer <name>`, only the user pool's tokens):
// a new person signs up, types the emailed code (a wrong one first: refused in their words), is
// signed in with SRP (USER_SRP_AUTH: no password in any request), records an expense, is still signed
// in after a reload, signs out (RevokeToken: the refresh token renews nothing, nothing of theirs left
// in storage); then someone new opens an invitation link, signs up, confirms and lands on the
// invitation. axe-core finds nothing serious or critical on the sign-in forms. Then, in a browser
// whose clock is moved on past the ID token's expiry (a context of its own: its clock never leaks),
// the token is renewed without a prompt; a slip written without a connection waits while the refresh
// is refused and while the user pool cannot be reached (said in words); a wrong password, answered
// with the pool's own refusal, is said in words; signed in again, the slip goes out. Last, two-step
// verification: turned on under 接続 with a code computed from the key the page shows (RFC 6238), a
// wrong code refused at the next sign-in, the right one signing in.
//
//   KAKEIBO_CODES=DATA_DIR/confirmation-codes.txt node tests/web/signin.mjs --url http://127.0.0.1:3000
//
// The codes file is where the local user pool writes the codes it would email (kakeibo.local.moto_server).
// tests/api/test_web.py runs it against a strict front, as every browser script of tests/web.

import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { claimsOf } from '../../web/auth.js';
import { WAIT, harness } from './harness.mjs';
import { settled } from './routing.mjs';

const { BASE, check, step, until, shot, accessible, openPage: open, run } = await harness('signin');
/** A page of nobody signed in yet (each step signs someone in as a person does). */
const openPage = (size, hash, clock = null) => open(size, hash, clock, { user: null });
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

/** RFC 6238's code (HMAC-SHA1, 30 s, 6 digits) of the base32 `secret` at `ms`. */
function totp(secret, ms = Date.now()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.toUpperCase().replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(ms / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const at = mac[19] & 0xf;
  return String((mac.readUInt32BE(at) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** A code good for a while yet: waits while the current 30 s step has less than 5 s left. */
async function freshTotp(secret) {
  await until('a TOTP step with time left', () => Date.now() % 30_000 < 25_000, true);
  return totp(secret);
}

/**
 * The app's current code typed in `field` and sent with `submit`, as a person does: the pool takes
 * only the current 30 s step's code, so when it refused one whose step had ended by the time it
 * answered (a loaded machine), the new step's code is typed again. How many codes it sent.
 */
async function typeCurrentCode(page, secret, field, submit) {
  for (let attempt = 1; ; attempt += 1) {
    const code = await freshTotp(secret);
    const step = Math.floor(Date.now() / 30_000);
    await page.fill(field, code);
    const carries = (r) => /\.(VerifySoftwareToken|RespondToAuthChallenge)$/.test(r.request().headers()['x-amz-target'] ?? '') && (r.request().postData() ?? '').includes(`"${code}"`);
    const [answer] = await Promise.all([page.waitForResponse(carries, { timeout: WAIT }), page.click(submit)]);
    if (answer.ok() || attempt === 3 || Math.floor(Date.now() / 30_000) === step) return attempt;
  }
}

const WAITING = '11/6(金) 食費 ￥300'; // how the outbox names the slip that waits (tests/web/signin.mjs' second slip)
const otherThan = (code) => String((Number(code) + 500_000) % 1_000_000).padStart(6, '0');

const config = await (await fetch(`${BASE}/config.json`)).json();
const toPool = (url) => url.href.startsWith(config.cognito_endpoint);

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

/** Sign in with the form shown; `then`: what should follow ('in', or nothing to wait for). */
async function signInWith(page, email, then = 'in') {
  await page.fill('#signin-email', email);
  await page.fill('#signin-password', PASSWORD);
  // what main says at the moment the page becomes theirs (a MutationObserver's record of it)
  await page.evaluate(() => {
    window.busyWhenIn = undefined;
    window.authWatch?.disconnect(); // one left by a sign-in that was refused
    window.authWatch = new MutationObserver(() => {
      if (document.body.dataset.auth !== 'in') return;
      window.busyWhenIn = document.querySelector('main').getAttribute('aria-busy');
      window.authWatch.disconnect();
    });
    window.authWatch.observe(document.body, { attributes: true, attributeFilter: ['data-auth'] });
  });
  await page.click('#signin-submit');
  if (then !== 'in') return;
  await until('signed in', () => page.evaluate(() => document.body.dataset.auth), 'in');
  // their page says it is being read from the moment it shows, until every view has its data
  check((await page.evaluate(() => window.busyWhenIn)) === 'true', 'main busy as the page becomes theirs');
  await settled(page);
}

/** What the page said besides and what the pool was asked since `from` (pool.length then): a failure's context. */
const besides = (page, pool, from) => async () => `said: ${JSON.stringify(await page.innerText('#status'))}; the pool was asked: ${pool.slice(from).map((r) => r.op)}`;

/** 接続 opened, as a person taps it until it shows (a tap that did not take is tapped again; an open one is left open). */
async function openSettings(page) {
  await settled(page);
  const isOpen = () => page.evaluate(() => document.getElementById('settings').open);
  await until('接続 open', async () => {
    if (!(await isOpen())) await page.click('#settings summary');
    return isOpen();
  }, true);
}

/** The slips waiting in this browser's outbox (IndexedDB), their summaries. */
const queued = (page) =>
  page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('kakeibo', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('outbox', { keyPath: 'key' });
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('outbox', 'readonly').objectStore('outbox').getAll();
          all.onsuccess = () => resolve(all.result.map((e) => e.summary));
          all.onerror = () => reject(all.error);
        };
      }),
  );

/** No trace of code in what the page says: no exception's name, no stack frame. */
const plainWords = (text) => !/Exception|Error|\bat \S+:\d+|\.js\b|undefined/.test(text);

async function slip(page, memo, amount) {
  await page.fill('#slip-date', '2026-11-06');
  await page.fill('#slip-amount', String(amount));
  await page.selectOption('#slip-account', 'wallet');
  await page.fill('#slip-category', '食費');
  await page.fill('#slip-memo', memo);
  await page.click('#slip-submit');
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
    await openSettings(page);
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

  await step('past the ID token\'s expiry (the browser\'s clock moved on): renewed without a prompt', async () => {
    // A context of its own: its fixed clock is never the other steps'
    const now = Date.now();
    ({ context, page } = await openPage({ width: 390, height: 844 }, '#/slips/2026-11', now));
    pool = watchPool(page);
    await until('the sign-in panel', () => page.isVisible('#signin-form'), true);
    await signInWith(page, hanako);
    const before = JSON.parse((await stored(page))['kakeibo.session']).tokens;
    const exp = claimsOf(before.id).exp * 1000;
    check(exp > now, `the ID token expires after now: ${new Date(exp).toISOString()}`);
    // When the browser's clock says the token expired ten minutes ago and a slip is recorded
    await page.clock.setFixedTime(exp + 10 * 60_000);
    const asked = pool.length;
    await until('the account offered', () => page.locator('#slip-account option[value="wallet"]').count(), 1);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/slips'), { timeout: WAIT }),
      slip(page, '期限のあとの記録', 800),
    ]);
    // Then the page renewed the token itself (REFRESH_TOKEN_AUTH), sent the new one, and asked nothing
    check(response.status() === 201, `the slip: ${response.status()}`);
    const sent = (await response.request().headerValue('authorization')) ?? '';
    check(sent.startsWith('Bearer ') && sent !== `Bearer ${before.id}`, 'a renewed ID token sent, not the expired one');
    const renewals = pool.slice(asked).filter((r) => r.op === 'InitiateAuth' && JSON.parse(r.body).AuthFlow === 'REFRESH_TOKEN_AUTH');
    check(renewals.length >= 1, `renewed: ${pool.slice(asked).map((r) => r.op)}`);
    await until('the slip listed', () => page.locator('#slip-rows tr', { hasText: '期限のあとの記録' }).count(), 1);
    check(!(await page.isVisible('#signin-panel')), 'no sign-in asked for');
    check((await page.evaluate(() => document.body.dataset.auth)) === 'in', 'still signed in');
  });

  await step('a refused refresh, then the user pool not reachable: asked to sign in, told it cannot be now, the queued slip kept', async () => {
    // Given a slip written while the API cannot be reached: it waits in the outbox
    const noApi = (route) => (route.request().method() === 'POST' && new URL(route.request().url()).pathname.endsWith('/slips') ? route.abort('internetdisconnected') : route.fallback());
    await page.route(`${BASE}/**`, noApi);
    await slip(page, '送信待ちの記録', 300);
    await until('the slip waits in the outbox', () => queued(page), [WAITING]);
    // And the refresh token revoked (signed out elsewhere): the next renewal is refused
    const { tokens } = JSON.parse((await stored(page))['kakeibo.session']);
    const revoked = await idp('RevokeToken', { ClientId: config.client_id, Token: tokens.refresh });
    check(revoked.status === 200, `revoked: ${JSON.stringify(revoked)}`);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await until('asked to sign in again', () => page.isVisible('#signin-form'), true);
    await until('told why', () => page.innerText('#signin-note'), 'サインインの有効期限が切れました。もう一度サインインしてください（送信待ちの伝票はそのまま残っています）');
    check(JSON.stringify(await queued(page)) === JSON.stringify([WAITING]), 'the slip still waits');
    // When the user pool cannot be reached and they sign in
    await page.route(toPool, (route) => route.abort('connectionrefused'));
    await signInWith(page, hanako, null);
    // Then the page says it cannot sign in now, in words, and keeps what waits
    const said = await until('cannot sign in now', () => page.innerText('#error'), '今はサインインできません（ユーザープールに接続できません）。接続が戻ってからもう一度お試しください。送信待ちの伝票は残っています');
    check(plainWords(said), `no trace of code: ${said}`);
    check(await page.isVisible('#signin-form'), 'the sign-in form stays for another try');
    check(JSON.stringify(await queued(page)) === JSON.stringify([WAITING]), 'the slip still waits');
    await shot(page, 'signin-pool-down-390');
    await page.unroute(toPool);
  });

  await step('a wrong password: the pool\'s refusal said in their words; signed in, the queued slip goes out', async () => {
    // moto's SRP accepts any proof: the refusal is Cognito's own answer to the proof
    const refuse = async (route) => {
      if (route.request().method() !== 'POST' || route.request().headers()['x-amz-target'] !== 'AWSCognitoIdentityProviderService.RespondToAuthChallenge') return route.fallback();
      return route.fulfill({
        status: 400,
        headers: { 'Content-Type': 'application/x-amz-json-1.1', 'Access-Control-Allow-Origin': '*', 'x-amzn-ErrorType': 'NotAuthorizedException:' },
        body: JSON.stringify({ __type: 'NotAuthorizedException', message: 'Incorrect username or password.' }),
      });
    };
    await page.route(toPool, refuse);
    await signInWith(page, hanako, null);
    const said = await until('a wrong password refused', () => page.innerText('#error'), 'メールアドレスかパスワードが違います');
    check(plainWords(said), `no trace of code: ${said}`);
    check((await page.getAttribute('#signin-password', 'aria-invalid')) === 'true', 'the password field is marked');
    check(pool.at(-1).op === 'RespondToAuthChallenge', `refused at: ${pool.at(-1).op}`);
    check(JSON.stringify(await queued(page)) === JSON.stringify([WAITING]), 'the slip still waits');
    await page.unroute(toPool);
    await page.unroute(`${BASE}/**`);
    // When they sign in with the pool and the API back, the slip waiting goes out as them
    await signInWith(page, hanako);
    await until('the outbox emptied', () => queued(page), []);
    const { tokens } = JSON.parse((await stored(page))['kakeibo.session']);
    const slips = await call(tokens.id, 'GET', '/slips?from=2026-11-01&to=2026-11-30');
    const memos = slips.data.items.map((s) => s.memo).sort();
    check(JSON.stringify(memos) === JSON.stringify(['サインインして記録', '期限のあとの記録', '送信待ちの記録'].sort()), `the ledger: ${memos}`);
    await context.close();
  });

  await step('two-step verification: turned on with the code of the key shown, a wrong code refused, the right one signs in', async () => {
    ({ context, page } = await openPage({ width: 390, height: 844 }, '#/slips/2026-11'));
    pool = watchPool(page);
    await until('the sign-in panel', () => page.isVisible('#signin-form'), true);
    await signInWith(page, hanako);
    await openSettings(page);
    await until('off for now', () => page.innerText('#mfa-state'), '2段階認証: 無効');
    await page.click('#mfa-start');
    await until('the key shown', () => page.isVisible('#mfa-form'), true);
    const secret = (await page.innerText('#mfa-secret')).trim();
    check(/^[A-Za-z2-7]{8,}=*$/.test(secret), `a base32 key: ${secret}`);
    check((await page.getAttribute('#mfa-link', 'href')).includes(`secret=${secret}`), 'the otpauth link carries it');
    await accessible(page, 'turning two-step verification on');
    // A wrong code first: refused at the field
    await page.fill('#mfa-code', otherThan(await freshTotp(secret)));
    let from = pool.length;
    await page.click('#mfa-submit');
    await until('a wrong code refused', () => page.innerText('#error'), '認証アプリのコードが違います。アプリに今表示されている6桁を入力してください', WAIT, besides(page, pool, from));
    await typeCurrentCode(page, secret, '#mfa-code', '#mfa-submit');
    await until('on', () => page.innerText('#mfa-state'), '2段階認証: 有効（サインインのたびに認証アプリのコードを聞きます）');
    const ops = pool.map((r) => r.op);
    check(['AssociateSoftwareToken', 'VerifySoftwareToken', 'SetUserMFAPreference'].every((op) => ops.includes(op)), `asked: ${ops}`);
    await page.click('#signout');
    await until('signed out', () => page.isVisible('#signin-form'), true);
    // When they sign in again, the app's code is asked for
    await signInWith(page, hanako, null);
    await until('the code asked for', () => page.isVisible('#totp-form'), true);
    await accessible(page, 'the TOTP challenge');
    await page.fill('#totp-code', otherThan(await freshTotp(secret)));
    from = pool.length;
    await page.click('#totp-submit');
    const said = await until('a wrong code refused', () => page.innerText('#error'), '認証アプリのコードが違います。アプリに今表示されている6桁を入力してください', WAIT, besides(page, pool, from));
    check(plainWords(said), `no trace of code: ${said}`);
    check((await page.getAttribute('#totp-code', 'aria-invalid')) === 'true', 'the code field is marked');
    const sent = await typeCurrentCode(page, secret, '#totp-code', '#totp-submit');
    await until('signed in', () => page.evaluate(() => document.body.dataset.auth), 'in');
    await shot(page, 'signin-totp-390');
    const answers = pool.filter((r) => r.op === 'RespondToAuthChallenge').map((r) => JSON.parse(r.body));
    const mfa = answers.filter((a) => a.ChallengeName === 'SOFTWARE_TOKEN_MFA');
    check(mfa.length === 1 + sent && mfa.every((a) => /^\d{6}$/.test(a.ChallengeResponses.SOFTWARE_TOKEN_MFA_CODE) && a.Session), `the challenge answered: ${JSON.stringify(mfa)}`);
    await context.close();
  });
});
