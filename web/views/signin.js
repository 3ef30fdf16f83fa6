// サインイン: the person's way in (auth.js against the stack's user pool), in Japanese or English as
// the browser prefers: sign in, create an account (then the emailed code; sent again on request),
// a forgotten password (a code, then a new one), the TOTP code when the person turned it on. The
// pool's refusals are said in the person's language, never as a stack trace. The page asks for it
// when nobody is signed in (or the sign-in expired: what waits in the outbox stays for them) and,
// locally with user names allowed, from 接続.
//
// An invitation link opened by someone not signed in is kept (sessionStorage) through the sign-up,
// the code and the sign-in, and offered once they are in (app.js).

import { AuthError } from '../auth.js';
import { FieldError, busy, clearError, fail, say, showError, within } from '../ui.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#signin-panel, the element app.js hands it)

const INVITE_KEY = 'kakeibo.invite';

export const WORDS = {
  ja: {
    connection: '接続', signedInAs: 'サインイン中', signOut: 'サインアウト', signInOpen: 'サインイン・アカウントを作る',
    signInTitle: 'サインイン', email: 'メールアドレス', password: 'パスワード', signIn: 'サインイン',
    signUpOpen: 'アカウントを作る', forgotOpen: 'パスワードを忘れた', cancel: 'キャンセル',
    signUpTitle: 'アカウントを作る', newPassword: 'パスワード（新しく決める）',
    passwordPolicy: '12文字以上で、大文字・小文字・数字を含めてください。', signUp: 'アカウントを作る', back: 'サインインに戻る',
    confirmTitle: 'メールアドレスの確認', emailCode: 'メールで届いた確認コード', confirm: '確認する', resend: 'コードをもう一度送る',
    totpTitle: '2段階認証', totpCode: '認証アプリの6桁のコード', forgotTitle: 'パスワードの再設定', sendCode: 'コードを送る',
    resetTitle: '新しいパスワード', resetSubmit: 'パスワードを変える',
    mfaStart: '2段階認証（認証アプリ）を設定', mfaHelp: '認証アプリ（Google Authenticator など）にこの鍵を登録し、表示された6桁のコードを入力してください。',
    mfaLink: '認証アプリで開く', mfaSubmit: '2段階認証を有効にする', mfaOn: '2段階認証: 有効（サインインのたびに認証アプリのコードを聞きます）',
    mfaOff: '2段階認証: 無効', mfaDone: '2段階認証を有効にしました。次のサインインから認証アプリのコードを聞きます',
    codeSent: (to) => `確認コードを ${to} に送りました。届いたコードを入力してください。`,
    codeResent: (to) => `確認コードをもう一度 ${to} に送りました`,
    resetSent: (to) => `パスワードを再設定するコードを ${to} に送りました`,
    confirmed: 'メールアドレスを確認しました。サインインしてください',
    resetDone: 'パスワードを変えました。新しいパスワードでサインインしてください',
    signedIn: (who) => `${who} としてサインインしました`,
    signedOut: 'サインアウトしました。このブラウザーにはあなたのデータもトークンも残っていません',
    signedOutOffline: 'サインアウトしました（ユーザープールに接続できなかったため、トークンの取り消しは有効期限切れを待ちます）',
    expired: 'サインインの有効期限が切れました。もう一度サインインしてください（送信待ちの伝票はそのまま残っています）',
    invited: '共有の家計簿に招待されています。参加するには、サインインするかアカウントを作ってください（確認のあと招待に戻ります）',
    discard: (n) => `送信待ちの伝票が ${n} 件あります。サインアウトすると送られずに消えます。サインアウトしますか？`,
    needEmail: 'メールアドレスを入力してください', needPassword: 'パスワードを入力してください', needCode: 'コードを入力してください',
    errors: {
      NetworkError: '今はサインインできません（ユーザープールに接続できません）。接続が戻ってからもう一度お試しください。送信待ちの伝票は残っています',
      NotAuthorizedException: 'メールアドレスかパスワードが違います',
      UserNotFoundException: 'メールアドレスかパスワードが違います',
      UsernameExistsException: 'このメールアドレスのアカウントはもうあります。サインインするか、パスワードを再設定してください',
      InvalidPasswordException: 'パスワードが条件を満たしていません（12文字以上で、大文字・小文字・数字を含めてください）',
      InvalidParameterException: '入力の形が正しくありません（メールアドレスとパスワードを確かめてください）',
      CodeMismatchException: 'コードが違います。メールを確かめて、もう一度入力してください',
      ExpiredCodeException: 'コードの有効期限が切れています。「コードをもう一度送る」で新しいコードを受け取ってください',
      EnableSoftwareTokenMFAException: '認証アプリのコードが違います。アプリに今表示されている6桁を入力してください',
      LimitExceededException: '試行の回数が多すぎます。しばらくしてからお試しください',
      TooManyRequestsException: '混み合っています。しばらくしてからお試しください',
      TooManyFailedAttemptsException: '失敗が多すぎます。しばらくしてからお試しください',
      UserNotConfirmedException: 'メールアドレスの確認がまだです。届いたコードを入力してください',
      CodeDeliveryFailureException: 'コードを送れませんでした。しばらくしてからお試しください',
    },
    refused: (message) => `サインインできませんでした: ${message}`,
  },
  en: {
    connection: 'Connection', signedInAs: 'Signed in as', signOut: 'Sign out', signInOpen: 'Sign in or create an account',
    signInTitle: 'Sign in', email: 'Email', password: 'Password', signIn: 'Sign in',
    signUpOpen: 'Create an account', forgotOpen: 'Forgot your password?', cancel: 'Cancel',
    signUpTitle: 'Create an account', newPassword: 'New password',
    passwordPolicy: 'At least 12 characters, with upper case and lower case letters and digits.', signUp: 'Create the account', back: 'Back to sign-in',
    confirmTitle: 'Confirm your email', emailCode: 'The code in the email', confirm: 'Confirm', resend: 'Send the code again',
    totpTitle: 'Two-step verification', totpCode: 'The 6-digit code of your authenticator app', forgotTitle: 'Reset your password', sendCode: 'Send a code',
    resetTitle: 'A new password', resetSubmit: 'Change the password',
    mfaStart: 'Set up two-step verification (authenticator app)', mfaHelp: 'Add this key to your authenticator app (Google Authenticator, …) and type the 6-digit code it shows.',
    mfaLink: 'Open in the authenticator app', mfaSubmit: 'Turn on two-step verification', mfaOn: 'Two-step verification: on (each sign-in asks for the app\'s code)',
    mfaOff: 'Two-step verification: off', mfaDone: 'Two-step verification is on: the next sign-in asks for the app\'s code',
    codeSent: (to) => `We sent a confirmation code to ${to}. Type it here.`,
    codeResent: (to) => `We sent a new confirmation code to ${to}`,
    resetSent: (to) => `We sent a code to reset your password to ${to}`,
    confirmed: 'Your email is confirmed. Please sign in',
    resetDone: 'Your password is changed. Sign in with the new one',
    signedIn: (who) => `Signed in as ${who}`,
    signedOut: 'Signed out. Nothing of yours (data or tokens) is left in this browser',
    signedOutOffline: 'Signed out (the user pool could not be reached: the token is not revoked, it will expire)',
    expired: 'Your sign-in has expired. Please sign in again (the slips waiting to be sent are kept)',
    invited: 'You are invited to a shared ledger. Sign in or create an account to join it (you will come back to the invitation)',
    discard: (n) => `${n} slip(s) are waiting to be sent. Signing out discards them. Sign out?`,
    needEmail: 'Type your email', needPassword: 'Type your password', needCode: 'Type the code',
    errors: {
      NetworkError: 'You cannot sign in right now (the user pool cannot be reached). Try again when the connection is back; the slips waiting to be sent are kept',
      NotAuthorizedException: 'Incorrect email or password',
      UserNotFoundException: 'Incorrect email or password',
      UsernameExistsException: 'An account with this email already exists. Sign in, or reset its password',
      InvalidPasswordException: 'The password does not meet the policy (at least 12 characters, with upper and lower case letters and digits)',
      InvalidParameterException: 'Please check the email and the password',
      CodeMismatchException: 'Wrong code. Check the email and type it again',
      ExpiredCodeException: 'The code has expired. Ask for a new one with “Send the code again”',
      EnableSoftwareTokenMFAException: 'Wrong code from the authenticator app. Type the 6 digits it shows now',
      LimitExceededException: 'Too many attempts. Please try again later',
      TooManyRequestsException: 'Too many requests. Please try again later',
      TooManyFailedAttemptsException: 'Too many failed attempts. Please try again later',
      UserNotConfirmedException: 'Your email is not confirmed yet: type the code we sent',
      CodeDeliveryFailureException: 'The code could not be sent. Please try again later',
    },
    refused: (message) => `Could not sign in: ${message}`,
  },
};

