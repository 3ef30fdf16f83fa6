// 接続: who the page speaks as. Signed in: their email, two-step verification (TOTP with an
// authenticator app: AssociateSoftwareToken, then VerifySoftwareToken with its first code) and
// サインアウト. Locally with user names allowed (config.json's `local_names`: the local front without
// LOCAL_AUTH=strict), the user name sent as `Bearer <name>` when nobody is signed in, kept in this
// browser's localStorage; saving reloads the page's data as that user.

import { DEFAULT_USER, saveConfig } from '../api.js';
import { state } from '../state.js';
import { FieldError, busy, clearError, fail, say, showError, within } from '../ui.js';
import { WORDS, currentWords, refusalText, totpRefusalText, translate } from './signin.js';

let ctx;
let panel = null; // the view's element (#settings, the popover in the header)
let $ = null; // an element of the view by id, found under its root
let docs = null; // the link to the API's documentation (the page's foot), handed by the page

/** `docs`: the link to the API's documentation, outside the popover (the page's foot): the page hands it. */
export function mount(root, context, { docs: link }) {
  ctx = context;
  panel = root;
  $ = within(root);
  docs = link;
  if (currentWords() !== WORDS.ja) translate(root); // its words in the browser's language, as the sign-in panel's
  $('settings-form').addEventListener('submit', submitSettings);
  $('signout').addEventListener('click', signOut);
  $('signin-open').addEventListener('click', () => {
    root.open = false;
    ctx.askSignIn({ cancel: true });
  });
  $('mfa-start').addEventListener('click', startTotp);
  $('mfa-form').addEventListener('submit', finishTotp);
  root.addEventListener('toggle', () => {
    if (root.open && ctx.session()?.signedIn) showTotpState();
  });
  root.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !root.open) return;
    root.open = false; // Escape closes the popover, focus back on its summary
    root.querySelector('summary').focus();
  });
  render();
}

export function render() {
  const session = ctx.session();
  const signedIn = Boolean(session?.signedIn);
  const names = ctx.localNames();
  $('account-box').hidden = !signedIn;
  $('settings-form').hidden = signedIn || !names;
  $('signin-open-row').hidden = signedIn || !session;
  $('user').value = state.config.user;
  if (signedIn) $('account-email').textContent = session.who?.email ?? '';
  $('who').textContent = signedIn ? session.who?.email ?? '' : names ? state.config.user : '—';
  docs.href = `${state.config.base || '.'}/swagger`;
}

async function submitSettings(event) {
  event.preventDefault();
  clearError();
  const user = $('user').value.trim() || DEFAULT_USER;
  if (!/^[\x21-\x7e]{1,128}$/.test(user)) {
    fail(new FieldError($('user'), 'ユーザーは空白を含まない半角英数字・記号にしてください'));
    return;
  }
  state.config = { ...state.config, user };
  saveConfig(state.config);
  ctx.useApi();
  panel.open = false; // it covers the balances; the answer shows below
  render();
  ctx.clearLedger(); // nothing of the previous identity's ledger stays on screen, even if this one fails
  if (await ctx.connect()) say('接続先を保存して読み込みました');
}

async function showTotpState() {
  const words = currentWords();
  try {
    const on = await ctx.session().totpOn();
    $('mfa-state').textContent = on ? words.mfaOn : words.mfaOff;
    $('mfa-start').hidden = on;
  } catch {
    $('mfa-state').textContent = ''; // not reachable now: asked again when the popover opens
  }
}

async function startTotp() {
  clearError();
  await busy($('mfa-start'), async () => {
    try {
      const { secret, uri } = await ctx.session().startTotp();
      $('mfa-secret').textContent = secret;
      $('mfa-link').href = uri;
      $('mfa-form').hidden = false;
      $('mfa-code').focus();
    } catch (error) {
      showError(new Error(refusalText(error, currentWords())));
    }
  });
}

async function finishTotp(event) {
  event.preventDefault();
  clearError();
  const code = $('mfa-code').value.trim();
  if (!/^\d{6}$/.test(code)) {
    fail(new FieldError($('mfa-code'), currentWords().needCode));
    return;
  }
  await busy($('mfa-submit'), async () => {
    try {
      await ctx.session().finishTotp(code);
      $('mfa-form').reset();
      $('mfa-form').hidden = true;
      say(currentWords().mfaDone);
      await showTotpState();
    } catch (error) {
      fail(new FieldError($('mfa-code'), totpRefusalText(error, currentWords())));
    }
  });
}

async function signOut() {
  clearError();
  await busy($('signout'), async () => {
    if (!(await ctx.signOut())) return;
    panel.open = false;
  });
}
