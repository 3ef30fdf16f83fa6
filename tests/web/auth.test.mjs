// The page's sign-in (web/auth.js) and its API client's use of it (web/api.js), under `node --test`,
// against a fake user pool and a fake API: SRP sign-in and the TOTP challenge, the ID token renewed
// before it expires and once after a 401, a refused renewal (signed in again, the outbox kept for the
// same person), an unreachable pool, sign-out; the refusals' words (views/signin.js refusalText).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { Api, ApiError } from '../../web/api.js';
import { AuthError, Idp, RENEW_BEFORE_MS, SESSION_KEY, Session, claimsOf, endpointOf } from '../../web/auth.js';
import { identity, retriable } from '../../web/outbox.js';
import { WORDS, refusalText, totpRefusalText, wordsFor } from '../../web/views/signin.js';

const CONFIG = { region: 'ap-northeast-1', user_pool_id: 'ap-northeast-1_AbC123', client_id: 'client-1', cognito_endpoint: '' };
const T0 = Date.UTC(2026, 10, 3, 9, 0, 0);
const b64url = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims) => `${b64url({ alg: 'RS256', kid: 'k' })}.${b64url(claims)}.c2ln`;
const idToken = (n, exp = T0 / 1000 + 3600) => jwt({ sub: 'sub-hanako', email: 'hanako@example.com', exp, n, token_use: 'id' });

function storage() {
  const map = new Map();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => map.set(k, String(v)), removeItem: (k) => map.delete(k) };
}

/** A user pool answering each operation with `answers[op](body)` (an AuthError thrown is its refusal). */
function pool(answers) {
  const calls = [];
  return {
    calls,
    async call(op, body) {
      calls.push({ op, body });
      const answer = answers[op];
      if (!answer) throw new AuthError('InvalidAction', op);
      return answer(body, calls.filter((c) => c.op === op).length);
    },
  };
}

function clock(start = T0) {
  const c = { t: start, now: () => c.t };
  return c;
}

function timers() {
  const set = [];
  return { set, timers: { set: (fn, wait) => set.push({ fn, wait }) && set.length, clear: () => {} } };
}

const signedInStore = (now, { refresh = 'refresh-1', exp = now / 1000 + 3600 } = {}) => {
  const store = storage();
  const tokens = { id: idToken(1, exp), access: 'access-1', refresh, expires: exp * 1000 };
  store.setItem(SESSION_KEY, JSON.stringify({ tokens, who: { sub: 'sub-hanako', email: 'hanako@example.com' } }));
  return store;
};

const renewals = (idp) => idp.calls.filter((c) => c.op === 'InitiateAuth' && c.body.AuthFlow === 'REFRESH_TOKEN_AUTH');

function api(session, answer) {
  const seen = [];
  const fetch = async (url, init) => {
    seen.push(init.headers.Authorization ?? null);
    const { status, body } = answer(init.headers.Authorization, seen.length);
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  };
  return { seen, api: new Api({ user: 'local', base: '' }, fetch, 'ja', session) };
}

