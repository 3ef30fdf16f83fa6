// Webhook: an owner's URLs told of every change of the ledger (each journal entry POSTed, signed).
// Add one (its secret is shown once, with a copy button), see its latest deliveries, remove it.

import { ApiError, segment } from '../api.js';
import { on, state } from '../state.js';
import { h, say, showError, within } from '../ui.js';

let $ = null; // an element of the view by id, found under its root (#webhooks-panel, the element app.js hands it)

let hooks = [];

const base = () => `/ledgers/${segment(state.ledger)}/webhooks`;

/** A delivery's outcome in words. Pure. */
export function deliveryText(delivery) {
  const last = delivery.last ?? {};
  const outcome = delivery.delivered ? '届きました' : `届いていません（${last.status ? `HTTP ${last.status}` : last.error ?? '応答なし'}）`;
  return `#${delivery.seq} ${outcome}・${delivery.attempts} 回`;
}

let panel = null;

/** Shown on the route on screen (#/settings)? Off it, the page reads its data when it is opened. */
const shown = () => Boolean(panel) && !panel.classList.contains('off-route');

export function mount(root) {
  $ = within(root);
  panel = root;
  $('webhook-form').addEventListener('submit', (event) => {
    event.preventDefault();
    create();
  });
  $('webhook-secret-copy').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('webhook-secret').textContent);
      say('シークレットをコピーしました');
    } catch {
      say('コピーできませんでした。シークレットを選んでコピーしてください');
    }
  });
  // a role changed: read the webhooks again only while they are shown (an owner's, or none)
  on('role', () => {
    if (shown()) load().catch(() => {});
    else panel.hidden = !ownerHere();
  });
}

const ownerHere = () => state.role === 'owner' && (!state.routes || state.routes.has('/ledgers/{ledger}/webhooks'));

export function clear() {
  hooks = [];
  $('webhook-created').hidden = true;
  render();
}

export async function load() {
  const owner = ownerHere();
  panel.hidden = !owner;
  if (!owner) return;
  const ledger = state.ledger;
  const { data } = await state.api.get(base());
  if (ledger !== state.ledger) return;
  hooks = data.items;
  render();
}

export function render() {
  $('webhook-rows').replaceChildren(
    ...hooks.map((hook) =>
      h(
        'li',
        { dataset: { id: hook.id } },
        h('span', { class: 'url', text: hook.url }),
        h('span', { class: 'sub', text: hook.description ?? '' }),
        h('button', { type: 'button', class: 'small deliveries', 'aria-label': `配信の記録: ${hook.url}`, text: '配信の記録', onclick: () => showDeliveries(hook) }),
        h('button', { type: 'button', class: 'small danger', 'aria-label': `削除: ${hook.url}`, text: '削除', onclick: () => remove(hook) }),
        h('ul', { class: 'deliveries-list', id: `deliveries-${hook.id}` }),
      ),
    ),
  );
  $('webhooks-empty').hidden = hooks.length > 0;
}

async function create() {
  const url = $('webhook-url').value.trim();
  const description = $('webhook-description').value.trim();
  try {
    const { data } = await state.api.request('POST', base(), { json: description ? { url, description } : { url } });
    $('webhook-secret').textContent = data.secret;
    $('webhook-created').hidden = false;
    $('webhook-form').reset();
    say('Webhook を追加しました。シークレットはこの一度だけ表示されます');
    await load();
  } catch (error) {
    showError(error, error instanceof ApiError && error.status === 422 ? 'webhook-url' : undefined);
  }
}

async function remove(hook) {
  if (!window.confirm(`${hook.url} への通知をやめますか？`)) return;
  try {
    await state.api.request('DELETE', `${base()}/${segment(hook.id)}`);
    say('Webhook を削除しました');
    await load();
  } catch (error) {
    showError(error);
  }
}

async function showDeliveries(hook) {
  try {
    const { data } = await state.api.get(`${base()}/${segment(hook.id)}/deliveries`);
    const list = $(`deliveries-${hook.id}`);
    list.replaceChildren(...(data.items.length ? data.items.map((d) => h('li', { text: deliveryText(d) })) : [h('li', { text: 'まだ配信はありません' })]));
  } catch (error) {
    showError(error);
  }
}
