// 精算: in a shared ledger, who is owed and who owes from the slips paid from members' own pockets
// (立替), with the fewest transfers that settle everyone. Recording one sends the nets' ETag
// (If-Match): when another member recorded a settlement meanwhile the API answers 412, the view says
// so and shows the nets as they are now — nobody can pay the same debt twice from a stale view.
// A member who left with a net other than 0 stays listed (退出済み) until it is settled.

import { ApiError, PERSONAL, segment } from '../api.js';
import { canWrite, yen } from '../format.js';
import { memberName, newest, on, state } from '../state.js';
import { busy, h, say, showError, within } from '../ui.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#settlement-panel, the element app.js hands it)

let view = null; // {members, suggested, etag}

const path = () => `/ledgers/${segment(state.ledger)}/settlement`;

/** A member's net in words. Pure. */
export function netText(net) {
  if (net > 0) return `${yen(net)} 受け取る`;
  if (net < 0) return `${yen(-net)} 払う`;
  return '精算済み';
}

/** How a member of the settlement is named: 退出済み for one who left with a net still open. Pure but for who "you" are. */
export function named(user, members) {
  const member = members.find((m) => m.user === user);
  return member && !member.member ? `${user}（退出済み）` : memberName(user);
}

export function mount(root) {
  panel = root;
  $ = within(root);
  on('role', () => render());
}

export function clear() {
  view = null;
  render();
}

export async function load() {
  const shown = state.ledger !== PERSONAL && (!state.routes || state.routes.has('/ledgers/{ledger}/settlement'));
  panel.hidden = !shown;
  if (!shown) {
    view = null;
    return;
  }
  const isNewest = newest('settlement');
  const { data, etag } = await state.api.get(path());
  if (!isNewest()) return;
  view = { ...data, etag };
  render();
}

export function render() {
  const members = view?.members ?? [];
  $('settlement-rows').replaceChildren(
    ...members.map((m) =>
      h(
        'tr',
        { dataset: { user: m.user }, class: m.member ? undefined : 'left' },
        h('th', { scope: 'row', class: 'who', text: named(m.user, members) }),
        h('td', { class: 'num', 'data-label': '立替えた', text: yen(m.paid) }),
        h('td', { class: 'num', 'data-label': '負担', text: yen(m.share) }),
        h('td', { class: 'num', 'data-label': '精算', text: yen(m.settled) }),
        h('td', { class: `num net ${m.net > 0 ? 'owed' : m.net < 0 ? 'owes' : ''}`, 'data-label': '差引', text: netText(m.net) }),
      ),
    ),
  );
  $('settlement-table').hidden = members.length === 0;
  $('settlement-empty').hidden = members.length > 0;
  const suggested = view?.suggested ?? [];
  const writer = canWrite(state.role);
  $('settlement-suggested').replaceChildren(
    ...suggested.map((t) => {
      const words = `${named(t.from, members)} → ${named(t.to, members)} ${yen(t.amount)}`;
      return h(
        'li',
        { dataset: { from: t.from, to: t.to } },
        h('span', { text: words }),
        writer ? h('button', { type: 'button', class: 'small settle', 'aria-label': `支払ったので記録: ${words}`, text: '支払ったので記録', onclick: (event) => record(t, event.currentTarget) }) : null,
      );
    }),
  );
  $('settlement-done').hidden = !(view && members.length > 0 && suggested.length === 0);
}

async function record(transfer, button) {
  const etag = view.etag; // the nets the person saw: if they changed by the time they confirm, 412
  const words = `${named(transfer.from, view.members)} が ${named(transfer.to, view.members)} に ${yen(transfer.amount)}`;
  if (!window.confirm(`${words}を支払ったことを記録しますか？`)) return;
  await busy(button, async () => {
    try {
      await state.api.request('POST', `/ledgers/${segment(state.ledger)}/settlements`, {
        json: { from: transfer.from, to: transfer.to, amount: transfer.amount },
        ifMatch: etag,
      });
      say(`精算を記録しました: ${words}`);
      await load();
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) {
        await load().catch(() => {});
        say('ほかのメンバーが先に精算や立替を記録しました。いまの状態を表示しています。必要ならもう一度記録してください');
        return;
      }
      showError(error);
    }
  });
}
