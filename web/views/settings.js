// 接続: who the page speaks as (a local user, or a token for a deployed API) and where the API is.
// Kept in this browser's localStorage only; saving reloads the page's data as that identity.

import { Api, DEFAULT_USER, normaliseBase, saveConfig } from '../api.js';
import { state } from '../state.js';
import { $, FieldError, clearError, fail, say } from '../ui.js';

let ctx;

export function mount(root, context) {
  ctx = context;
  $('settings-form').addEventListener('submit', submitSettings);
  root.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !root.open) return;
    root.open = false; // Escape closes the popover, focus back on its summary
    root.querySelector('summary').focus();
  });
  render();
}

export function render() {
  $('user').value = state.config.user;
  $('api-base').value = state.config.base;
  $('token').value = state.config.token;
  $('who').textContent = `${state.config.token ? 'トークン' : state.config.user}${state.config.base ? ` @ ${new URL(state.config.base).host}` : ''}`;
  $('swagger-link').href = `${state.config.base || '.'}/swagger`;
}

async function submitSettings(event) {
  event.preventDefault();
  clearError();
  let base;
  try {
    base = normaliseBase($('api-base').value);
  } catch (error) {
    fail(new FieldError($('api-base'), error.message));
    return;
  }
  const user = $('user').value.trim() || DEFAULT_USER;
  if (!/^[\x21-\x7e]{1,128}$/.test(user)) {
    fail(new FieldError($('user'), 'ユーザーは空白を含まない半角英数字・記号にしてください'));
    return;
  }
  state.config = { user, base, token: $('token').value.trim() };
  saveConfig(state.config);
  state.api = new Api(state.config);
  $('settings').open = false; // it covers the balances; the answer shows below
  render();
  ctx.clearLedger(); // nothing of the previous identity's ledger stays on screen, even if this one fails
  if (await ctx.connect()) say('接続先を保存して読み込みました');
}
