// 自動分類: the ledger's rules, which categorise slips as they are imported or added. See them in the
// order they run, add 「この店はいつも○○」 (a payee holding the shop's name -> a category; from a slip
// being edited: its payee, or the one its file wrote), remove one, preview and apply them to the slips
// the ledger already has (and undo that apply), and accept a rule the household's own corrections
// suggest.

import { ApiError, segment } from '../api.js';
import { at, newest, state } from '../state.js';
import { h, optional, say, showError, within } from '../ui.js';

let $ = null; // an element of the view by id, found under its root (#rules-panel, the element app.js hands it)

let rules = [];
let suggestions = [];
let applied = []; // the journal entries of the last apply, for 取り消す
let panel;
let ctx;

const base = () => at('/rules');

const OPS = { is: 'が', contains: 'に', starts_with: 'の先頭が', ends_with: 'の末尾が', one_of: 'が', between: 'が' };
const FIELDS = { payee: '支払先', imported_payee: '取り込んだ支払先', memo: 'メモ', account: '口座', amount: '金額', kind: '種類' };

/** A condition in words. Pure. */
export function conditionText(condition) {
  const field = FIELDS[condition.field] ?? condition.field;
  const value = condition.value;
  if (condition.op === 'between') return `${field}が ${value[0]}〜${value[1]} 円`;
  if (condition.op === 'one_of') return `${field}が「${value.join('」「')}」のどれか`;
  if (condition.op === 'contains') return `${field}に「${value}」を含む`;
  return `${field}${OPS[condition.op] ?? ''}「${value}」`;
}

/** A rule in words: its conditions, then what it sets. Pure. */
export function ruleText(rule) {
  const joiner = rule.match === 'any' ? ' または ' : ' かつ ';
  const when = rule.conditions.map(conditionText).join(joiner);
  const actions = rule.actions ?? {};
  const sets = [];
  if (actions.category) sets.push(`カテゴリを${actions.category}${actions.subcategory ? `（${actions.subcategory}）` : ''}に`);
  if (actions.payee) sets.push(`支払先を${actions.payee}に`);
  if (actions.memo_append) sets.push(`メモに「${actions.memo_append}」を追記`);
  if (actions.cleared !== undefined) sets.push(actions.cleared ? '確認済みに' : '未確認に');
  return `${when} → ${sets.join('、')}`;
}

/** The body of 「この店はいつも○○」 typed in the form: a payee holding the shop's name gets the category. Pure. */
export function alwaysRule(shop, category) {
  return {
    name: `${shop}はいつも${category}`,
    conditions: [{ field: 'payee', op: 'contains', value: shop }],
    actions: { category },
  };
}

/**
 * 「この店はいつも○○」 from a slip: the slip's payee is the shop (or, when it has none, the payee its
 * file wrote), the category the one given. null when there is no shop or no category to keep. Pure.
 */
export function ruleFromSlip(slip, category) {
  const field = slip.payee ? 'payee' : slip.imported_payee ? 'imported_payee' : null;
  if (!field || !category || category === 'uncategorized' || slip.kind === 'transfer') return null;
  const shop = slip[field];
  return { name: `${shop}はいつも${category}`, conditions: [{ field, op: 'is', value: shop }], actions: { category } };
}

export function mount(root, pageCtx) {
  $ = within(root);
  panel = root;
  ctx = pageCtx;
  $('rule-form').addEventListener('submit', (event) => {
    event.preventDefault();
    create();
  });
  $('rule-preview').addEventListener('click', preview);
  $('rule-apply').addEventListener('click', apply);
  $('rule-undo').addEventListener('click', undoApply);
}

/** A slip's change as the preview lists it: the fields before -> after. Pure. */
export function changeText(change) {
  const names = { category: 'カテゴリ', subcategory: '内訳', payee: '支払先', memo: 'メモ' };
  const parts = Object.keys(change.after)
    .filter((name) => change.after[name] !== null || change.before[name] !== null)
    .map((name) => `${names[name] ?? name}: ${change.before[name] ?? '（なし）'} → ${change.after[name] ?? '（なし）'}`);
  return `${change.date} ${parts.join('、')}`;
}

export function clear() {
  rules = [];
  suggestions = [];
  offerUndo([]);
  render();
}

export function load() {
  const isNewest = newest('rules');
  return optional(panel, '/rules', async () => {
    $('rule-form').hidden = state.role === 'viewer';
    const { data } = await state.api.get(base());
    if (!isNewest()) return;
    rules = data.items ?? [];
    const found = await state.api.get(at('/rules/suggestions'));
    if (!isNewest()) return;
    suggestions = found.data.items ?? [];
    render();
  });
}