/** The words for a language tag: Japanese for ja*, English otherwise. Pure. */
export const wordsFor = (language) => (/^ja\b/i.test(language ?? '') || !language ? WORDS.ja : WORDS.en);

/** What to say for a refusal of the pool (or its absence), in `words`' language. Pure. */
export function refusalText(error, words) {
  if (error instanceof AuthError) return words.errors[error.type] ?? words.refused(error.message);
  return words.refused(error?.message ?? String(error));
}

/** A refused authenticator code (the pool says CodeMismatchException, or EnableSoftwareTokenMFAException when turning it on): about the app, not the email. Pure. */
export function totpRefusalText(error, words) {
  const wrongCode = error instanceof AuthError && (error.type === 'CodeMismatchException' || error.type === 'EnableSoftwareTokenMFAException');
  return wrongCode ? words.errors.EnableSoftwareTokenMFAException : refusalText(error, words);
}

let ctx;
let words = WORDS.ja;
let email = ''; // who is signing up / in (the next steps need it)
let password = null; // the password typed at sign-up, in memory only: signs in once the code confirms it

const STEPS = ['signin-form', 'signup-form', 'confirm-form', 'totp-form', 'forgot-form', 'reset-form'];

/** Show one step of the panel, its first empty field focused. */
export function step(id, { focus = true } = {}) {
  for (const name of STEPS) $(name).hidden = name !== id;
  if (!focus) return;
  const field = [...$(id).querySelectorAll('input')].find((i) => !i.value) ?? $(id).querySelector('input');
  field?.focus();
}

