// 家計簿 and 家族と共有: which ledger is shown (the personal one, or a shared household ledger the
// caller belongs to), its members and their roles, invitations (a link or a token, once, 7 days),
// joining, leaving. What the caller's role allows is set on <body data-role> for the whole page.

import { ApiError, PERSONAL, etagOf, inviteLink, inviteTokenOf, segment } from '../api.js';
import { ROLE_LABELS, ROLES, canWrite, ledgerLabel } from '../format.js';
import { keep, keepOnly, kept, unreachable } from '../kept.js';
import { emit, memberName, newest, state } from '../state.js';
import { FieldError, busy, clearError, fail, h, on422, say, showError, within } from '../ui.js';

let panel = null; // the view's element
let $ = null; // an element of the view by id, found under its root (#household-panel, the element app.js hands it)
let switcher = null; // the ledger switcher in the header (#ledger-nav), handed by the page
let inSwitcher = null; // an element of the switcher by id

const LEDGER_KEY = 'kakeibo.ledger';

let ctx;

/** `switcher`: the header's ledger switcher, which this view fills and follows; the page hands it. */
export function mount(root, context, { switcher: nav }) {
  panel = root;
  $ = within(root);
  switcher = nav;
  inSwitcher = within(nav);
  ctx = context;
  inSwitcher('ledger').addEventListener('change', () => switchLedger(inSwitcher('ledger').value));
  switcher.addEventListener('submit', (event) => event.preventDefault());
  $('ledger-create-form').addEventListener('submit', submitLedger);
  $('invite-form').addEventListener('submit', submitInvite);
  $('invite-copy').addEventListener('click', copyInvite);
  $('accept-form').addEventListener('submit', submitAccept);
  $('ledger-leave').addEventListener('click', leaveLedger);
  inSwitcher('ledger-members-link').addEventListener('click', () => {
    // the link opens #/household (the page keeps the month); then the members are where the focus is
    setTimeout(() => $('household-title').focus(), 0);
  });
}

function storedLedger() {
  try {
    return localStorage.getItem(LEDGER_KEY) || PERSONAL;
  } catch {
    return PERSONAL;
  }
}

function storeLedger(id) {
  try {
    if (id === PERSONAL) localStorage.removeItem(LEDGER_KEY);
    else localStorage.setItem(LEDGER_KEY, id);
  } catch {
    // storage disabled: the choice lasts for this page only
  }
}

const shownLedger = () => state.ledgers?.find((l) => l.id === state.ledger) ?? null;
const ledgerName = (ledger) => (ledger?.id === PERSONAL ? '自分の家計簿' : `「${ledger?.name ?? ledger?.id ?? ''}」`);

/** What the caller's role allows, on the whole page: a viewer is offered no write, only owners manage members. */
function applyRole(role) {
  state.role = role;
  document.body.dataset.role = role;
  const note = inSwitcher('ledger-role');
  note.hidden = state.ledger === PERSONAL;
  note.textContent = state.ledger === PERSONAL ? '' : `あなたは${ROLE_LABELS[role] ?? role}${canWrite(role) ? '' : '（見るだけ）'}`;
  emit('role', role);
}

/** The caller's ledgers (personal first) and who they are; keeps the one shown if it is still theirs. */
async function loadLedgers() {
  if (state.routes && !state.routes.has('/ledgers')) {
    withoutLedgers();
    return;
  }
  const isNewest = newest('ledgers');
  let list;
  let mine;
  try {
    [list, mine] = await Promise.all([state.api.get('/ledgers'), state.api.get(`/ledgers/${PERSONAL}`)]);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404 && !error.code)) throw error;
    withoutLedgers(); // an API without shared ledgers (API Gateway's 404): the personal one alone
    return;
  }
  if (!isNewest()) return;
  state.ledgers = list.data.items;
  state.me = mine.data.members?.[0]?.user ?? null;
  // kept for a start without a connection (kept.js); what this browser kept of a ledger no longer theirs goes
  keep('ledgers', { items: state.ledgers.map(({ id, name, role }) => ({ id, name, role })), me: state.me }, { ledger: null });
  keepOnly(state.ledgers.map((l) => l.id));
  if (!shownLedger()) {
    state.ledger = PERSONAL; // not (or no longer) theirs
    storeLedger(PERSONAL);
  }
  showLedgers();
}

