// データの書き出し: an owner exports the whole ledger (every item, the journal, the receipts' bytes)
// into one archive. The export is built request by request: while it is still building the page asks
// again (which carries on where it stopped), showing how far it got, until it can be downloaded.

import { segment } from '../api.js';
import { at, on, state } from '../state.js';
import { $, h, say, showError } from '../ui.js';

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
  on('role', () => load().catch(() => {}));
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
