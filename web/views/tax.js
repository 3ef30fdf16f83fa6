// 確定申告: the year's medical payments (医療費控除, with セルフメディケーション beside it and which
// one to claim), the e-Tax 医療費集計フォーム as an .xlsx (to upload as it is) or CSV download, and ふるさと納税 per municipality with
// whether ワンストップ特例 still applies. Everything comes from the API's yearly reports (one item
// per year on the server), so the panel costs the same whatever the number of slips. On the slip
// form, an expense may be marked as a medical payment (who was treated — the household's members
// offered as chips —, where, which kind, what is reimbursed) or a ふるさと納税 donation.

import { ApiError, ledgerPath } from '../api.js';
import { parseAmount, yen } from '../format.js';
import { memberName, newest, on, state } from '../state.js';
import { FieldError, h, showError, within } from '../ui.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#tax-panel, the element app.js hands it)
let field = null; // a field of the slip form (its kind, its medical payment and donation), handed by the form's owner

let medical = null;
let donations = null;

const base = () => ledgerPath(state.ledger, '/reports');

/** The year the panel shows: the one typed, else the month shown's. Pure but for the page. */
export function yearOf(typed, month) {
  return /^\d{4}$/.test(typed ?? '') ? typed : (month ?? '').slice(0, 4);
}

/** Which deduction to claim, in words. Pure. */
export function choiceText(report) {
  if (!report || report.larger === 'none') return '今年はどちらの控除もありません';
  if (report.larger === 'self_medication') return `セルフメディケーション税制のほうが有利です（${yen(report.self_medication)}）`;
  return `医療費控除のほうが有利です（${yen(report.deduction)}）`;
}

/** ワンストップ特例 in words. Pure. */
export function oneStopText(report) {
  if (!report || report.municipalities === 0) return 'ふるさと納税はまだありません';
  if (report.one_stop) return `ワンストップ特例が使えます（${report.municipalities} 自治体）`;
  return `ワンストップ特例は使えません: ${(report.reasons_text ?? []).join('、')}`;
}

/** The part of a merge patch that turns slip `base`'s medical payment and donation into `wanted`'s. Pure. */
export function taxPatch(base, wanted) {
  const patch = {};
  for (const name of ['medical', 'donation']) {
    const before = JSON.stringify(base[name] ?? null);
    const after = JSON.stringify(wanted[name] ?? null);
    if (before !== after) patch[name] = wanted[name] ?? null;
  }
  return patch;
}

/** The form's {medical, donation} as the API takes them (nulls when not marked). Pure but for the form. */
export function medicalBody({ patient, provider, kind, reimbursed, otc }, amount) {
  const who = (patient ?? '').trim();
  if (!who) throw new FieldError(field('slip-patient'), '医療を受けた人を入力してください');
  const paidBack = (reimbursed ?? '').trim() ? parseAmount(reimbursed, { allowZero: true }) : 0;
  if (paidBack > amount) throw new FieldError(field('slip-reimbursed'), '補填される金額は支払った金額以下にしてください');
  const body = { patient: who, kind, reimbursed: paidBack, otc: Boolean(otc) };
  if ((provider ?? '').trim()) body.provider = provider.trim();
  return body;
}

function taxOffered() {
  const routes = state.routes;
  return field('slip-kind').value === 'expense' && (!routes || routes.has('/reports/medical'));
}

/** The form's medical payment and donation; throws FieldError naming the field to fix. */
export function readTax(amount, split) {
  if (!taxOffered()) return { medical: null, donation: null };
  const medical = !split && field('slip-is-medical').checked
    ? medicalBody({ patient: field('slip-patient').value, provider: field('slip-provider').value, kind: field('slip-medical-kind').value, reimbursed: field('slip-reimbursed').value, otc: field('slip-otc').checked }, amount)
    : null;
  let donation = null;
  if (field('slip-is-donation').checked) {
    const municipality = field('slip-municipality').value.trim();
    if (!municipality) throw new FieldError(field('slip-municipality'), '寄附先の自治体を入力してください');
    donation = { municipality, one_stop: field('slip-one-stop').checked };
  }
  return { medical, donation };
}

export function setTax(values) {
  const medical = values.medical ?? null;
  field('slip-is-medical').checked = Boolean(medical);
  field('slip-patient').value = medical?.patient ?? '';
  field('slip-provider').value = medical?.provider ?? '';
  field('slip-medical-kind').value = medical?.kind ?? 'treatment';
  field('slip-reimbursed').value = medical?.reimbursed ? String(medical.reimbursed) : '';
  field('slip-otc').checked = Boolean(medical?.otc);
  const donation = values.donation ?? null;
  field('slip-is-donation').checked = Boolean(donation);
  field('slip-municipality').value = donation?.municipality ?? '';
  field('slip-one-stop').checked = Boolean(donation?.one_stop);
  syncTax();
}