function showLedgers() {
  switcher.hidden = false;
  panel.hidden = false;
  renderLedgers();
  applyRole(shownLedger()?.role ?? 'owner');
}

/**
 * No connection: the caller's ledgers as this browser last read them, the one chosen still shown
 * (a slip entered now waits for that ledger); false when none were kept.
 */
function keptLedgers() {
  const known = kept('ledgers', { ledger: null });
  if (!Array.isArray(known?.items) || !known.items.length) return false;
  state.ledgers = known.items;
  state.me = known.me ?? null;
  if (!shownLedger()) state.ledger = PERSONAL;
  showLedgers();
  return true;
}

function withoutLedgers() {
  state.ledgers = null;
  state.ledger = PERSONAL;
  switcher.hidden = true;
  panel.hidden = true;
  applyRole('owner');
}

function renderLedgers() {
  const select = inSwitcher('ledger');
  select.replaceChildren(...(state.ledgers ?? []).map((l) => h('option', { value: l.id, text: ledgerLabel(l) })));
  select.value = state.ledger;
}

/** The shown ledger's members (a shared one), with what the caller may do about each. */
export async function load() {
  const isNewest = newest('household');
  if (!state.ledgers || state.ledger === PERSONAL) {
    state.household = null;
    render();
    return;
  }
  const { data, etag } = await state.api.get(`/ledgers/${segment(state.ledger)}`);
  if (!isNewest()) return;
  state.household = { ...data, etag };
  if (data.role !== state.role) {
    // the role changed since the list was read: offer what it allows now
    const listed = shownLedger();
    if (listed) listed.role = data.role;
    renderLedgers();
    applyRole(data.role);
  }
  render();
}

export function clear() {
  state.household = null;
  render();
}

export function render() {
  const household = state.household;
  const shared = Boolean(household);
  $('members').hidden = !shared;
  $('invite-form').hidden = !shared;
  if (!shared) {
    $('invite-result').hidden = true;
    $('household-title').textContent = '家族と共有';
    $('household-text').textContent = state.ledgers
      ? '個人の家計簿を表示しています。家族と一緒に付けるには、共有の家計簿を作ってメンバーを招待するか、受け取った招待で参加してください。'
      : '';
    emit('household');
    return;
  }
  const owner = household.role === 'owner';
  // A role being chosen survives a reload of the list, unless the member's role changed meanwhile.
  const choosing = new Map(
    [...$('member-rows').querySelectorAll('tr')].map((r) => [`${r.dataset.user} ${r.dataset.role}`, r.querySelector('select')?.value]),
  );
  $('household-title').textContent = `メンバー: ${household.name}`;
  $('household-text').textContent = `${household.members.length} 人で付けています。あなたは${ROLE_LABELS[household.role]}です。`;
  $('member-rows').replaceChildren(
    ...household.members.map((m) => {
      const self = m.user === state.me;
      const actions = [];
      if (owner) {
        const select = h(
          'select',
          { class: 'member-role', 'aria-label': `${m.user}の役割` },
          ...ROLES.map((r) => h('option', { value: r, text: ROLE_LABELS[r] })),
        );
        select.value = choosing.get(`${m.user} ${m.role}`) ?? m.role;
        actions.push(
          select,
          h('button', { type: 'button', class: 'small member-save', 'aria-label': `役割を変更: ${m.user}`, text: '変更', onclick: () => changeRole(m, select.value) }),
        );
        if (!self) actions.push(h('button', { type: 'button', class: 'small danger member-remove', 'aria-label': `外す: ${m.user}`, text: '外す', onclick: () => removeMember(m) }));
      }
      return h(
        'tr',
        { dataset: { user: m.user, role: m.role }, class: self ? 'self' : undefined },
        h('th', { scope: 'row', text: memberName(m.user) }),
        h('td', { class: 'role', text: ROLE_LABELS[m.role] ?? m.role }),
        h('td', { class: 'row-actions' }, ...actions),
      );
    }),
  );
  emit('household');
}