/** An invitation opened while signed out: kept for after the sign-in. */
export function keepInvite(token) {
  try {
    sessionStorage.setItem(INVITE_KEY, token);
  } catch {
    // storage disabled: the link is opened again after signing in
  }
}

/** The invitation kept through the sign-in, taken (null when none). */
export function takeInvite() {
  try {
    const token = sessionStorage.getItem(INVITE_KEY);
    sessionStorage.removeItem(INVITE_KEY);
    return token;
  } catch {
    return null;
  }
}

const hasInvite = () => {
  try {
    return Boolean(sessionStorage.getItem(INVITE_KEY));
  } catch {
    return false;
  }
};

/** The words in the browser's language on every element under `root` that names one (data-word): a view's own. */
export function translate(root) {
  for (const node of root.querySelectorAll('[data-word]')) {
    const text = words[node.dataset.word];
    if (typeof text === 'string') node.textContent = text;
  }
}

export function mount(root, context) {
  panel = root;
  $ = within(root);
  ctx = context;
  words = wordsFor(context.language);
  if (words !== WORDS.ja) translate(root);
  $('signin-form').addEventListener('submit', submitSignIn);
  $('signup-form').addEventListener('submit', submitSignUp);
  $('confirm-form').addEventListener('submit', submitConfirm);
  $('totp-form').addEventListener('submit', submitTotp);
  $('forgot-form').addEventListener('submit', submitForgot);
  $('reset-form').addEventListener('submit', submitReset);
  $('signup-open').addEventListener('click', () => open('signup-form', { email: $('signin-email').value }));
  $('forgot-open').addEventListener('click', () => open('forgot-form', { email: $('signin-email').value }));
  $('confirm-resend').addEventListener('click', resend);
  $('signin-cancel').addEventListener('click', () => ctx.cancelSignIn());
  for (const back of root.querySelectorAll('button.back')) back.addEventListener('click', () => open('signin-form'));
}

/** The words in use (the browser's language). */
export const currentWords = () => words;

/** The panel shown at `id` (the sign-in form unless said), with `note` above it. */
export function show({ note = '', id = 'signin-form', cancel = false, email: known = null } = {}) {
  panel.hidden = false;
  $('signin-cancel').hidden = !cancel;
  if (known) $('signin-email').value = known;
  $('signin-note').textContent = note || (hasInvite() ? words.invited : '');
  $('signin-note').hidden = !$('signin-note').textContent;
  open(id);
}

export function hide() {
  panel.hidden = true;
  for (const name of STEPS) $(name).reset();
  password = null;
}

function open(id, { email: known } = {}) {
  clearError();
  if (known !== undefined) for (const field of ['signup-email', 'forgot-email']) $(field).value = known;
  step(id);
}

const session = () => ctx.session();

/** A refusal shown at the field it is about (the code, the password, the email), in the person's words. */
function refused(error, fields) {
  const text = refusalText(error, words);
  const type = error instanceof AuthError ? error.type : '';
  const field = fields[type] ?? fields.default;
  fail(field ? new FieldError(field, text) : new Error(text));
}