describe('signing in with SRP (auth.js Session.signIn)', () => {
  test('A goes out, the PASSWORD_VERIFIER is answered with a claim, the tokens are kept', async () => {
    const idp = pool({
      InitiateAuth: () => ({
        ChallengeName: 'PASSWORD_VERIFIER',
        Session: 's1',
        ChallengeParameters: { SALT: '5d41402abc4b2a76', SRP_B: '9e107d9d372bb682', USER_ID_FOR_SRP: 'sub-hanako', USERNAME: 'sub-hanako', SECRET_BLOCK: 'c2VjcmV0' },
      }),
      RespondToAuthChallenge: () => ({ AuthenticationResult: { IdToken: idToken(1), AccessToken: 'access-1', RefreshToken: 'refresh-1', ExpiresIn: 3600 } }),
    });
    const store = storage();
    const session = new Session(CONFIG, { idp, storage: store, now: () => T0, timers: null });
    const events = [];
    session.on((e) => events.push(e));
    assert.deepEqual(await session.signIn('hanako@example.com', 'Kakeibo-Passw0rd'), { done: true });
    const [start, answer] = idp.calls;
    assert.equal(start.body.AuthFlow, 'USER_SRP_AUTH');
    assert.equal(start.body.AuthParameters.USERNAME, 'hanako@example.com');
    assert.match(start.body.AuthParameters.SRP_A, /^[0-9a-f]{700,}$/);
    assert.ok(!JSON.stringify(idp.calls).includes('Kakeibo-Passw0rd'), 'the password never leaves');
    assert.equal(answer.body.ChallengeName, 'PASSWORD_VERIFIER');
    assert.equal(answer.body.Session, 's1');
    assert.equal(answer.body.ChallengeResponses.USERNAME, 'sub-hanako');
    assert.equal(answer.body.ChallengeResponses.TIMESTAMP, 'Tue Nov 3 09:00:00 UTC 2026');
    assert.match(answer.body.ChallengeResponses.PASSWORD_CLAIM_SIGNATURE, /^[A-Za-z0-9+/]{43}=$/);
    assert.ok(session.signedIn);
    assert.deepEqual(session.who, { sub: 'sub-hanako', email: 'hanako@example.com' });
    assert.equal(JSON.parse(store.getItem(SESSION_KEY)).tokens.refresh, 'refresh-1');
    assert.deepEqual(events, ['signed-in']);
  });

  test('a person with TOTP on is asked for the code, then signed in', async () => {
    const idp = pool({
      InitiateAuth: () => ({ ChallengeName: 'PASSWORD_VERIFIER', Session: 's1', ChallengeParameters: { SALT: 'ab', SRP_B: 'cd', USER_ID_FOR_SRP: 'sub-hanako', SECRET_BLOCK: 'eA==' } }),
      RespondToAuthChallenge: (body) =>
        body.ChallengeName === 'PASSWORD_VERIFIER'
          ? { ChallengeName: 'SOFTWARE_TOKEN_MFA', Session: 's2', ChallengeParameters: {} }
          : { AuthenticationResult: { IdToken: idToken(1), AccessToken: 'a', RefreshToken: 'r' } },
    });
    const session = new Session(CONFIG, { idp, storage: storage(), now: () => T0, timers: null });
    assert.deepEqual(await session.signIn('hanako@example.com', 'pw'), { challenge: 'SOFTWARE_TOKEN_MFA' });
    assert.ok(!session.signedIn);
    assert.deepEqual(await session.answerTotp('123456'), { done: true });
    const last = idp.calls.at(-1).body;
    assert.deepEqual(last, { ChallengeName: 'SOFTWARE_TOKEN_MFA', ClientId: 'client-1', ChallengeResponses: { USERNAME: 'sub-hanako', SOFTWARE_TOKEN_MFA_CODE: '123456' }, Session: 's2' });
    assert.ok(session.signedIn);
  });

  test('a wrong password is the pool\'s refusal, said in the person\'s language', async () => {
    const idp = pool({
      InitiateAuth: () => ({ ChallengeName: 'PASSWORD_VERIFIER', Session: 's1', ChallengeParameters: { SALT: 'ab', SRP_B: 'cd', USER_ID_FOR_SRP: 'u', SECRET_BLOCK: 'eA==' } }),
      RespondToAuthChallenge: () => {
        throw new AuthError('NotAuthorizedException', 'Incorrect username or password.');
      },
    });
    const session = new Session(CONFIG, { idp, storage: storage(), now: () => T0, timers: null });
    const error = await session.signIn('hanako@example.com', 'wrong').catch((e) => e);
    assert.equal(error.type, 'NotAuthorizedException');
    assert.equal(refusalText(error, wordsFor('ja-JP')), 'メールアドレスかパスワードが違います');
    assert.equal(refusalText(error, wordsFor('en-US')), 'Incorrect email or password');
    assert.match(refusalText(new AuthError('NetworkError', 'x'), wordsFor('ja')), /今はサインインできません.*送信待ちの伝票は残っています/);
    assert.equal(refusalText(new AuthError('SomethingNew', 'The pool says so'), WORDS.en), 'Could not sign in: The pool says so');
    // A wrong authenticator code is about the app, not the email (CodeMismatchException at the challenge)
    for (const type of ['CodeMismatchException', 'EnableSoftwareTokenMFAException']) {
      assert.equal(totpRefusalText(new AuthError(type, 'x'), WORDS.ja), '認証アプリのコードが違います。アプリに今表示されている6桁を入力してください');
      assert.equal(totpRefusalText(new AuthError(type, 'x'), WORDS.en), 'Wrong code from the authenticator app. Type the 6 digits it shows now');
    }
    assert.equal(totpRefusalText(new AuthError('NetworkError', 'x'), WORDS.en), WORDS.en.errors.NetworkError);
    assert.ok(!session.signedIn);
  });
});