/** Show another ledger: nothing of the previous one stays on screen, every panel reloads from it. */
async function switchLedger(id, { announce = true } = {}) {
  state.ledger = id;
  storeLedger(id);
  ctx.clearLedger();
  $('invite-result').hidden = true;
  renderLedgers();
  applyRole(shownLedger()?.role ?? 'owner');
  const ok = await ctx.refresh();
  if (ok && announce) say(`${ledgerName(shownLedger())}を表示しています`);
  return ok;
}

/** The shown ledger was deleted: the caller's ledgers read again, their personal one shown. */
export async function ledgerDeleted() {
  await loadLedgers();
  await switchLedger(PERSONAL, { announce: false });
}

/** A ledger made elsewhere on the page (restored from an archive): the caller's ledgers read again, it shown. */
export async function ledgerMade(id) {
  await loadLedgers();
  return switchLedger(id, { announce: false });
}

/** After a refusal that may mean the caller's membership changed (403, 404): read it again. */
export async function recheckMembership() {
  if (state.ledger === PERSONAL || !state.ledgers) return;
  try {
    await loadLedgers();
    if (state.ledger === PERSONAL) {
      // no longer a member: their data is not ours to show
      await switchLedger(PERSONAL, { announce: false });
      showError(new Error('この共有の家計簿のメンバーではなくなりました。自分の家計簿を表示しています'));
    } else {
      await load();
    }
  } catch {
    // the error already shown says enough
  }
}

/**
 * Who is asking and which of their ledgers to show (the last one chosen, if still theirs): true, or
 * false when the API refused; null without a connection (the ledgers this browser kept are shown,
 * and the views fill their forms from what it kept: kept.js).
 */
export async function identify() {
  state.ledger = storedLedger();
  try {
    await loadLedgers();
    return true;
  } catch (error) {
    showError(error);
    if (unreachable(error)) {
      if (!keptLedgers()) {
        state.ledger = PERSONAL;
        state.ledgers = null;
        renderLedgers();
      }
      return null;
    }
    state.ledger = PERSONAL;
    state.ledgers = null;
    renderLedgers();
    return false;
  }
}

async function submitLedger(event) {
  event.preventDefault();
  clearError();
  const name = $('ledger-name').value.trim();
  if (!name) {
    fail(new FieldError($('ledger-name'), '名前を入力してください'));
    return;
  }
  await busy($('ledger-create-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', '/ledgers', { json: { name } });
      $('ledger-create-form').reset();
      $('ledger-create-details').open = false;
      await loadLedgers();
      await switchLedger(data.id, { announce: false });
      say(`共有の家計簿「${data.name}」を作りました。「招待する」で家族を招待できます`);
      $('invite-role').focus();
    } catch (error) {
      showError(error, on422(error, $('ledger-name')));
    }
  });
}

async function submitInvite(event) {
  event.preventDefault();
  clearError();
  const role = $('invite-role').value;
  await busy($('invite-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', `/ledgers/${segment(state.ledger)}/invitations`, { json: { role } });
      const until = new Date(data.expires_at).toLocaleString('ja-JP', { dateStyle: 'long', timeStyle: 'short' });
      $('invite-text').textContent =
        `${ROLE_LABELS[data.role]}として${ledgerName(shownLedger())}に招待するリンクです。招待したい人に渡してください（${until}まで、1 回だけ使えます）。`;
      $('invite-link').value = inviteLink(data.token);
      $('invite-token').value = data.token;
      $('invite-result').hidden = false;
      say(`${ROLE_LABELS[data.role]}の招待を作りました`);
      $('invite-link').focus();
      $('invite-link').select();
    } catch (error) {
      showError(error);
      if (error instanceof ApiError && (error.status === 403 || error.status === 404)) await recheckMembership();
    }
  });
}

