// CSV 取込: a file of slips (this API's format, Money Forward ME, Zaim) checked first with a dry
// run that writes nothing, then imported (POST /imports); the report says what was added, skipped
// as already imported, or refused and why. A later download of the same app is compared with the
// earlier ones: rows changed in the app (変更), edited here too (競合), slips the file no longer
// has (ファイルにない) and Zaim rows that may replace one (置き換え?); deleting and replacing happen
// only when the person ticks it. Shown unless the API says it has no /imports.
//
// A card's or bank's statement as its website gives it (楽天カード, Vpass, ゆうちょ…) goes onto the
// account chosen for it (POST /imports?account=): the file's bytes are sent as they are (Shift_JIS
// stays Shift_JIS; the API detects it), and the dry run says the format recognised (its name from
// GET /imports/formats, read once, in the page's language), what each row becomes, the lines
// skipped, the bank rows that pay a card and the card file checked against the card's statement.

import { ApiError, query } from '../api.js';
import { TYPE_LABELS, amountIn } from '../format.js';
import { accountName, at, on, state, unitOf } from '../state.js';
import { cardPaymentRows, checkText, differenceRows, formatName, rowText, skippedRows, statementAccounts, wordsFor } from '../statements.js';
import { FieldError, busy, clearError, fail, fillAccountSelect, h, say, showError, within } from '../ui.js';

let $ = null; // an element of the view by id, found under its root (#import-panel, the element app.js hands it)

const IMPORT_FORMATS = { kakeibo: 'この API の形式', mf: 'マネーフォワード ME', zaim: 'Zaim' };
export const IMPORT_ACTIONS = {
  create: '追加',
  not_counted: '追加（集計対象外）',
  duplicate: '取込済み',
  error: 'エラー',
  changed: '変更',
  conflict: '競合',
  missing_in_file: 'ファイルにない',
  possibly_replaced: '置き換え?',
  deleted: '削除',
  stale: '古い行',
};

/** What a dry run found, in words, the zero counts left out. Pure. */
export function previewCounts(report) {
  return [
    `追加 ${(report.created ?? 0) - (report.not_counted ?? 0)} 件`,
    report.not_counted ? `集計対象外として追加 ${report.not_counted} 件` : '',
    report.skipped ? `取込済み ${report.skipped} 件` : '',
    report.changed ? `アプリで変更 ${report.changed} 件` : '',
    report.conflicts ? `競合 ${report.conflicts} 件` : '',
    report.missing_in_file ? `ファイルにない ${report.missing_in_file} 件` : '',
    report.possibly_replaced ? `置き換え? ${report.possibly_replaced} 件` : '',
    report.failed ? `エラー ${report.failed} 件` : '',
  ].filter(Boolean);
}

/** Whether importing what was previewed would write anything (deletions only when asked). Pure. */
export function writesAnything(report, applyDeletions) {
  const always = (report.created ?? 0) + (report.changed ?? 0);
  return always + (applyDeletions ? (report.missing_in_file ?? 0) + (report.possibly_replaced ?? 0) : 0) > 0;
}

let ctx;
let panel;
let words = wordsFor();
let formats = null; // GET /imports/formats, read the first time a statement is checked

export function mount(root, context) {
  $ = within(root);
  ctx = context;
  panel = root;
  words = wordsFor(context.language);
  $('import-form').addEventListener('submit', submitImport);
  $('import-preview').addEventListener('click', previewImport);
  $('import-commit').addEventListener('click', commitPreviewed);
  $('import-apply-deletions').addEventListener('change', () => {
    if (state.previewed) $('import-commit').hidden = !writesAnything(state.previewed.report, $('import-apply-deletions').checked);
  });
  // Without an OpenAPI document, offer the import and find out from its answer.
  on('routes', () => {
    panel.hidden = Boolean(state.routes && !state.routes.has('/imports'));
  });
  // A statement's account: the ledger's cards, banks and IC cards (its own accounts are not created).
  on('accounts', fillStatementAccounts);
  $('import-account').addEventListener('change', () => {
    $('import-create-accounts-line').hidden = Boolean($('import-account').value);
  });
  // What was said about the last import belongs to the month it was made in.
  on('month', () => {
    $('import-report').hidden = true;
  });
}

function fillStatementAccounts() {
  fillAccountSelect($('import-account'), statementAccounts(state.accounts), {
    placeholder: '（明細ではない: この API・マネーフォワード ME・Zaim の CSV）',
  });
  $('import-create-accounts-line').hidden = Boolean($('import-account').value);
}

