// The API client: where the API is, who is asking, and what an error response means.
//
// Where the API is comes from the page's config.json (`api`: empty for the page's own origin, as the
// local front serves both). Who is asking: the person signed in to the stack's user pool (auth.js: their
// ID token, renewed before it expires and once after a 401), or, locally only, a user name sent as
// `Authorization: Bearer <user>` (config.json's `local_names`: the local front without
// LOCAL_AUTH=strict), kept in this browser's localStorage.

const KEYS = { user: 'kakeibo.user' };
const TIMEOUT_MS = 20_000;

export const DEFAULT_USER = 'local';

export function loadConfig(storage = globalThis.localStorage) {
  const read = (key) => {
    try {
      return storage?.getItem(key) ?? '';
    } catch {
      return ''; // storage disabled (private mode): fall back to defaults
    }
  };
  return { user: read(KEYS.user) || DEFAULT_USER, base: '', sub: null };
}

export function saveConfig(config, storage = globalThis.localStorage) {
  try {
    for (const [name, key] of Object.entries(KEYS)) {
      const value = (config[name] ?? '').trim();
      if (value) storage.setItem(key, value);
      else storage.removeItem(key);
    }
  } catch {
    // storage disabled: the settings last for this page only
  }
}

/** A base URL as typed: '' (this origin) or an absolute http(s) URL without a trailing slash. */
export function normaliseBase(text) {
  const value = (text ?? '').trim().replace(/\/+$/, '');
  if (!value) return '';
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new Error('API の URL は https://… の形で入力してください');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error('API の URL は http(s) にしてください');
  }
  return value;
}

/** An error response (problem+json when it comes from the function), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(status, problem, fallback) {
    const detail = problem?.detail || problem?.message || fallback || `HTTP ${status}`;
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.code = problem?.code ?? null;
    this.problem = problem ?? null;
  }
}

/** The version an ETag names ("3" or W/"3"), or null. */
export function etagVersion(etag) {
  const match = /^\s*(?:W\/)?"(\d+)"\s*$/.exec(etag ?? '');
  return match ? Number(match[1]) : null;
}

export const etagOf = (version) => `"${version}"`;

/** The language the API should word its errors in: the browser's, Japanese when it does not say. */
export function preferredLanguage(nav = globalThis.navigator) {
  const tag = (nav?.language ?? '').trim();
  return /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag) ? tag : 'ja';
}

export class Api {
  /** `session`: the person signed in (auth.js Session), or null: the local user name of `config`. */
  constructor(config, fetchImpl = globalThis.fetch.bind(globalThis), language = preferredLanguage(), session = null) {
    this.config = config;
    this.fetch = fetchImpl;
    this.language = language;
    this.session = session;
  }

  /** What goes in `Authorization` after "Bearer ": the ID token (renewed when about to expire), or the user name. */
  async bearer() {
    if (this.session) return (await this.session.bearer()) ?? '';
    return this.config.user || DEFAULT_USER;
  }

  url(path) {
    return `${this.config.base || ''}${path}`;
  }

  /**
   * One request. `json` is sent as JSON (or `body` as is with `contentType`); `ifMatch` becomes the
   * If-Match header, `headers` adds others. Resolves {status, data, etag, location}; rejects with ApiError.
   */
  async request(method, path, options = {}) {
    const { auth = true, renewed = false } = options;
    let sent = null;
    if (auth) {
      try {
        sent = await this.bearer();
      } catch {
        sent = ''; // the renewal was refused: signed out (the session says so); the API says 401
      }
    }
    try {
      return await this.once(method, path, options, sent);
    } catch (error) {
      // A 401 to a person's token: renewed once (REFRESH_TOKEN_AUTH) and tried again with the new one
      if (!(error instanceof ApiError) || error.status !== 401 || !auth || renewed || !this.session?.signedIn) throw error;
      const fresh = await this.session.afterUnauthorized(sent);
      if (!fresh) throw error;
      return this.request(method, path, { ...options, renewed: true });
    }
  }

  async once(method, path, { json, body, contentType, ifMatch, headers: extra } = {}, bearer = null) {
    const headers = {
      Accept: 'application/json, application/problem+json',
      'Accept-Language': this.language,
      ...extra,
    };
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    if (ifMatch) headers['If-Match'] = ifMatch;
    let payload = body;
    if (json !== undefined) {
      payload = JSON.stringify(json);
      headers['Content-Type'] = contentType || 'application/json';
    } else if (contentType) {
      headers['Content-Type'] = contentType;
    }
    let response;
    try {
      response = await this.fetch(this.url(path), {
        method,
        headers,
        body: payload,
        cache: 'no-store',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      const why = error?.name === 'TimeoutError' ? '応答がありません' : '接続できません';
      throw new ApiError(0, null, `API に${why}（${this.url(path) || '/'}）`);
    }
    const text = await response.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
    if (!response.ok) {
      throw new ApiError(response.status, data, `${response.status} ${response.statusText}`.trim());
    }
    return {
      status: response.status,
      data,
      etag: response.headers.get('ETag'),
      location: response.headers.get('Location'),
      link: response.headers.get('Link'),
      text,
    };
  }

  get(path) {
    return this.request('GET', path);
  }

  /** Which optional routes this API declares (from its OpenAPI document), or null if unknown. */
  async routes() {
    try {
      const { data } = await this.request('GET', '/openapi.json', { auth: false });
      return new Set(Object.keys(data?.paths ?? {}));
    } catch {
      return null;
    }
  }
}

export const query = (params) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, value);
  }
  const text = search.toString();
  return text ? `?${text}` : '';
};

/** A path segment; categories are free text (Japanese, spaces, slashes). */
export const segment = (value) => encodeURIComponent(value);

/** The caller's personal ledger: the unprefixed routes. */
export const PERSONAL = 'me';

/** A data route of `ledger`: unprefixed for the personal ledger, under /ledgers/{ledger} for a shared one. */
export function ledgerPath(ledger, path) {
  return !ledger || ledger === PERSONAL ? path : `/ledgers/${segment(ledger)}${path}`;
}

const INVITE_TOKEN = /^[A-Za-z0-9_-]{32}$/;

/**
 * The invitation token in what someone pasted: the token itself, or a link to this page ending in
 * `#invite=<token>`. Null when it is neither.
 */
export function inviteTokenOf(text) {
  const value = (text ?? '').trim();
  if (INVITE_TOKEN.test(value)) return value;
  const match = /[#&?]invite=([A-Za-z0-9_-]+)/.exec(value);
  return match && INVITE_TOKEN.test(match[1]) ? match[1] : null;
}

/** A link to this page that offers `token` to whoever opens it. */
export function inviteLink(token, where = globalThis.location) {
  return `${where.origin}${where.pathname}#invite=${token}`;
}
