// Small DOM helpers every view uses: elements, busy buttons, the page's messages (one error, one
// status, never both), validation failures that name their field, optional panels.

import { ApiError } from './api.js';
import { emit, state } from './state.js';
import { TYPE_LABELS } from './format.js';

export const $ = (id) => document.getElementById(id);

/** A view's own lookup: an element by id under its root only (the element app.js hands it), never elsewhere on the page. */
export const within = (root) => (id) => root.querySelector(`#${CSS.escape(id)}`);

/** An element: h('td', {class: 'num', text: '￥1'}, ...children); `on*` props are listeners. */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return node;
}

/** Run `work` with `button` disabled and its form marked busy. */
export async function busy(button, work) {
  const form = button.form;
  button.disabled = true;
  form?.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    form?.removeAttribute('aria-busy');
  }
}

export function uuid() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((v) => v.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** A select of accounts ("財布（現金）"), keeping the chosen one when it is still offered. */
export function fillAccountSelect(select, accounts, { placeholder } = {}) {
  const keep = select.value;
  select.replaceChildren(
    ...(placeholder ? [h('option', { value: '', text: placeholder })] : []),
    ...accounts.map((a) => h('option', { value: a.id, text: `${a.name}（${TYPE_LABELS[a.type] ?? a.type}）` })),
  );
  if (accounts.some((a) => a.id === keep)) select.value = keep;
}

// ---- messages ----------------------------------------------------------------------------------

// When the answer has no code (API Gateway's own responses, e.g. the JWT authorizer's 401).
const STATUS_LEADS = { 401: '認証が必要です', 403: '権限がありません', 404: '見つかりません', 429: '混み合っています', 503: '一時的に使えません' };

export function errorText(error) {
  if (error instanceof ApiError) {
    // The API words its problems in the language the page asks for (Accept-Language): shown as they come.
    if (error.code) return error.detail;
    const lead = STATUS_LEADS[error.status] ?? (error.status ? `エラー ${error.status}` : '通信エラー');
    return `${lead}: ${error.detail}`;
  }
  return error?.message ?? String(error);
}

export function showError(error, field) {
  const box = $('error');
  box.textContent = errorText(error);
  box.hidden = false;
  $('status').textContent = '';
  // A write refused for the caller's role (changed since the page read it): offer what it allows now.
  if (error instanceof ApiError && error.status === 403 && error.code) emit('forbidden');
  if (field) {
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-errormessage', 'error');
    field.focus();
  }
}

export function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
  for (const node of document.querySelectorAll('[aria-invalid="true"]')) {
    node.removeAttribute('aria-invalid');
    node.removeAttribute('aria-errormessage');
  }
}

/** A success or progress message: it replaces any error shown, so the two never contradict. */
export function say(text, link) {
  if (text) {
    $('error').hidden = true;
    $('error').textContent = '';
  }
  $('status').replaceChildren(text, ...(link ? [' ', h('a', { href: link.href, text: link.text })] : []));
}

/** A validation failure in the page itself, before anything is sent. */
export class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

export function fail(error) {
  if (error instanceof FieldError) showError(error, error.field);
  else showError(error);
}

/** The field a 422 is about, when the caller knows it; else nothing (the message names it). */
export const on422 = (error, field) => (error instanceof ApiError && error.status === 422 ? field : undefined);

// ---- optional panels ---------------------------------------------------------------------------

/** An optional panel's data: hidden when the API lacks the route (declared, or answering 404 with no code). */
export async function optional(panel, route, load) {
  if (state.routes && !state.routes.has(route)) {
    panel.hidden = true;
    return;
  }
  try {
    await load();
    panel.hidden = false;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && !error.code) {
      panel.hidden = true;
      return;
    }
    throw error;
  }
}