export function clear() {
  $('import-account').value = '';
  $('import-create-accounts-line').hidden = false;
  $('import-report').hidden = true;
  $('import-dry-run').hidden = true;
  state.previewed = null;
}

/**
 * POST /imports with the page's options; `dryRun` asks what would happen and writes nothing; an
 * `account` says the file is that account's statement. The file goes as its bytes (a File is sent
 * untouched: a Shift_JIS download is never decoded here). While the file is sent and read, a
 * progress bar says so (a large file takes a while).
 */
async function sendImport(file, createAccounts, dryRun = false, applyDeletions = false, account = '') {
  const options = {
    account,
    create_accounts: createAccounts && !account ? 'true' : '',
    dry_run: dryRun ? 'true' : '',
    apply_deletions: applyDeletions ? 'true' : '',
  };
  const path = at(`/imports${query(options)}`);
  const kb = Math.max(1, Math.round(file.size / 1024));
  $('import-progress-text').textContent = `${file.name}（${kb} KB）を${dryRun ? '確認' : '取り込み'}中…`;
  $('import-progress').hidden = false;
  panel.setAttribute('aria-busy', 'true');
  try {
    return await state.api.request('POST', path, { body: file, contentType: 'text/csv' });
  } finally {
    $('import-progress').hidden = true;
    panel.removeAttribute('aria-busy');
  }
}

function chosenFile() {
  const file = $('import-file').files[0];
  if (!file) fail(new FieldError($('import-file'), 'CSV ファイルを選んでください'));
  return file;
}

async function previewImport() {
  clearError();
  const file = chosenFile();
  if (!file) return;
  const createAccounts = $('import-create-accounts').checked;
  const account = $('import-account').value;
  await busy($('import-preview'), async () => {
    try {
      const { data } = await sendImport(file, createAccounts, true, false, account);
      if (data.account) await readFormats();
      state.previewed = { file, createAccounts, account, report: data };
      renderPreview(file.name, data, createAccounts);
    } catch (error) {
      // what an earlier file's dry run said is not this file's
      state.previewed = null;
      $('import-dry-run').hidden = true;
      showError(error);
    }
  });
}

/** The formats the API reads (their names in both languages), once; without them a format is named by its id. */
async function readFormats() {
  if (formats) return;
  try {
    formats = (await state.api.get(at('/imports/formats'))).data.items;
  } catch {
    formats = null;
  }
}

/** The file's format in words: a statement's by the API's listing, onto its account. */
function formatText(report) {
  if (!report.account) return IMPORT_FORMATS[report.format] ?? report.format;
  return words.onto(formatName(formats, report.format, ctx.language, report.format), accountName(report.account));
}

/** A table's rows of cells (numbers right-aligned where `num` says), the table hidden when there are none. */
function fillTable(table, rows, num = []) {
  table.querySelector('tbody').replaceChildren(
    ...rows.map((cells) => h('tr', {}, ...cells.map((text, i) => h('td', { class: num.includes(i) ? 'num' : undefined, text })))),
  );
  table.hidden = rows.length === 0;
}

/** A statement's own parts of a dry run: the card check, the rows that differ, card payments, the lines skipped. */
function renderStatement(report) {
  const yenOf = (amount) => amountIn(amount, unitOf(report.account ?? ''));
  $('import-dry-check').textContent = checkText(report, words, yenOf);
  $('import-dry-check').hidden = !report.statement;
  $('import-dry-differences-caption').textContent = words.checkCaption;
  fillTable($('import-dry-differences'), differenceRows(report, words, yenOf), [1, 4, 5]);
  $('import-dry-payments-caption').textContent = words.paymentsCaption;
  fillTable($('import-dry-payments'), cardPaymentRows(report, words, accountName, yenOf), [0, 3]);
  const skipped = skippedRows(report, words);
  $('import-dry-skipped-caption').textContent = words.skippedCaption(skipped.length);
  fillTable($('import-dry-skipped'), skipped, [0]);
}