async function copyInvite() {
  const link = $('invite-link').value;
  try {
    await navigator.clipboard.writeText(link);
    say('招待リンクをコピーしました');
  } catch {
    // no clipboard here (http, or refused): leave it selected to copy by hand
    $('invite-link').focus();
    $('invite-link').select();
    say('招待リンクを選択しました。コピーして渡してください');
  }
}

/** A token arrived in the page's address (#invite=…): offer it; joining stays the person's choice. */
export function offerInvite(token) {
  $('accept-token').value = token;
  panel.scrollIntoView({ block: 'start' });
  $('accept-submit').focus();
  say('共有の家計簿への招待があります。参加するには「参加する」を押してください');
}

async function submitAccept(event) {
  event.preventDefault();
  clearError();
  const token = inviteTokenOf($('accept-token').value);
  if (!token) {
    fail(new FieldError($('accept-token'), '招待のリンクかトークン（英数字 32 文字）を貼り付けてください'));
    return;
  }
  await busy($('accept-submit'), async () => {
    try {
      const { data } = await state.api.request('POST', `/invitations/${segment(token)}/accept`);
      $('accept-form').reset();
      await loadLedgers();
      await switchLedger(data.ledger, { announce: false });
      say(`${ledgerName(shownLedger())}に${ROLE_LABELS[data.role]}として参加しました`);
    } catch (error) {
      showError(error, $('accept-token'));
    }
  });
}

async function changeRole(member, role) {
  clearError();
  if (role === member.role) {
    say('役割は変わっていません');
    return;
  }
  try {
    await state.api.request('PUT', `/ledgers/${segment(state.ledger)}/members/${segment(member.user)}`, {
      json: { role },
      ifMatch: etagOf(member.version),
    });
    say(`${memberName(member.user)}を${ROLE_LABELS[role]}にしました`);
    if (member.user === state.me) await loadLedgers();
    await load();
  } catch (error) {
    await memberRefused(error, member);
  }
}

async function removeMember(member) {
  clearError();
  if (!window.confirm(`${member.user}をこの家計簿から外しますか？`)) return;
  try {
    await state.api.request('DELETE', `/ledgers/${segment(state.ledger)}/members/${segment(member.user)}`, { ifMatch: etagOf(member.version) });
    say(`${member.user}を外しました`);
    await load();
  } catch (error) {
    await memberRefused(error, member);
  }
}

async function leaveLedger() {
  clearError();
  const ledger = shownLedger();
  const self = state.household?.members.find((m) => m.user === state.me);
  if (!ledger || !self) return;
  if (!window.confirm(`${ledgerName(ledger)}から抜けますか？ もう一度参加するには招待が必要です。`)) return;
  await busy($('ledger-leave'), async () => {
    try {
      await state.api.request('DELETE', `/ledgers/${segment(ledger.id)}/members/${segment(self.user)}`, { ifMatch: etagOf(self.version) });
      await loadLedgers();
      await switchLedger(PERSONAL, { announce: false });
      say(`${ledgerName(ledger)}から抜けました。自分の家計簿を表示しています`);
    } catch (error) {
      await memberRefused(error, self);
    }
  });
}

/** A member change refused: the API's reason shown; on 412 (changed meanwhile) the members reloaded. */
async function memberRefused(error, member) {
  $('member-rows').replaceChildren(); // the refused choice is not kept on screen
  render();
  if (error instanceof ApiError && error.status === 412) {
    showError(new Error(`${member.user}は別の画面で先に変更されていました。最新のメンバーを読み込みました（${error.detail}）`));
    await load().catch(() => {});
  } else {
    showError(error);
    if (error instanceof ApiError && (error.status === 403 || error.status === 404)) await recheckMembership();
  }
}