describe('the ID token renewed (REFRESH_TOKEN_AUTH)', () => {
  const renewing = () =>
    pool({ InitiateAuth: (_, n) => ({ AuthenticationResult: { IdToken: idToken(n + 1, (T0 + 3600_000 + n * 3600_000) / 1000), AccessToken: `access-${n + 1}`, ExpiresIn: 3600 } }) });

  test('before it expires: at the request that finds it about to, once for requests at the same time', async () => {
    const c = clock();
    const idp = renewing();
    const session = new Session(CONFIG, { idp, storage: signedInStore(T0), now: c.now, timers: null });
    assert.equal(claimsOf(await session.bearer()).n, 1); // fresh: nothing asked
    assert.equal(renewals(idp).length, 0);
    c.t = T0 + 3600_000 - RENEW_BEFORE_MS + 1; // less than five minutes left
    const [x, y] = await Promise.all([session.bearer(), session.bearer()]);
    assert.equal(x, y);
    assert.equal(claimsOf(x).n, 2);
    assert.equal(renewals(idp).length, 1);
    assert.equal(renewals(idp)[0].body.AuthParameters.REFRESH_TOKEN, 'refresh-1');
    assert.equal(session.tokens.refresh, 'refresh-1'); // a renewal gives no new refresh token: the old one stays
  });

  test('a timer renews it five minutes before it expires while the page stays open', async () => {
    const t = timers();
    const idp = renewing();
    const session = new Session(CONFIG, { idp, storage: signedInStore(T0), now: () => T0, timers: t.timers });
    assert.equal(t.set.length, 1);
    assert.equal(t.set[0].wait, 3600_000 - RENEW_BEFORE_MS);
    t.set[0].fn();
    await session.renewing;
    assert.equal(renewals(idp).length, 1);
    assert.equal(t.set.length, 2); // and the next one is set for the new token
  });

  test('once after a 401: the request is sent again with the new token, and not a third time', async () => {
    const idp = renewing();
    const session = new Session(CONFIG, { idp, storage: signedInStore(T0), now: () => T0, timers: null });
    const ok = api(session, (auth, n) => (n === 1 ? { status: 401, body: { message: 'Unauthorized' } } : { status: 200, body: { items: [] } }));
    assert.deepEqual((await ok.api.get('/accounts')).data, { items: [] });
    assert.equal(ok.seen.length, 2);
    assert.notEqual(ok.seen[0], ok.seen[1]);
    assert.equal(claimsOf(ok.seen[1].slice(7)).n, 2);
    assert.equal(renewals(idp).length, 1);
    const refused = api(session, () => ({ status: 401, body: { message: 'Unauthorized' } }));
    const error = await refused.api.get('/accounts').catch((e) => e);
    assert.ok(error instanceof ApiError && error.status === 401);
    assert.equal(refused.seen.length, 2); // once renewed, once sent again: no loop
    assert.equal(renewals(idp).length, 2);
  });

  test('a refused renewal: signed out, the same person\'s outbox kept for when they sign in again', async () => {
    const idp = pool({ InitiateAuth: () => { throw new AuthError('NotAuthorizedException', 'Refresh Token has been revoked'); } });
    const store = signedInStore(T0);
    const session = new Session(CONFIG, { idp, storage: store, now: () => T0, timers: null });
    const events = [];
    session.on((e) => events.push(e));
    const before = identity({ base: '', sub: session.who.sub, user: 'local' });
    const call = api(session, () => ({ status: 401, body: { message: 'Unauthorized' } }));
    const error = await call.api.request('POST', '/slips', { json: { amount: 1 } }).catch((e) => e);
    assert.ok(error instanceof ApiError && error.status === 401);
    assert.ok(retriable(error), 'a 401 leaves a queued slip waiting (outbox.js): it goes out after the sign-in');
    assert.deepEqual(events, ['expired']);
    assert.ok(!session.signedIn);
    assert.equal(JSON.parse(store.getItem(SESSION_KEY)).tokens, null); // no token left
    assert.equal(identity({ base: '', sub: session.who.sub, user: 'local' }), before); // their outbox is still theirs
  });

  test('an unreachable pool: the token as it is, nothing forgotten', async () => {
    const idp = pool({ InitiateAuth: () => { throw new AuthError('NetworkError', 'Failed to fetch'); } });
    const session = new Session(CONFIG, { idp, storage: signedInStore(T0), now: () => T0 + 3600_000, timers: null });
    assert.equal(claimsOf(await session.bearer()).n, 1);
    assert.ok(session.signedIn);
  });
});

