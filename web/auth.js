// Signing in: the stack's Cognito user pool, through the Cognito Identity Provider API called from the
// browser (unsigned JSON requests, as Amplify's signIn makes them), and the tokens it gives.
//
// Who the page is comes from its config.json (`make deploy` publishes it beside the page; the local
// front serves it): the pool, its app client, the region and, locally, the endpoint of a
// Cognito-compatible server. A Session holds the three tokens in this browser's localStorage (as the
// page keeps its other state) and
//   - signs up (email + password under the pool's policy), confirms with the emailed code (resent on
//     request), resets a forgotten password with a code;
//   - signs in with USER_SRP_AUTH (srp.js: the password never leaves the browser), then answers the
//     SOFTWARE_TOKEN_MFA challenge when the person turned TOTP on, and turns it on for them;
//   - renews the ID token with REFRESH_TOKEN_AUTH before it expires (at each request, and on a timer
//     while the page is open) and once after a 401: a refused refresh forgets the tokens but not who
//     it was (the outbox, kept per person, waits for them to sign in again: outbox.js identity);
//   - signs out: RevokeToken of the refresh token, then forgets everything of the person.
// No DOM here (views/signin.js is the page's part); tests/web/auth.test.mjs drives it with fakes.

import { ephemeral, verifierResponses } from './srp.js';

export const SESSION_KEY = 'kakeibo.session';
export const RENEW_BEFORE_MS = 5 * 60_000; // an ID token is renewed when it has less than this left
const TIMEOUT_MS = 20_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The pool refused (its exception's name in `type`, its words in `message`), or could not be reached (type 'NetworkError'). */
export class AuthError extends Error {
  constructor(type, message) {
    super(message || type);
    this.name = 'AuthError';
    this.type = type;
  }

  get unreachable() {
    return this.type === 'NetworkError';
  }
}

/** Where the Cognito Identity Provider API is: config.json's endpoint (local), else the region's. */
export function endpointOf(config) {
  if (config?.cognito_endpoint) return config.cognito_endpoint;
  return `https://cognito-idp.${config?.region}.amazonaws.com/`;
}

/** A page config that names a pool: sign-in is offered. */
export const signInConfigured = (config) => Boolean(config?.user_pool_id && config?.client_id && (config.region || config.cognito_endpoint));

/** The Cognito Identity Provider API: one operation, its JSON answer, or AuthError. */
export class Idp {
  constructor(endpoint, fetchImpl = globalThis.fetch?.bind(globalThis)) {
    this.endpoint = endpoint;
    this.fetch = fetchImpl;
  }

  async call(operation, body) {
    let response;
    try {
      response = await this.fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-amz-json-1.1',
          'X-Amz-Target': `AWSCognitoIdentityProviderService.${operation}`,
        },
        body: JSON.stringify(body),
        cache: 'no-store',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new AuthError('NetworkError', String(error?.message ?? error));
    }
    const text = await response.text();
    let data = {};
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      data = {};
    }
    if (!response.ok) {
      // "__type": "NotAuthorizedException" (or "…#NotAuthorizedException"); 5xx without one: not reachable for now
      const type = String(data.__type ?? '').split('#').pop() || (response.status >= 500 ? 'NetworkError' : `HTTP${response.status}`);
      throw new AuthError(type, data.message ?? data.Message ?? `${response.status}`);
    }
    return data;
  }
}