function renderPreview(name, report, createAccounts) {
  const counts = previewCounts(report);
  $('import-dry-summary').textContent =
    `${name}（${formatText(report)}）: ${counts.join('、')}。まだ何も書き込んでいません。`;
  const notices = report.notices ?? [];
  $('import-dry-notices').textContent = notices.join(' ');
  $('import-dry-notices').hidden = notices.length === 0;
  const deletable = (report.missing_in_file ?? 0) + (report.possibly_replaced ?? 0);
  $('import-apply-deletions').checked = false;
  $('import-deletions').hidden = deletable === 0;
  const unknown = report.unknown_accounts ?? [];
  $('import-dry-accounts').textContent = unknown.length
    ? `${createAccounts ? '作成する口座' : '登録されていない口座'}: ` +
      unknown.map((a) => `${a.name}（${TYPE_LABELS[a.type] ?? a.type}、ID ${a.id}）`).join('、')
    : '';
  $('import-dry-accounts').hidden = unknown.length === 0;
  const toCreate = new Map(unknown.map((a) => [a.id, a.name]));
  const label = (id) => toCreate.get(id) ?? accountName(id);
  const rows = (report.outcomes ?? []).map((item) => {
    const slip = item.slip ?? item.current ?? {};
    const what = report.account && slip.kind !== 'transfer' ? rowText(slip, words) : slip.kind === 'transfer' ? `${label(slip.account)} → ${label(slip.to_account)}` : [
      label(slip.account ?? ''),
      [slip.category, slip.subcategory].filter(Boolean).join(' / '),
    ].filter(Boolean).join(' ');
    return h(
      'tr',
      { class: `import-${item.action}` },
      h('td', { class: 'num', text: item.line === null || item.line === undefined ? '—' : String(item.line) }),
      h('td', { class: 'nowrap', text: IMPORT_ACTIONS[item.action] ?? item.action }),
      h('td', { class: 'nowrap', text: slip.date ?? '' }),
      h('td', { text: what }),
      h('td', { class: 'num', text: slip.amount === undefined ? '' : amountIn(slip.kind === 'expense' ? -slip.amount : slip.amount, unitOf(slip.account)) }),
      h('td', { text: item.message ?? slip.memo ?? '' }),
    );
  });
  $('import-dry-rows').querySelector('tbody').replaceChildren(...rows);
  renderStatement(report);
  $('import-commit').hidden = !writesAnything(report, false);
  $('import-report').hidden = true;
  $('import-dry-run').hidden = false;
  say($('import-dry-summary').textContent);
}

async function commitPreviewed() {
  clearError();
  const previewed = state.previewed;
  if (!previewed) return;
  await busy($('import-commit'), async () => {
    try {
      const deletions = $('import-apply-deletions').checked;
      const { data } = await sendImport(previewed.file, previewed.createAccounts, false, deletions, previewed.account);
      state.previewed = null;
      $('import-dry-run').hidden = true;
      renderImport(previewed.file.name, data);
      await ctx.refresh();
    } catch (error) {
      showError(error);
    }
  });
}

async function submitImport(event) {
  event.preventDefault();
  clearError();
  const file = chosenFile();
  if (!file) return;
  await busy($('import-submit'), async () => {
    try {
      const { data } = await sendImport(file, $('import-create-accounts').checked, false, false, $('import-account').value);
      $('import-dry-run').hidden = true;
      renderImport(file.name, data);
      await ctx.refresh();
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && !error.code) {
        panel.hidden = true;
        showError(new Error('この API には CSV 取込がありません'));
      } else {
        showError(error);
      }
    }
  });
}

function renderImport(name, report) {
  const errors = report.errors ?? [];
  $('import-summary').textContent =
    `${name}: ${report.rows} 行中 ${report.created} 件を追加` +
    (report.changed ? `、${report.changed} 件をアプリでの変更どおりに更新` : '') +
    (report.deleted ? `、${report.deleted} 件を削除` : '') +
    (report.skipped ? `、${report.skipped} 件は取込済みのためスキップ` : '') +
    (report.conflicts ? `、${report.conflicts} 件は競合のためそのまま` : '') +
    (report.missing_in_file ? `、${report.missing_in_file} 件はファイルにない（削除していません）` : '') +
    (report.possibly_replaced && !report.created ? `、${report.possibly_replaced} 件は置き換えの確認待ち` : '') +
    (errors.length ? `、${errors.length} 行はエラー` : '') +
    `（取込 ID ${report.import_id}）`;
  const yenOf = (amount) => amountIn(amount, unitOf(report.account ?? ''));
  $('import-check').textContent = checkText(report, words, yenOf);
  $('import-check').hidden = !report.statement;
  const table = $('import-errors');
  table.querySelector('tbody').replaceChildren(
    ...errors.map((e) => h('tr', {}, h('td', { class: 'num', text: String(e.line) }), h('td', { text: e.message }))),
  );
  table.hidden = errors.length === 0;
  $('import-report').hidden = false;
  say($('import-summary').textContent);
}
