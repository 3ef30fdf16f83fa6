// Cognito's Secure Remote Password sign-in (USER_SRP_AUTH, then the PASSWORD_VERIFIER challenge):
// the password never leaves the browser, only A (g^a mod N) and a proof that the password is known.
// The arithmetic is that of Cognito's own clients (amazon-cognito-identity-js's AuthenticationHelper,
// Amplify's signIn): the 3072-bit group of RFC 5054 with g = 2, k = H(N | g), u = H(A | B),
// x = H(salt | H(poolName | userId ":" password)), S = (B - k g^x)^(a + u x) mod N, the key
// HKDF-SHA256(ikm = S, salt = u, info = "Caldera Derived Key" 0x01)[0:16], and the claim
// HMAC-SHA256(key, poolName | userId | secretBlock | timestamp), in base64.
// BigInt and WebCrypto only (no library): tests/web/srp.test.mjs checks each value against PyPI's
// pycognito (AWSSRP) with fixed inputs (tests/unit/test_srp_vectors.py runs both).

export const N_HEX =
  'FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD' +
  'EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED' +
  'EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F' +
  '83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B' +
  'E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510' +
  '15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7' +
  'ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C' +
  'BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF';
export const N = BigInt(`0x${N_HEX}`);
export const G = 2n;
const INFO = 'Caldera Derived Key';
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const subtle = () => globalThis.crypto.subtle;
const utf8 = (text) => new TextEncoder().encode(text);

/** base ** exponent mod modulus, for non-negative BigInts (a negative base is taken mod modulus first). */
export function modPow(base, exponent, modulus) {
  let result = 1n;
  let b = ((base % modulus) + modulus) % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

/** A non-negative number's hex as Cognito hashes it: an even number of digits, a leading 00 when the first is 8-f. */
export function padHex(value) {
  let hex = typeof value === 'bigint' ? value.toString(16) : String(value);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  else if ('89abcdefABCDEF'.includes(hex[0])) hex = `00${hex}`;
  return hex;
}

export function hexToBytes(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export const bytesToHex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

export async function sha256(bytes) {
  return new Uint8Array(await subtle().digest('SHA-256', bytes));
}

async function hmac(keyBytes, message) {
  const key = await subtle().importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle().sign('HMAC', key, message));
}

/** SHA-256 of the bytes a hex string spells, as 64 hex digits. */
export const hexHash = async (hex) => bytesToHex(await sha256(hexToBytes(hex)));

const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** base64 of bytes, and the bytes of base64 (characters outside its alphabet skipped, as Python's b64decode does). */
export function toBase64(bytes) {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

export function fromBase64(text) {
  const clean = String(text).replace(/[^A-Za-z0-9+/]/g, '');
  const raw = atob(clean.slice(0, clean.length - (clean.length % 4)));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/** The multiplier k = H(N | g). */
export const multiplier = async () => BigInt(`0x${await hexHash(`${padHex(N)}${padHex(G)}`)}`);

/** A random secret a (128 random bytes mod N) and A = g^a mod N; `a` given: that one (tests). */
export function ephemeral(a = null) {
  let secret = a;
  if (secret === null) {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(128));
    secret = BigInt(`0x${bytesToHex(bytes)}`) % N;
  }
  const A = modPow(G, secret, N);
  if (A % N === 0n) throw new Error('SRP: A is 0 mod N');
  return { a: secret, A };
}

/** The pool's name in its id (ap-northeast-1_AbCdEf -> AbCdEf): what Cognito mixes into x and the claim. */
export const poolName = (poolId) => String(poolId).split('_')[1] ?? '';

/**
 * The values both sides derive: u, x, S and the 16-byte key, from the secret `a`, its `A`, the
 * server's `B` and `salt` (hex), and who signs in (`userId`: the challenge's USER_ID_FOR_SRP).
 */
export async function passwordKey({ poolId, userId, password, a, A, B, salt }) {
  const b = typeof B === 'bigint' ? B : BigInt(`0x${B}`);
  if (b % N === 0n) throw new Error('SRP: B is 0 mod N');
  const u = BigInt(`0x${await hexHash(padHex(A) + padHex(b))}`);
  if (u === 0n) throw new Error('SRP: u is 0');
  const identity = bytesToHex(await sha256(utf8(`${poolName(poolId)}${userId}:${password}`)));
  const saltValue = typeof salt === 'bigint' ? salt : BigInt(`0x${salt}`);
  const x = BigInt(`0x${await hexHash(padHex(saltValue) + identity)}`);
  const k = await multiplier();
  const base = (((b - k * modPow(G, x, N)) % N) + N) % N;
  const S = modPow(base, a + u * x, N);
  const prk = await hmac(hexToBytes(padHex(u)), hexToBytes(padHex(S)));
  const key = (await hmac(prk, concat(utf8(INFO), new Uint8Array([1])))).slice(0, 16);
  return { u, x, S, key };
}

/** The moment Cognito wants in the claim: "Tue Nov 3 09:05:07 UTC 2026" (the day unpadded). */
export function timestamp(date = new Date()) {
  const two = (n) => String(n).padStart(2, '0');
  const time = `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
  return `${DAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()} ${time} UTC ${date.getUTCFullYear()}`;
}

/** PASSWORD_CLAIM_SIGNATURE: HMAC(key, poolName | userId | secret block's bytes | timestamp), base64. */
export async function claimSignature({ poolId, userId, secretBlock, timestamp: when, key }) {
  const message = concat(utf8(poolName(poolId)), utf8(userId), fromBase64(secretBlock), utf8(when));
  return toBase64(await hmac(key, message));
}

/**
 * The answer to a PASSWORD_VERIFIER challenge (its ChallengeParameters) for `password`, from the
 * ephemeral whose A began the sign-in.
 */
export async function verifierResponses({ poolId, password, ephemeral: { a, A }, parameters, now = new Date() }) {
  const userId = parameters.USER_ID_FOR_SRP;
  const { key } = await passwordKey({ poolId, userId, password, a, A, B: parameters.SRP_B, salt: parameters.SALT });
  const when = timestamp(now);
  const signature = await claimSignature({ poolId, userId, secretBlock: parameters.SECRET_BLOCK, timestamp: when, key });
  return {
    USERNAME: parameters.USERNAME ?? userId,
    PASSWORD_CLAIM_SECRET_BLOCK: parameters.SECRET_BLOCK,
    PASSWORD_CLAIM_SIGNATURE: signature,
    TIMESTAMP: when,
  };
}
