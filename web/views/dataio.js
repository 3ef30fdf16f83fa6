// データの書き出し: an owner exports the whole ledger (every item, the journal, the receipts' bytes)
// into one archive. The export is built request by request: while it is still building the page asks
// again (which carries on where it stopped), showing how far it got, until it can be downloaded.
// 家計簿を削除: an owner deletes a shared ledger, typing its name to confirm; the deletion is carried
// on request by request too, then the personal ledger is shown.
// 自分のデータを削除 (DELETE /me, shown with the personal ledger): the person types a phrase to
// confirm; while they are the only owner of a shared ledger others are in, the API refuses (409
// sole_owner) and the page lists those ledgers; else the deletion is carried on until it is done.

import { ApiError, segment } from '../api.js';
import { forgetAll } from '../kept.js';
import { at, on, state } from '../state.js';
import { FieldError, clearError, fail, h, say, showError, within } from '../ui.js';
import { ledgerDeleted, ledgerMade } from './ledgers.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#data-panel, the element app.js hands it)

const PAUSE_MS = 1000;
let running = false;

/** The progress of an export in words. Pure. */
export function progressText(exported) {
  const done = exported.state === 'ready';
  const counts = `${exported.items} 件・レシート ${exported.receipts} 枚`;
  return done ? `書き出しました（${counts}）` : `書き出し中…（${counts}、${exported.parts} 区切り保存済み）`;
}

/** The phrase a person types to delete their own data. */
export const ME_PHRASE = 'すべて削除';

/** Whether the phrase typed confirms deleting one's own data. Pure. */
export function phraseConfirms(typed) {
  return typed.trim() === ME_PHRASE;
}

/** The shared ledgers a 409 sole_owner names, in words (name and id). Pure. */
export function blockingLedgers(problem) {
  const ledgers = Array.isArray(problem?.ledgers) ? problem.ledgers : [];
  return ledgers.map((l) => (l.name ? `${l.name}（${l.id}）` : String(l.id)));
}

let page = null;

export function mount(root, ctx) {
  panel = root;
  $ = within(root);
  page = ctx ?? null;
  $('export-start').addEventListener('click', () => start());
  $('me-delete-phrase').addEventListener('input', () => {
    $('me-delete').disabled = !phraseConfirms($('me-delete-phrase').value);
  });
  $('me-delete-form').addEventListener('submit', (event) => {
    event.preventDefault();
    removeMe();
  });
  $('ledger-delete-name').addEventListener('input', () => {
    $('ledger-delete').disabled = !confirmed();
  });
  $('ledger-delete-form').addEventListener('submit', (event) => {
    event.preventDefault();
    remove();
  });
  $('restore-form').addEventListener('submit', (event) => {
    event.preventDefault();
    restore();
  });
  on('role', render); // what an owner may do here: drawn, nothing read
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
  // a restore makes a new ledger of the person's own: offered where they own the ledger shown (their
  // own one always), so a viewer of a shared ledger is offered no action in it
  const restorable = state.role === 'owner' && (!state.routes || state.routes.has('/ledgers/restore'));
  panel.hidden = !owner && !restorable;
  $('export-part').hidden = !owner;
  $('restore-form').hidden = !restorable;
  const shared = owner && state.ledger !== 'me' && Boolean(shownName());
  $('ledger-delete-form').hidden = !shared || Boolean(state.routes && !state.routes.has('/ledgers/{ledger}'));
  $('ledger-delete-expected').textContent = shownName() ?? '';
  $('ledger-delete-name').value = '';
  $('ledger-delete-progress').textContent = '';
  $('ledger-delete').disabled = true;
  const personal = state.ledger === 'me' && (!state.routes || state.routes.has('/me'));
  $('me-delete-form').hidden = !personal;
  if (!deletingMe) {
    $('me-delete-phrase').value = '';
    $('me-delete').disabled = true;
    $('me-delete-progress').textContent = '';
    $('me-delete-blocked').hidden = true;
  }
}