function syncTax() {
  field('slip-tax').hidden = !taxOffered();
  field('slip-medical-fields').hidden = !field('slip-is-medical').checked;
  field('slip-donation-fields').hidden = !field('slip-is-donation').checked;
  const members = (state.household?.members ?? []).map((m) => m.user);
  field('slip-patient-chips').replaceChildren(
    ...members.map((user) =>
      h('button', { type: 'button', class: 'small chip', text: memberName(user), onclick: () => { field('slip-patient').value = user; } }),
    ),
  );
}

/** The slip form whose medical payment and donation these are, handed by its owner (the slips view): its fields, followed as they change. */
export function useForm(form) {
  field = within(form);
  for (const id of ['slip-kind', 'slip-is-medical', 'slip-is-donation']) field(id).addEventListener('change', syncTax);
}

export function mount(root) {
  panel = root;
  $ = within(root);
  on('household', syncTax);
  on('routes', syncTax);
  $('tax-year').addEventListener('change', () => load().catch(showError));
  $('tax-income').addEventListener('change', () => load().catch(showError));
  $('tax-limit').addEventListener('change', () => load().catch(showError));
  $('tax-download').addEventListener('click', () => download('csv').catch(showError));
  $('tax-download-xlsx').addEventListener('click', () => download('xlsx').catch(showError));
}

export function clear() {
  medical = donations = null;
  render();
}

export async function load() {
  const shown = !state.routes || state.routes.has('/reports/medical');
  panel.hidden = !shown;
  if (!shown) return;
  const year = yearOf($('tax-year').value, state.month);
  const income = $('tax-income').value.trim();
  const limit = $('tax-limit').value.trim();
  const isNewest = newest('tax');
  const query = (extra) => new URLSearchParams({ year, ...extra }).toString();
  const [m, d] = await Promise.all([
    state.api.get(`${base()}/medical?${query(/^\d+$/.test(income) ? { income } : {})}`),
    state.api.get(`${base()}/donations?${query(/^\d+$/.test(limit) ? { limit } : {})}`),
  ]);
  if (!isNewest()) return;
  medical = m.data;
  donations = d.data;
  render();
}

const FORM_TYPES = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv',
};

/** The e-Tax 医療費集計フォーム of a year as a file: where the API serves it, its name and type. Pure. */
export function formFile(year, ext, reports = '/reports') {
  return { path: `${reports}/medical.${ext}?year=${year}`, name: `医療費集計フォーム-${year}.${ext}`, type: FORM_TYPES[ext] };
}

/** The form downloaded as it is (the .xlsx is binary: its bytes are kept, never read as text). */
async function download(ext) {
  const file = formFile(yearOf($('tax-year').value, state.month), ext, base());
  const api = state.api;
  let response;
  const bearer = await api.bearer().catch(() => '');
  try {
    response = await api.fetch(api.url(file.path), {
      headers: { Authorization: `Bearer ${bearer}`, 'Accept-Language': api.language, Accept: `${file.type}, application/problem+json` },
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, null, 'ファイルを受け取れませんでした');
  }
  if (!response.ok) {
    const problem = await response.json().catch(() => null);
    throw new ApiError(response.status, problem, `${response.status} ${response.statusText}`.trim());
  }
  const url = URL.createObjectURL(new Blob([await response.arrayBuffer()], { type: file.type }));
  const link = h('a', { href: url, download: file.name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function render() {
  const rows = medical?.items ?? [];
  $('tax-medical-rows').replaceChildren(
    ...rows.map((r) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row', text: r.patient }),
        h('td', { 'data-label': '支払先', text: r.provider }),
        h('td', { 'data-label': '区分', text: r.otc ? `${r.kind_label}（OTC）` : r.kind_label }),
        h('td', { class: 'num', 'data-label': '支払った', text: yen(r.paid) }),
        h('td', { class: 'num', 'data-label': '補填', text: yen(r.reimbursed) }),
      ),
    ),
  );
  $('tax-medical-table').hidden = rows.length === 0;
  $('tax-medical-summary').textContent = medical
    ? `支払った ${yen(medical.paid)} − 補填 ${yen(medical.reimbursed)} = ${yen(medical.net)}。医療費控除 ${yen(medical.deduction)}、セルフメディケーション ${yen(medical.self_medication)}。${choiceText(medical)}`
    : '';
  const towns = donations?.items ?? [];
  $('tax-donation-rows').replaceChildren(
    ...towns.map((t) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row', text: t.municipality }),
        h('td', { class: 'num', 'data-label': '寄附額', text: yen(t.total) }),
        h('td', { class: 'num', 'data-label': '件数', text: String(t.slips) }),
      ),
    ),
  );
  $('tax-donation-table').hidden = towns.length === 0;
  const remaining = donations?.remaining;
  $('tax-donation-summary').textContent = donations
    ? `${oneStopText(donations)}${remaining == null ? '' : `。上限まで残り ${yen(remaining)}`}`
    : '';
}