describe('the pool\'s other operations', () => {
  test('sign-out revokes the refresh token, then nothing is kept; an unreachable pool still forgets', async () => {
    const idp = pool({ RevokeToken: () => ({}) });
    const store = signedInStore(T0);
    const session = new Session(CONFIG, { idp, storage: store, now: () => T0, timers: null });
    assert.equal(await session.signOut(), true);
    assert.deepEqual(idp.calls, [{ op: 'RevokeToken', body: { ClientId: 'client-1', Token: 'refresh-1' } }]);
    assert.equal(store.getItem(SESSION_KEY), null);
    assert.equal(session.who, null);
    const offline = new Session(CONFIG, { idp: pool({}), storage: signedInStore(T0), now: () => T0, timers: null });
    assert.equal(await offline.signOut(), false);
    assert.ok(!offline.signedIn);
  });

  test('turning TOTP on: the secret, then the first code verified and TOTP preferred', async () => {
    const idp = pool({ AssociateSoftwareToken: () => ({ SecretCode: 'JBSWY3DPEHPK3PXP' }), VerifySoftwareToken: () => ({ Status: 'SUCCESS' }), SetUserMFAPreference: () => ({}), GetUser: () => ({ UserMFASettingList: ['SOFTWARE_TOKEN_MFA'] }) });
    const session = new Session(CONFIG, { idp, storage: signedInStore(T0), now: () => T0, timers: null });
    const { secret, uri } = await session.startTotp();
    assert.equal(secret, 'JBSWY3DPEHPK3PXP');
    assert.equal(uri, 'otpauth://totp/Kakeibo%3Ahanako%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Kakeibo');
    await session.finishTotp('123456');
    assert.deepEqual(idp.calls.slice(1).map((c) => c.op), ['VerifySoftwareToken', 'SetUserMFAPreference']);
    assert.deepEqual(idp.calls[2].body.SoftwareTokenMfaSettings, { Enabled: true, PreferredMfa: true });
    assert.equal(idp.calls[1].body.AccessToken, 'access-1');
    assert.ok(await session.totpOn());
  });

  test('sign-up sends the email as an attribute; the endpoint is the region\'s unless config.json names one', async () => {
    const idp = pool({ SignUp: () => ({ UserConfirmed: false, UserSub: 's' }) });
    const session = new Session(CONFIG, { idp, storage: storage(), now: () => T0, timers: null });
    await session.signUp('taro@example.com', 'Kakeibo-Passw0rd');
    assert.deepEqual(idp.calls[0].body, { ClientId: 'client-1', Username: 'taro@example.com', Password: 'Kakeibo-Passw0rd', UserAttributes: [{ Name: 'email', Value: 'taro@example.com' }] });
    assert.equal(endpointOf(CONFIG), 'https://cognito-idp.ap-northeast-1.amazonaws.com/');
    assert.equal(endpointOf({ ...CONFIG, cognito_endpoint: 'http://127.0.0.1:5000' }), 'http://127.0.0.1:5000');
  });

  test('the pool\'s API as a browser calls it: the target header, JSON 1.1, its error types', async () => {
    const seen = [];
    const fetch = async (url, init) => {
      seen.push({ url, init });
      return new Response(JSON.stringify({ __type: 'com.amazonaws#CodeMismatchException', message: 'Invalid code' }), { status: 400 });
    };
    const error = await new Idp('http://pool.test/', fetch).call('ConfirmSignUp', { Username: 'x' }).catch((e) => e);
    assert.equal(seen[0].init.headers['X-Amz-Target'], 'AWSCognitoIdentityProviderService.ConfirmSignUp');
    assert.equal(seen[0].init.headers['Content-Type'], 'application/x-amz-json-1.1');
    assert.equal(error.type, 'CodeMismatchException');
    const down = await new Idp('http://pool.test/', async () => { throw new TypeError('Failed to fetch'); }).call('SignUp', {}).catch((e) => e);
    assert.ok(down.unreachable);
  });
});
