// The API client: where the API is, who is asking, and what an error response means.
//
// Locally the page is served by the API's own front (same origin) and the identity is a user name
// sent as `Authorization: Bearer <user>`. For a deployed API, the base URL and a token (a JWT from the
// stack's Cognito user pool) are set in the page and kept in this browser's localStorage only.

const KEYS = { user: 'kakeibo.user', base: 'kakeibo.apiBase', token: 'kakeibo.token' };
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
  return {
    user: read(KEYS.user) || DEFAULT_USER,
    base: read(KEYS.base),
    token: read(KEYS.token),
  };
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
  constructor(config, fetchImpl = globalThis.fetch.bind(globalThis), language = preferredLanguage()) {
    this.config = config;
    this.fetch = fetchImpl;
    this.language = language;
  }

  get bearer() {
    return this.config.token || this.config.user || DEFAULT_USER;
  }

  url(path) {
    return `${this.config.base || ''}${path}`;
  }

  /**
   * One request. `json` is sent as JSON (or `body` as is with `contentType`); `ifMatch` becomes the
   * If-Match header, `headers` adds others. Resolves {status, data, etag, location}; rejects with ApiError.
   */
  async request(method, path, { json, body, contentType, ifMatch, headers: extra, auth = true } = {}) {
    const headers = {
      Accept: 'application/json, application/problem+json',
      'Accept-Language': this.language,
      ...extra,
    };
    if (auth) headers.Authorization = `Bearer ${this.bearer}`;
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
