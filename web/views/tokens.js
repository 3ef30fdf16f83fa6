// アクセストークン: a signed-in person's personal access tokens for programs (a spreadsheet, a script,
// an assistant): make one (read or write, 1 to 365 days), copy it — shown this once only —, see when
// each was last used, revoke one. A revoked token stops working within a minute (the API's authorizer
// keeps its answer for a header that long).

import { ApiError, segment } from '../api.js';
import { h, say, showError, within } from '../ui.js';
import { state } from '../state.js';

let $ = null; // an element of the view by id, found under its root (#tokens-panel, the element app.js hands it)

const SCOPE_WORDS = { read: '読み取りのみ', write: '読み書き' };
let tokens = [];
let panel = null;

/** A token's line in words: its name, scope, prefix, expiry and last use. Pure. */
export function tokenText(token, now = new Date()) {
  const expired = Date.parse(token.expires_at) <= now.getTime();
  const until = expired ? `${token.expires_at.slice(0, 10)} に期限切れ` : `${token.expires_at.slice(0, 10)} まで`;
  const used = token.last_used_at ? `最後に使われた日 ${token.last_used_at}` : 'まだ使われていません';
  return `${token.name}（${SCOPE_WORDS[token.scope] ?? token.scope}・${token.prefix}…）${until}・${used}`;
}

/** The days a new token lasts, as typed: 1 to 365 (90 when left empty), else null. Pure. */
export function daysOf(text) {
  const value = String(text ?? '').trim();
  if (!value) return 90;
  if (!/^\d{1,3}$/.test(value)) return null;
  const days = Number(value);
  return days >= 1 && days <= 365 ? days : null;
}

const shown = () => Boolean(panel) && !panel.classList.contains('off-route');

export function mount(root) {
  $ = within(root);
  panel = root;
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    create();
  });
  $('token-secret-copy').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('token-secret').textContent);
      say('トークンをコピーしました');
    } catch {
      say('コピーできませんでした。トークンを選んでコピーしてください');
    }
  });
}

export function clear() {
  // a person's tokens are theirs in every ledger: a ledger changing leaves them as they are
  if (shown()) render();
}

export async function load() {
  try {
    const { data } = await state.api.get('/me/tokens');
    tokens = data.items;
    panel.hidden = false;
    render();
  } catch (error) {
    // with a token itself, or without a person signed in, tokens are not this page's to manage
    if (error instanceof ApiError && (error.status === 403 || error.status === 401)) {
      panel.hidden = true;
      return;
    }
    throw error;
  }
}

export function render() {
  const now = new Date();
  $('token-rows').replaceChildren(
    ...tokens.map((token) =>
      h(
        'li',
        { dataset: { id: token.id } },
        h('span', { class: 'name', text: tokenText(token, now) }),
        h('button', { type: 'button', class: 'small danger', 'aria-label': `取り消す: ${token.name}`, text: '取り消す', onclick: () => revoke(token) }),
      ),
    ),
  );
  $('tokens-empty').hidden = tokens.length > 0;
}

async function create() {
  const name = $('token-name').value.trim();
  const days = daysOf($('token-days').value);
  if (days === null) {
    showError(new Error('有効な日数は 1 から 365 の数にしてください'), 'token-days');
    return;
  }
  try {
    const json = { name, scope: $('token-scope').value, expires_in_days: days };
    const { data } = await state.api.request('POST', '/me/tokens', { json });
    $('token-secret').textContent = data.token;
    $('token-created').hidden = false;
    $('token-form').reset();
    say('トークンを作りました。この一度だけ表示されます');
    await load();
  } catch (error) {
    showError(error, error instanceof ApiError && error.status === 422 ? 'token-name' : undefined);
  }
}

async function revoke(token) {
  if (!window.confirm(`トークン「${token.name}」を取り消しますか？ これを使うプログラムは 1 分以内に使えなくなります`)) return;
  try {
    await state.api.request('DELETE', `/me/tokens/${segment(token.id)}`);
    $('token-created').hidden = true;
    say('トークンを取り消しました');
    await load();
  } catch (error) {
    showError(error);
  }
}
