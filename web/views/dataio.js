// データの書き出し: an owner exports the whole ledger (every item, the journal, the receipts' bytes)
// into one archive. The export is built request by request: while it is still building the page asks
// again (which carries on where it stopped), showing how far it got, until it can be downloaded.
// 家計簿を削除: an owner deletes a shared ledger, typing its name to confirm; the deletion is carried
// on request by request too, then the personal ledger is shown.

import { segment } from '../api.js';
import { at, on, state } from '../state.js';
import { $, h, say, showError } from '../ui.js';
import { ledgerDeleted } from './ledgers.js';

const PAUSE_MS = 1000;
let running = false;

/** The progress of an export in words. Pure. */
export function progressText(exported) {
  const done = exported.state === 'ready';
  const counts = `${exported.items} 件・レシート ${exported.receipts} 枚`;
  return done ? `書き出しました（${counts}）` : `書き出し中…（${counts}、${exported.parts} 区切り保存済み）`;
}

export function mount() {
  $('export-start').addEventListener('click', () => start());
  $('ledger-delete-name').addEventListener('input', () => {
    $('ledger-delete').disabled = !confirmed();
  });
  $('ledger-delete-form').addEventListener('submit', (event) => {
    event.preventDefault();
    remove();
  });
  on('role', () => load().catch(() => {}));
}

const shownName = () => state.ledgers?.find((l) => l.id === state.ledger)?.name ?? null;

/** Whether the name typed is the ledger's own. Pure on its arguments. */
export function nameConfirms(typed, name) {
  return Boolean(name) && typed.trim() === name;
}

const confirmed = () => nameConfirms($('ledger-delete-name').value, shownName());

/** How far a deletion got, in words. Pure. */
export function deletionText(deletion) {
  return deletion.state === 'deleted'
    ? `削除しました（${deletion.items} 件）`
    : `削除中…（${deletion.items} 件削除済み）`;
}

export function clear() {
  $('export-progress').textContent = '';
  $('export-download').replaceChildren();
}

export async function load() {
  render();
}

export function render() {
  const owner = state.role === 'owner' && (!state.routes || state.routes.has('/ledgers/{ledger}/exports'));
  $('data-panel').hidden = !owner;
  const shared = owner && state.ledger !== 'me' && Boolean(shownName());
  $('ledger-delete-form').hidden = !shared || Boolean(state.routes && !state.routes.has('/ledgers/{ledger}'));
  $('ledger-delete-expected').textContent = shownName() ?? '';
  $('ledger-delete-name').value = '';
  $('ledger-delete-progress').textContent = '';
  $('ledger-delete').disabled = true;
}

async function remove() {
  if (!confirmed()) return;
  const ledger = state.ledger;
  const name = shownName();
  $('ledger-delete').disabled = true;
  try {
    const path = `/ledgers/${segment(ledger)}`;
    const { etag } = await state.api.get(path);
    let deletion;
    for (;;) {
      ({ data: deletion } = await state.api.request('DELETE', path, { ifMatch: etag ?? '*' }));
      $('ledger-delete-progress').textContent = deletionText(deletion);
      if (deletion.state === 'deleted') break;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
    await ledgerDeleted();
    say(`「${name}」を削除しました。自分の家計簿を表示しています`);
  } catch (error) {
    showError(error);
    $('ledger-delete').disabled = !confirmed();
  }
}

async function start() {
  if (running) return;
  running = true;
  $('export-start').disabled = true;
  clear();
  const ledger = state.ledger;
  try {
    let exported;
    for (;;) {
      ({ data: exported } = await state.api.request('POST', at('/exports')));
      if (ledger !== state.ledger) return;
      $('export-progress').textContent = progressText(exported);
      if (exported.state === 'ready') break;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
    const { data } = await state.api.get(at(`/exports/${segment(exported.id)}`));
    $('export-download').replaceChildren(
      h('a', { href: data.download.url, download: `kakeibo-${exported.id}.jsonl.gz`, text: 'アーカイブをダウンロード' }),
    );
    say('データを書き出しました');
  } catch (error) {
    showError(error);
  } finally {
    running = false;
    $('export-start').disabled = false;
  }
}
