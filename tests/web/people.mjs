// The people of a browser script, as accounts of the local user pool (the one config.json names: moto's
// server under make run and the tests), so that the scripts run against a strict front (LOCAL_AUTH=strict:
// no `Bearer <name>`, only the pool's tokens).
//
// A person is named by the script (`hanako`, `${args.user}-taro`); the first use of a name signs it up
// as `<name>@example.com` (SignUp, then AdminConfirmSignUp: the local pool takes it unsigned, and no
// emailed code is needed) and signs it in (InitiateAuth USER_PASSWORD_AUTH: the local pool does not
// check the client's flows). A name signed up before (a script run again with the same --user) is
// signed in again. What the page keeps after a real sign-in (auth.js Session: `kakeibo.session`) is
// what a browser context of theirs is given, so the page opens signed in as them; the script's own
// API calls send their ID token. The API knows them by their `sub`, not by the name: `subOf(name)`,
// and `known()` (name -> {sub, email}) for the summary that tests/api/test_web*.py translate with.

import { SESSION_KEY, claimsOf } from '../../web/auth.js';

export const PASSWORD = 'Kakeibo-Passw0rd-Long'; // under the template's policy: 12+, upper, lower, digits
const RENEW_BEFORE_MS = 5 * 60_000; // a token with less than this left is fetched again

/** The email a script's name signs up with. */
export const emailOf = (name) => `${String(name).toLowerCase().replace(/[^a-z0-9._+-]+/g, '-')}@example.com`;

/** The people of the front at `base` (its config.json names the pool). */
export function people(base) {
  let config = null;
  const persons = new Map(); // name -> Promise<{name, email, sub, result}>

  async function pageConfig() {
    config ??= await (await fetch(`${base}/config.json`)).json();
    if (!config.cognito_endpoint || !config.client_id) throw new Error(`config.json names no local user pool: ${JSON.stringify(config)}`);
    return config;
  }

  async function idp(operation, body) {
    const { cognito_endpoint: endpoint } = await pageConfig();
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'X-Amz-Target': `AWSCognitoIdentityProviderService.${operation}`, 'Content-Type': 'application/x-amz-json-1.1' },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error(`${operation}: ${data.__type ?? response.status} ${data.message ?? ''}`);
      error.type = String(data.__type ?? '').split('#').pop();
      throw error;
    }
    return data;
  }

  async function signIn(email) {
    const { client_id: ClientId } = await pageConfig();
    const answer = await idp('InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId, AuthParameters: { USERNAME: email, PASSWORD } });
    return answer.AuthenticationResult;
  }

  async function made(name) {
    const { client_id: ClientId, user_pool_id: UserPoolId } = await pageConfig();
    const email = emailOf(name);
    try {
      await idp('SignUp', { ClientId, Username: email, Password: PASSWORD, UserAttributes: [{ Name: 'email', Value: email }] });
      await idp('AdminConfirmSignUp', { UserPoolId, Username: email });
    } catch (error) {
      if (error.type !== 'UsernameExistsException') throw error; // signed up before: signed in again
    }
    const result = await signIn(email);
    return { name, email, sub: claimsOf(result.IdToken).sub, result };
  }

  /** The person of `name`: signed up on first use, their tokens fresh. */
  async function person(name) {
    if (!persons.has(name)) persons.set(name, made(name));
    const found = await persons.get(name);
    if (claimsOf(found.result.IdToken).exp * 1000 - RENEW_BEFORE_MS < Date.now()) found.result = await signIn(found.email);
    return found;
  }

  /** `Authorization` as `name` sends it. */
  async function auth(name) {
    return { Authorization: `Bearer ${(await person(name)).result.IdToken}` };
  }

  /** Who the API says `name` is: their `sub`. */
  const subOf = async (name) => (await person(name)).sub;

  /** What the page keeps in localStorage after `name` signed in (auth.js Session.accept). */
  async function stored(name) {
    const { email, sub, result } = await person(name);
    const tokens = { id: result.IdToken, access: result.AccessToken, refresh: result.RefreshToken, expires: claimsOf(result.IdToken).exp * 1000 };
    return { [SESSION_KEY]: JSON.stringify({ tokens, who: { sub, email } }) };
  }

  /** A browser context's storageState: the page of `base` signed in as `name` (set once, as a sign-in leaves it). */
  async function storageState(name) {
    const items = await stored(name);
    return { cookies: [], origins: [{ origin: new URL(base).origin, localStorage: Object.entries(items).map(([key, value]) => ({ name: key, value })) }] };
  }

  /** Every person made so far: name -> {sub, email} (one the pool refused is left out: its step said why). */
  async function known() {
    const all = {};
    for (const [name, found] of persons) {
      const made = await found.catch(() => null);
      if (made) all[name] = { sub: made.sub, email: made.email };
    }
    return all;
  }

  return { person, auth, subOf, stored, storageState, known, emailOf };
}
