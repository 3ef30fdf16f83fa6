// お知らせ (DESIGN §27): the open alerts (a budget at 80% or 100%, a shortfall before a debit, points
// lapsing, a card debited soon) as a badge in the header with their list under it, each dismissed
// with its own button. Each alert's message comes in the page's language (Accept-Language).

import { segment } from '../api.js';
import { momentText } from '../format.js';
import { at, newest, state } from '../state.js';
import { busy, h, optional, say, showError, within } from '../ui.js';
import { alertCountText } from './ahead.js';

let $ = null; // an element of the view by id, found under its root (#alerts, the element app.js hands it)

let alerts = [];
let panel = null;

export function mount(root) {
  $ = within(root);
  panel = root;
}

export function load() {
  const isNewest = newest('alerts');
  return optional(panel, '/alerts', async () => {
    const { data } = await state.api.get(at('/alerts'));
    if (!isNewest()) return;
    alerts = data.items;
    render();
  });
}

export function clear() {
  alerts = [];
  render();
  panel.hidden = true;
}

export function render() {
  const count = alerts.length;
  $('alerts-count').textContent = String(count);
  $('alerts-count').hidden = count === 0;
  $('alerts-label').textContent = alertCountText(count);
  panel.classList.toggle('some', count > 0);
  $('alert-rows').replaceChildren(
    ...alerts.map((alert) =>
      h(
        'li',
        { class: `alert ${alert.kind}`, dataset: { id: alert.id, kind: alert.kind } },
        h('span', { class: 'alert-message', text: alert.message }),
        h('small', { text: momentText(alert.raised_at) }),
        h('button', { type: 'button', class: 'small write', 'aria-label': `閉じる: ${alert.message}`, text: '閉じる', onclick: (event) => dismiss(alert, event.currentTarget) }),
      ),
    ),
  );
  $('alerts-empty').hidden = count > 0;
}

async function dismiss(alert, button) {
  try {
    await busy(button, () => state.api.request('POST', at(`/alerts/${segment(alert.id)}/dismiss`)));
    alerts = alerts.filter((a) => a.id !== alert.id);
    render();
    say('お知らせを閉じました');
  } catch (error) {
    showError(error);
    load().catch(() => {});
  }
}
