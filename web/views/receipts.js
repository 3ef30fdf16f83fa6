// 領収書: photos and PDFs of receipts on a slip. A file chosen (on a phone the camera opens) is
// hashed here (SHA-256), claimed (POST /receipts, with an Idempotency-Key of its hash, so a claim
// sent again after a dropped connection gets the same upload URL), PUT straight to S3 with the
// headers the claim names (upload progress shown; S3 refuses a second write of the same bytes),
// then completed; the slip form then sends its receipts with the slip. Thumbnails open the original.

import { ApiError, segment } from '../api.js';
import { at, on, state } from '../state.js';
import { h, say, showError, within } from '../ui.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#slip-receipts-field, the element app.js hands it)

export const RECEIPT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'application/pdf'];
export const MAX_RECEIPT_BYTES = 10 * 1024 * 1024;
export const MAX_RECEIPTS = 5;

let attached = []; // ids of the receipts on the slip in the form
const shown = new Map(); // id -> {content_type, url} as last read

/** Hex of a digest. Pure. */
export function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Why a file cannot be a receipt (null: it can). Pure. */
export function refusal(file) {
  if (!RECEIPT_TYPES.includes(file.type)) return `${file.name}: 写真（JPEG・PNG・WebP・HEIC）か PDF を選んでください`;
  if (file.size > MAX_RECEIPT_BYTES) return `${file.name}: 10 MB までのファイルにしてください`;
  if (file.size === 0) return `${file.name}: 空のファイルです`;
  return null;
}

/** The receipts part of a slip edit: present only when they changed (replaced whole). Pure. */
export function receiptsPatch(base, wanted) {
  const before = [...(base.receipts ?? [])].sort();
  const after = [...(wanted.receipts ?? [])].sort();
  return JSON.stringify(before) === JSON.stringify(after) ? {} : { receipts: after };
}

export function readReceipts() {
  return attached.length ? { receipts: [...attached].sort() } : {};
}

export function setReceipts(values) {
  attached = [...(values.receipts ?? [])];
  render();
}

export function mount(root) {
  panel = root;
  $ = within(root);
  // Without the API's /receipts (an older API), the slip form offers none.
  on('routes', () => {
    panel.hidden = Boolean(state.routes && !state.routes.has('/receipts'));
  });
  $('slip-receipt-file').addEventListener('change', async (event) => {
    const files = [...event.target.files];
    event.target.value = '';
    for (const file of files) await add(file);
  });
}

export function clear() {
  setReceipts({});
}

async function add(file) {
  const problem = refusal(file);
  if (problem) {
    showError(new Error(problem));
    return;
  }
  if (attached.length >= MAX_RECEIPTS) {
    showError(new Error(`領収書は 1 件の伝票に ${MAX_RECEIPTS} 枚までです`));
    return;
  }
  try {
    const sha256 = hex(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
    const claim = { sha256, size: file.size, content_type: file.type };
    const { data: claimed } = await state.api.request('POST', at('/receipts'), {
      json: claim,
      headers: { 'Idempotency-Key': `receipt-${sha256}` },
    });
    if (claimed.state !== 'stored') {
      await put(claimed.upload, file);
      await state.api.request('POST', at(`/receipts/${segment(sha256)}/complete`));
    }
    if (!attached.includes(sha256)) attached.push(sha256);
    say(`領収書を添付しました: ${file.name}（伝票を保存すると付きます）`);
    render();
  } catch (error) {
    showError(error instanceof ApiError ? error : new Error(`${file.name} をアップロードできませんでした: ${error.message}`));
  } finally {
    $('slip-receipt-progress').hidden = true;
  }
}

/** PUT the bytes to S3 with upload progress. A 412 means they are there already: nothing twice. */
function put(upload, file) {
  const bar = $('slip-receipt-progress');
  bar.hidden = false;
  bar.value = 0;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(upload.method, upload.url);
    for (const [name, value] of Object.entries(upload.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) bar.value = event.loaded / event.total;
    };
    xhr.onload = () => (xhr.status < 300 || xhr.status === 412 ? resolve() : reject(new Error(`HTTP ${xhr.status}`)));
    xhr.onerror = () => reject(new Error('通信が切れました。もう一度選ぶと続きから送ります'));
    xhr.send(file);
  });
}

async function render() {
  const list = $('slip-receipts');
  list.replaceChildren(...attached.map((id) => item(id)));
  list.hidden = attached.length === 0;
  for (const id of attached) {
    if (shown.has(id)) continue;
    try {
      const { data } = await state.api.get(at(`/receipts/${segment(id)}`));
      shown.set(id, { contentType: data.content_type, url: data.download?.url });
      const node = list.querySelector(`li[data-receipt="${id}"]`);
      if (node) node.replaceWith(item(id));
    } catch (error) {
      showError(error);
    }
  }
}

function item(id) {
  const known = shown.get(id);
  const label = `領収書 ${id.slice(0, 8)}`;
  const preview = known?.url && known.contentType.startsWith('image/') && known.contentType !== 'image/heic'
    ? h('img', { src: known.url, alt: label, class: 'receipt-thumb', width: 64, height: 64 })
    : h('span', { class: 'receipt-thumb pdf', text: known?.contentType === 'application/pdf' ? 'PDF' : '…' });
  return h(
    'li',
    { dataset: { receipt: id } },
    known?.url ? h('a', { href: known.url, target: '_blank', rel: 'noopener', 'aria-label': `${label}の原本を開く` }, preview) : preview,
    h('button', {
      type: 'button',
      class: 'small',
      'aria-label': `${label}を外す`,
      text: '外す',
      onclick: () => {
        attached = attached.filter((a) => a !== id);
        render();
      },
    }),
  );
}