function required(pairs) {
  for (const [field, message] of pairs) {
    if (!field.value.trim()) {
      fail(new FieldError(field, message));
      return false;
    }
  }
  return true;
}

async function submitSignIn(event) {
  event.preventDefault();
  clearError();
  if (!required([[$('signin-email'), words.needEmail], [$('signin-password'), words.needPassword]])) return;
  email = $('signin-email').value.trim();
  await busy($('signin-submit'), () => signIn(email, $('signin-password').value));
}

async function signIn(who, secret) {
  try {
    const answer = await session().signIn(who, secret);
    if (answer.challenge === 'SOFTWARE_TOKEN_MFA') {
      step('totp-form');
      return;
    }
    await signedIn();
  } catch (error) {
    if (error instanceof AuthError && error.type === 'UserNotConfirmedException') {
      password = secret;
      confirmStep(who, null);
      showError(new Error(refusalText(error, words)));
      return;
    }
    refused(error, { NotAuthorizedException: $('signin-password'), UserNotFoundException: $('signin-password'), InvalidParameterException: $('signin-email') });
  }
}

async function signedIn() {
  const who = session().who?.email ?? email;
  password = null;
  hide();
  await ctx.signedIn();
  say(words.signedIn(who));
}

async function submitSignUp(event) {
  event.preventDefault();
  clearError();
  if (!required([[$('signup-email'), words.needEmail], [$('signup-password'), words.needPassword]])) return;
  email = $('signup-email').value.trim();
  const secret = $('signup-password').value;
  await busy($('signup-submit'), async () => {
    try {
      const answer = await session().signUp(email, secret);
      password = secret;
      if (answer.UserConfirmed) {
        await signIn(email, secret);
        return;
      }
      confirmStep(email, answer.CodeDeliveryDetails?.Destination);
    } catch (error) {
      refused(error, { InvalidPasswordException: $('signup-password'), UsernameExistsException: $('signup-email'), InvalidParameterException: $('signup-email') });
    }
  });
}

function confirmStep(who, destination) {
  email = who;
  $('confirm-text').textContent = words.codeSent(destination || who);
  $('confirm-code').value = '';
  step('confirm-form');
}

async function submitConfirm(event) {
  event.preventDefault();
  clearError();
  if (!required([[$('confirm-code'), words.needCode]])) return;
  await busy($('confirm-submit'), async () => {
    try {
      await session().confirm(email, $('confirm-code').value.trim());
    } catch (error) {
      refused(error, { default: $('confirm-code') });
      return;
    }
    if (password) {
      await signIn(email, password); // the password typed a moment ago, in memory only
      return;
    }
    $('signin-email').value = email;
    step('signin-form');
    say(words.confirmed);
  });
}

async function resend() {
  clearError();
  await busy($('confirm-resend'), async () => {
    try {
      const answer = await session().resend(email);
      say(words.codeResent(answer.CodeDeliveryDetails?.Destination || email));
      $('confirm-code').focus();
    } catch (error) {
      refused(error, { default: $('confirm-code') });
    }
  });
}

async function submitTotp(event) {
  event.preventDefault();
  clearError();
  if (!required([[$('totp-code'), words.needCode]])) return;
  await busy($('totp-submit'), async () => {
    try {
      await session().answerTotp($('totp-code').value.trim());
      await signedIn();
    } catch (error) {
      fail(new FieldError($('totp-code'), totpRefusalText(error, words)));
    }
  });
}

async function submitForgot(event) {
  event.preventDefault();
  clearError();
  if (!required([[$('forgot-email'), words.needEmail]])) return;
  email = $('forgot-email').value.trim();
  await busy($('forgot-submit'), async () => {
    try {
      const answer = await session().forgot(email);
      step('reset-form');
      say(words.resetSent(answer.CodeDeliveryDetails?.Destination || email));
    } catch (error) {
      refused(error, { default: $('forgot-email') });
    }
  });
}

async function submitReset(event) {
  event.preventDefault();
  clearError();
  if (!required([[$('reset-code'), words.needCode], [$('reset-password'), words.needPassword]])) return;
  await busy($('reset-submit'), async () => {
    try {
      await session().resetPassword(email, $('reset-code').value.trim(), $('reset-password').value);
      $('signin-email').value = email;
      $('reset-form').reset();
      step('signin-form');
      say(words.resetDone);
    } catch (error) {
      refused(error, { InvalidPasswordException: $('reset-password'), default: $('reset-code') });
    }
  });
}