export function render() {
  $('rule-rows').replaceChildren(
    ...rules.map((rule) =>
      h(
        'li',
        { dataset: { id: rule.id } },
        h('span', { class: 'rule', text: rule.name ? `${rule.name}: ${ruleText(rule)}` : ruleText(rule) }),
        state.role === 'viewer'
          ? ''
          : h('button', { type: 'button', class: 'small danger', 'aria-label': `削除: ${rule.name ?? ruleText(rule)}`, text: '削除', onclick: () => remove(rule) }),
      ),
    ),
  );
  $('rules-empty').hidden = rules.length > 0;
  $('rule-preview').hidden = rules.length === 0;
  $('rule-suggestions').replaceChildren(
    ...suggestions.map((s) =>
      h(
        'li',
        { dataset: { id: s.id } },
        h('span', { class: 'rule', text: `「${s.payee}」はいつも${s.category}（${s.count}件を手で分類）` }),
        state.role === 'viewer'
          ? ''
          : h('button', { type: 'button', class: 'small', 'aria-label': `ルールにする: ${s.payee}`, text: 'ルールにする', onclick: () => accept(s) }),
      ),
    ),
  );
  $('rule-suggestions-empty').hidden = suggestions.length > 0;
}

async function preview() {
  try {
    const { data } = await state.api.request('POST', at('/rules/preview'));
    $('rule-preview-result').textContent = data.changed
      ? `${data.examined}件のうち${data.changed}件が変わります`
      : `${data.examined}件を見ました。変わる伝票はありません`;
    $('rule-preview-rows').replaceChildren(...data.items.map((c) => h('li', { text: changeText(c) })));
    $('rule-apply').hidden = !data.changed || state.role === 'viewer';
  } catch (error) {
    showError(error);
  }
}

async function apply() {
  const entries = [];
  let changed = 0;
  let failed = 0;
  try {
    let data;
    do {
      // 202: the invocation ran short of time; what it did is done, the next call carries on
      ({ data } = await state.api.request('POST', at('/rules/apply')));
      entries.push(...data.entries);
      changed += data.changed;
      failed += data.failed.length;
    } while (!data.complete);
    $('rule-apply').hidden = true;
    $('rule-preview-rows').replaceChildren();
    $('rule-preview-result').textContent = '';
    say(`${changed}件の伝票にルールを適用しました${failed ? `（${failed}件はそのままです）` : ''}`);
  } catch (error) {
    showError(error);
  } finally {
    offerUndo(entries);
    if (entries.length) await ctx?.refresh();
  }
}

function offerUndo(entries) {
  applied = entries;
  $('rule-undo').hidden = applied.length === 0 || state.role === 'viewer';
}

/** 取り消す: the last apply's batches undone, newest first (each is one journal entry). */
async function undoApply() {
  const entries = [...applied].reverse();
  try {
    while (entries.length) {
      await state.api.request('POST', at(`/changes/${entries[0]}/undo`));
      entries.shift();
    }
    say('ルールの適用を取り消しました');
  } catch (error) {
    showError(error);
  } finally {
    offerUndo(entries.reverse());
    await ctx?.refresh();
  }
}

async function accept(suggestion) {
  try {
    await state.api.request('POST', at(`/rules/suggestions/${segment(suggestion.id)}/accept`));
    say(`「${suggestion.payee}」はいつも${suggestion.category}、をルールにしました`);
    await load();
  } catch (error) {
    showError(error);
  }
}

async function create() {
  const shop = $('rule-shop').value.trim();
  const category = $('rule-category').value.trim();
  if (await addRule(alwaysRule(shop, category), $('rule-shop'))) $('rule-form').reset();
}

/** A rule made (「この店はいつも○○」 typed, or from a slip); true when it was. */
export async function addRule(body, field) {
  try {
    await state.api.request('POST', base(), { json: body });
    say(`「${body.conditions[0].value}」はいつも${body.actions.category}、を追加しました。次の取り込みや入力から使われます`);
    await load();
    return true;
  } catch (error) {
    showError(error, error instanceof ApiError && error.status === 422 ? field : undefined);
    return false;
  }
}

async function remove(rule) {
  if (!window.confirm(`${rule.name ?? ruleText(rule)} を削除しますか？（分類済みの伝票はそのままです）`)) return;
  try {
    await state.api.request('DELETE', `${base()}/${segment(rule.id)}`, { ifMatch: `"${rule.version}"` });
    say('ルールを削除しました');
    await load();
  } catch (error) {
    showError(error);
  }
}