/** A JWT's claims (not verified: the API verifies; the page only reads when it expires and whose it is). */
export function claimsOf(token) {
  try {
    const part = String(token).split('.')[1];
    const text = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

function readStored(storage) {
  try {
    const value = JSON.parse(storage?.getItem(SESSION_KEY) ?? 'null');
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}

export class Session {
  /**
   * `config`: the page's config.json; `storage`: where the tokens are kept; `now`: the clock (ms);
   * `timers`: {set, clear} for the renewal before expiry (tests give their own, or none).
   */
  constructor(config, { idp = new Idp(endpointOf(config)), storage = globalThis.localStorage, now = () => Date.now(), timers = { set: globalThis.setTimeout?.bind(globalThis), clear: globalThis.clearTimeout?.bind(globalThis) } } = {}) {
    this.clientId = config.client_id;
    this.poolId = config.user_pool_id;
    this.idp = idp;
    this.storage = storage;
    this.now = now;
    this.timers = timers;
    this.listeners = [];
    this.renewing = null;
    this.timer = null;
    this.pending = null; // a sign-in waiting for its TOTP code: {session, username, email}
    const stored = readStored(storage);
    this.tokens = stored?.tokens ?? null; // {id, access, refresh, expires (ms)}
    this.who = stored?.who ?? null; // {sub, email}: kept after a refused refresh, forgotten on sign-out
    this.schedule();
  }

  get signedIn() {
    return Boolean(this.tokens?.id);
  }

  /** `listener(event)`: 'signed-in', 'renewed', 'expired' (a refused refresh: sign in again), 'signed-out'. */
  on(listener) {
    this.listeners.push(listener);
  }

  emit(event) {
    for (const listener of this.listeners) listener(event);
  }

  save() {
    try {
      if (this.tokens || this.who) this.storage.setItem(SESSION_KEY, JSON.stringify({ tokens: this.tokens, who: this.who }));
      else this.storage.removeItem(SESSION_KEY);
    } catch {
      // storage disabled: signed in for this page only
    }
  }

  /** Tokens from an AuthenticationResult (a refresh gives no new refresh token: the old one stays). */
  accept(result, email = null) {
    const claims = claimsOf(result.IdToken) ?? {};
    const expires = Number.isFinite(claims.exp) ? claims.exp * 1000 : this.now() + (result.ExpiresIn ?? 3600) * 1000;
    this.tokens = { id: result.IdToken, access: result.AccessToken, refresh: result.RefreshToken ?? this.tokens?.refresh ?? null, expires };
    // the email they typed (or known from before), else the token's
    this.who = { sub: claims.sub ?? this.who?.sub ?? null, email: email ?? this.who?.email ?? claims.email ?? null };
    this.save();
    this.schedule();
  }

  /** A timer renews the ID token a little before it expires, while the page stays open. */
  schedule() {
    if (this.timer !== null) this.timers?.clear?.(this.timer);
    this.timer = null;
    if (!this.tokens?.refresh || !this.timers?.set) return;
    const wait = Math.min(MAX_TIMER_MS, Math.max(0, this.tokens.expires - RENEW_BEFORE_MS - this.now()));
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.renew().catch(() => {}); // not reachable now: renewed at the next request
    }, wait);
  }

  /** The ID token to send, renewed first when it is about to expire (null when signed out). */
  async bearer() {
    if (!this.tokens) return null;
    if (this.now() >= this.tokens.expires - RENEW_BEFORE_MS) {
      try {
        await this.renew();
      } catch (error) {
        // the pool not reachable (offline): the token as it is; the API will say if it is too old
        if (!(error instanceof AuthError && error.unreachable)) throw error;
      }
    }
    return this.tokens?.id ?? null;
  }

  /** The access token (for the pool's own operations on the person), renewed when about to expire. */
  async access() {
    await this.bearer();
    if (!this.tokens) throw new AuthError('NotAuthorizedException', 'signed out');
    return this.tokens.access;
  }

  /**
   * REFRESH_TOKEN_AUTH, one at a time. A refusal (the refresh token revoked or expired) forgets the
   * tokens ('expired'; who it was stays) and rethrows; an unreachable pool rethrows and keeps them.
   */
  renew() {
    this.renewing ??= (async () => {
      const refresh = this.tokens?.refresh;
      if (!refresh) throw new AuthError('NotAuthorizedException', 'no refresh token');
      try {
        const { AuthenticationResult: result } = await this.idp.call('InitiateAuth', {
          AuthFlow: 'REFRESH_TOKEN_AUTH',
          ClientId: this.clientId,
          AuthParameters: { REFRESH_TOKEN: refresh },
        });
        this.accept(result);
        this.emit('renewed');
        return this.tokens.id;
      } catch (error) {
        if (error instanceof AuthError && !error.unreachable) this.expire();
        throw error;
      }
    })().finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  /**
   * The API said 401 to `sent` (the ID token that request carried): renewed once, the new token, or
   * null when there is none to be had (refused: signed in again; unreachable: later). A 401 to a token
   * renewed since (another request did it) is answered with the new one without asking the pool again.
   */
  async afterUnauthorized(sent) {
    if (!this.tokens) return null;
    if (this.tokens.id !== sent) return this.tokens.id;
    try {
      return await this.renew();
    } catch {
      return null;
    }
  }

  /** The tokens are no good any more: forgotten, who it was kept (their outbox waits for them). */
  expire() {
    if (!this.tokens) return;
    this.tokens = null;
    this.pending = null;
    this.save();
    this.schedule();
    this.emit('expired');
  }

  // ---- signing in --------------------------------------------------------------------------------

  /** USER_SRP_AUTH then PASSWORD_VERIFIER: {done: true}, or {challenge: 'SOFTWARE_TOKEN_MFA'} (answerTotp next). */
  async signIn(email, password) {
    const secret = ephemeral();
    const started = await this.idp.call('InitiateAuth', {
      AuthFlow: 'USER_SRP_AUTH',
      ClientId: this.clientId,
      AuthParameters: { USERNAME: email, SRP_A: secret.A.toString(16) },
    });
    if (started.ChallengeName !== 'PASSWORD_VERIFIER') throw new AuthError('UnexpectedChallenge', started.ChallengeName ?? 'none');
    const responses = await verifierResponses({ poolId: this.poolId, password, ephemeral: secret, parameters: started.ChallengeParameters, now: new Date(this.now()) });
    const answer = await this.idp.call('RespondToAuthChallenge', {
      ChallengeName: 'PASSWORD_VERIFIER',
      ClientId: this.clientId,
      ChallengeResponses: responses,
      Session: started.Session,
    });
    return this.answered(answer, email, responses.USERNAME);
  }

  answered(answer, email, username) {
    if (answer.AuthenticationResult) {
      this.pending = null;
      this.accept(answer.AuthenticationResult, email);
      this.emit('signed-in');
      return { done: true };
    }
    if (answer.ChallengeName === 'SOFTWARE_TOKEN_MFA') {
      this.pending = { session: answer.Session, username, email };
      return { challenge: 'SOFTWARE_TOKEN_MFA' };
    }
    throw new AuthError('UnexpectedChallenge', answer.ChallengeName ?? 'none');
  }

  /** The six digits of the authenticator app, for the sign-in waiting for them. */
  async answerTotp(code) {
    if (!this.pending) throw new AuthError('NotAuthorizedException', 'no sign-in waits for a code');
    const { session, username, email } = this.pending;
    const answer = await this.idp.call('RespondToAuthChallenge', {
      ChallengeName: 'SOFTWARE_TOKEN_MFA',
      ClientId: this.clientId,
      ChallengeResponses: { USERNAME: username, SOFTWARE_TOKEN_MFA_CODE: code },
      Session: session,
    });
    return this.answered(answer, email, username);
  }

  signUp(email, password) {
    return this.idp.call('SignUp', { ClientId: this.clientId, Username: email, Password: password, UserAttributes: [{ Name: 'email', Value: email }] });
  }

  confirm(email, code) {
    return this.idp.call('ConfirmSignUp', { ClientId: this.clientId, Username: email, ConfirmationCode: code });
  }

  resend(email) {
    return this.idp.call('ResendConfirmationCode', { ClientId: this.clientId, Username: email });
  }

  forgot(email) {
    return this.idp.call('ForgotPassword', { ClientId: this.clientId, Username: email });
  }

  resetPassword(email, code, password) {
    return this.idp.call('ConfirmForgotPassword', { ClientId: this.clientId, Username: email, ConfirmationCode: code, Password: password });
  }

  // ---- TOTP ----------------------------------------------------------------------------------------

  /** Whether the person signs in with a TOTP code (GetUser's MFA settings). */
  async totpOn() {
    const user = await this.idp.call('GetUser', { AccessToken: await this.access() });
    return (user.UserMFASettingList ?? []).includes('SOFTWARE_TOKEN_MFA');
  }

  /** A new TOTP secret for the person's authenticator app: {secret, uri} (otpauth://, for a QR code or a link). */
  async startTotp(issuer = 'Kakeibo') {
    const { SecretCode: secret } = await this.idp.call('AssociateSoftwareToken', { AccessToken: await this.access() });
    const label = encodeURIComponent(`${issuer}:${this.who?.email ?? ''}`);
    return { secret, uri: `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}` };
  }

  /** The app's first code proves it has the secret: then TOTP is asked at every sign-in. */
  async finishTotp(code, device = 'Kakeibo') {
    const access = await this.access();
    await this.idp.call('VerifySoftwareToken', { AccessToken: access, UserCode: code, FriendlyDeviceName: device });
    await this.idp.call('SetUserMFAPreference', { AccessToken: access, SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } });
  }

  // ---- signing out ---------------------------------------------------------------------------------

  /** RevokeToken of the refresh token (its tokens renew nothing after), then nothing of the person is kept here. */
  async signOut() {
    const refresh = this.tokens?.refresh;
    let revoked = true;
    if (refresh) {
      try {
        await this.idp.call('RevokeToken', { ClientId: this.clientId, Token: refresh });
      } catch {
        revoked = false; // not reachable: forgotten here all the same (it expires on its own)
      }
    }
    this.tokens = null;
    this.who = null;
    this.pending = null;
    this.save();
    this.schedule();
    this.emit('signed-out');
    return revoked;
  }
}