let deletingMe = false;

async function removeMe() {
  if (deletingMe || !phraseConfirms($('me-delete-phrase').value)) return;
  deletingMe = true;
  $('me-delete').disabled = true;
  $('me-delete-blocked').hidden = true;
  try {
    let deletion;
    for (;;) {
      ({ data: deletion } = await state.api.request('DELETE', '/me'));
      $('me-delete-progress').textContent = deletionText(deletion);
      if (deletion.state === 'deleted') break;
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
    $('me-delete-phrase').value = '';
    forgetAll(); // what this browser kept of them for entering slips offline goes too
    await page?.refresh();
    say('自分のデータを削除しました');
  } catch (error) {
    if (error instanceof ApiError && error.status === 409 && error.code === 'sole_owner') {
      $('me-delete-ledgers').replaceChildren(...blockingLedgers(error.problem).map((text) => h('li', { text })));
      $('me-delete-blocked').hidden = false;
      $('me-delete-progress').textContent = '';
    } else {
      showError(error);
    }
    $('me-delete').disabled = !phraseConfirms($('me-delete-phrase').value);
  } finally {
    deletingMe = false;
  }
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

// ---- 復元: an exported archive into a new ledger ----------------------------------------------------

/** How far a restore got, in words. Pure. */
export function restoreText(restored) {
  if (restored.state === 'restored') return `復元しました（${restored.items} 件、レシート ${restored.receipts} 件）`;
  if (restored.state === 'restoring') return `復元中…（${restored.items} 件）`;
  return 'アーカイブを送っています…';
}

/** The SHA-256 of some bytes, as the API names an archive (lowercase hex). */
export async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

let restoring = false;

/**
 * POST /ledgers/restore names the archive (its sha256 and size); 202 pending hands a URL to PUT it
 * to, once; the same POST again checks it and writes the new ledger (202 restoring: again, to carry
 * on). The page then shows the new ledger. A 422 says what is wrong with the archive; nothing is made.
 */
async function restore() {
  if (restoring) return;
  clearError();
  const file = $('restore-file').files?.[0];
  if (!file) {
    fail(new FieldError($('restore-file'), '書き出したアーカイブ（.jsonl.gz）を選んでください'));
    return;
  }
  restoring = true;
  $('restore-submit').disabled = true;
  try {
    const name = $('restore-name').value.trim();
    const body = { sha256: await sha256Hex(await file.arrayBuffer()), size: file.size, ...(name ? { name } : {}) };
    let restored;
    let uploads = 0;
    for (;;) {
      ({ data: restored } = await state.api.request('POST', '/ledgers/restore', { json: body }));
      $('restore-progress').textContent = restoreText(restored);
      if (restored.state === 'restored') break;
      if (restored.state === 'pending' && restored.upload) {
        if (uploads === 2) throw new Error('アーカイブを送れませんでした。もう一度お試しください');
        uploads += 1;
        await put(restored.upload, file);
        continue; // sent: the same POST again checks it and restores
      }
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
    $('restore-form').reset();
    await ledgerMade(restored.ledger.id);
    say(`「${restored.ledger.name}」を復元しました。あなたがオーナーです`);
  } catch (error) {
    showError(error, error instanceof ApiError && error.status === 422 ? $('restore-file') : undefined);
  } finally {
    restoring = false;
    $('restore-submit').disabled = false;
  }
}

/** The archive's bytes to where the API said, with exactly its headers; a 412 means they are there already. */
async function put(upload, file) {
  let response;
  try {
    response = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: file });
  } catch {
    throw new ApiError(0, null, 'アーカイブを送れませんでした（接続できません）');
  }
  if (!response.ok && response.status !== 412) throw new ApiError(response.status, null, `アーカイブを送れませんでした（HTTP ${response.status}）`);
}
