// Pure helpers for the page: money, dates, months, and what changed in a slip. No DOM, no network,
// so Node's test runner checks them directly (tests/web/logic.test.mjs).

const YEN = new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'JPY' });
const DAY = new Intl.DateTimeFormat('ja-JP', {
  month: 'numeric',
  day: 'numeric',
  weekday: 'short',
  timeZone: 'UTC',
});
const LONG_DAY = new Intl.DateTimeFormat('ja-JP', {
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  weekday: 'short',
  timeZone: 'UTC',
});

export const MAX_AMOUNT = 10 ** 12; // the API's limit (models.py)

export const KIND_LABELS = { expense: '支出', income: '収入', transfer: '振替' };
export const TYPE_LABELS = {
  cash: '現金',
  bank: '銀行',
  emoney: '電子マネー',
  credit: 'クレジット',
  other: 'その他',
};
export const FIELD_LABELS = {
  date: '日付',
  kind: '種類',
  amount: '金額',
  account: '口座',
  to_account: '振替先',
  category: '分類',
  memo: 'メモ',
  payee: '支払先',
  paid_by: '払った人',
  shares: '負担',
  jpy_amount: '円換算',
  to_amount: '受取額',
  expires_on: '有効期限',
  tags: 'タグ',
};
export const SLIP_FIELDS = ['date', 'kind', 'amount', 'account', 'to_account', 'category', 'memo', 'payee'];
export const UNCATEGORIZED = 'uncategorized'; // what the API files an expense or income without one under
/**
 * The categories the API books by itself, never offered as a usual one: a points lot's lapse (the
 * daily job's ポイント失効) and a reconciliation's adjustment (使途不明金). tests/api/test_web.py checks
 * this list against the API's own.
 */
export const SYSTEM_CATEGORIES = ['ポイント失効', '使途不明金'];

/**
 * What the ledger's journal records, in words: each type of change (the API's ChangeType), each
 * operation, and where an entry came from (its origin, said before the verb: 「取り込みで」; a
 * person's own change and an undo say nothing here). tests/api/test_web.py checks that every type
 * and origin the API's journal can produce has its words.
 */
export const CHANGE_TYPE_LABELS = {
  slip: '伝票',
  account: '口座',
  budget: '予算',
  recurrence: '繰り返し',
  member: 'メンバー',
  ledger: '家計簿',
  invitation: '招待',
  webhook: 'Webhook',
  settlement: '精算',
  rule: '自動分類のルール',
  reconciliation: '残高の照合',
  alert: 'お知らせ',
};
export const CHANGE_OP_LABELS = { create: '追加', update: '変更', delete: '削除' };
export const ORIGIN_LABELS = {
  api: '',
  undo: '',
  import: '取り込みで',
  recurrence: '繰り返しで',
  card_payment: 'カードの引き落としで',
  point_lapse: 'ポイントの失効で',
  job: '自動処理で',
};

export function categoryLabel(category) {
  return category === UNCATEGORIZED ? '未分類' : category;
}

/** ￥1,200 (the ja-JP currency format; JPY has no minor unit). */
export function yen(amount) {
  return YEN.format(amount);
}

/**
 * An amount typed by a person: full-width digits (IME), thousands separators, a yen sign or 円 are
 * fine. Returns an integer or throws an Error whose message can be shown as is.
 */
export function parseAmount(text, { allowNegative = false, allowZero = false } = {}) {
  const cleaned = String(text ?? '')
    .normalize('NFKC')
    .replace(/[\s,¥￥円]/g, '')
    .replace(/^[−ー‐]/, '-');
  if (!/^-?\d+$/.test(cleaned)) {
    throw new Error('金額は整数（円）で入力してください');
  }
  const value = Number(cleaned);
  if (!Number.isSafeInteger(value) || Math.abs(value) > MAX_AMOUNT) {
    throw new Error(`金額は ${yen(MAX_AMOUNT)} 以下にしてください`);
  }
  if (value < 0 && !allowNegative) {
    throw new Error('金額は 0 より大きくしてください');
  }
  if (value === 0 && !allowZero) {
    throw new Error('金額は 0 より大きくしてください');
  }
  return value;
}

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** The ledgers' time zone unless the API says otherwise (GET /health's time_zone). */
export const DEFAULT_TIME_ZONE = 'Asia/Tokyo';
let ledgerZone = DEFAULT_TIME_ZONE;

/** The time zone the ledger's days are counted in; an unknown name leaves it as it was. */
export function setLedgerTimeZone(zone) {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: zone });
    ledgerZone = zone;
  } catch {
    // not a time zone this browser knows: keep the one we have
  }
  return ledgerZone;
}

/** Today in the ledger's time zone (Asia/Tokyo), YYYY-MM-DD — not the browser's: a slip's day is the ledger's. */
export function today(now = new Date(), zone = ledgerZone) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  return `${pad(parts.year, 4)}-${parts.month}-${parts.day}`;
}

export function monthOf(date) {
  return date.slice(0, 7);
}

export function isMonth(text) {
  if (!/^\d{4}-\d{2}$/.test(text ?? '')) return false;
  const month = Number(text.slice(5));
  const year = Number(text.slice(0, 4));
  return month >= 1 && month <= 12 && year >= 1900 && year <= 2999;
}

export function isDate(text) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text ?? '') || !isMonth(text.slice(0, 7))) return false;
  const day = Number(text.slice(8));
  return day >= 1 && day <= daysIn(text.slice(0, 7));
}

function daysIn(month) {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** First and last day of a month YYYY-MM. */
export function monthRange(month) {
  return { from: `${month}-01`, to: `${month}-${pad(daysIn(month))}` };
}

export function shiftMonth(month, delta) {
  const [y, m] = month.split('-').map(Number);
  const index = y * 12 + (m - 1) + delta;
  return `${pad(Math.floor(index / 12), 4)}-${pad((index % 12) + 1)}`;
}

/** A sensible default day for a new slip in the month on screen: today if it is in it, else the 1st. */
export function defaultDay(month, now = new Date(), zone = ledgerZone) {
  const day = today(now, zone);
  return monthOf(day) === month ? day : `${month}-01`;
}

/** 2026年11月 */
export function monthLabel(month) {
  const [y, m] = month.split('-').map(Number);
  return `${y}年${m}月`;
}

function utc(date) {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d));
}

/** 11/20(金) */
export function shortDay(date) {
  return DAY.format(utc(date));
}

/** 2026年11月20日(金) */
export function longDay(date) {
  return LONG_DAY.format(utc(date));
}

/**
 * A moment the API wrote (UTC, ISO 8601: 2026-11-30T15:30:00.000Z) as people read it, in the
 * ledger's time zone: 「12/1(火) 0:30」, with the year when asked (「2026/12/1(火) 0:30」).
 */
export function momentText(at, { year = false, zone = ledgerZone } = {}) {
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) return String(at ?? '');
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('ja-JP', {
      timeZone: zone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(when)
      .map((p) => [p.type, p.value]),
  );
  const day = `${parts.month}/${parts.day}(${parts.weekday}) ${Number(parts.hour)}:${parts.minute}`;
  return year ? `${parts.year}/${day}` : day;
}

/** A slip field's value as a person reads it (its amount in `unit`, its account's). */
export function fieldText(field, value, accountName = (id) => id, unit = 'JPY') {
  if (value === null || value === undefined || value === '') return '—';
  switch (field) {
    case 'amount':
      return amountIn(value, unit);
    case 'kind':
      return KIND_LABELS[value] ?? value;
    case 'date':
      return longDay(value);
    case 'account':
    case 'to_account':
      return accountName(value);
    case 'category':
      return categoryLabel(value);
    case 'tags':
      return Array.isArray(value) && value.length ? value.join('・') : '—';
    default:
      return String(value);
  }
}

const norm = (value) => (value === undefined || value === '' ? null : value);

/** The fields whose values differ between two versions of a slip: [{field, before, after}]. */
export function slipChanges(before, after) {
  return SLIP_FIELDS.filter((f) => norm(before?.[f]) !== norm(after?.[f])).map((field) => ({
    field,
    before: norm(before?.[field]),
    after: norm(after?.[field]),
  }));
}

/**
 * The JSON merge patch (RFC 7396) that turns slip `base` into the values of the form: only what
 * changed; a cleared optional field is null (removed). Kind-dependent fields follow the kind.
 */
export function mergePatch(base, wanted) {
  const target = { ...wanted };
  if (target.kind === 'transfer') target.category = null;
  else target.to_account = null;
  const patch = {};
  for (const { field, after } of slipChanges(base, target)) patch[field] = after;
  return patch;
}

/**
 * The slips matching the filters: account (either side of a transfer), category, kind, and words in
 * the memo or category (every word must appear; case and full/half width ignored). Empty filters match all.
 */
export function filterSlips(slips, { account = '', category = '', kind = '', text = '' } = {}) {
  const fold = (s) => (s ?? '').normalize('NFKC').toLowerCase();
  const words = fold(text).split(/\s+/).filter(Boolean);
  return slips.filter(
    (s) =>
      (!account || s.account === account || s.to_account === account) &&
      (!category || (s.category ?? '') === category || (s.lines ?? []).some((l) => l.category === category)) &&
      (!kind || s.kind === kind) &&
      words.every(
        (w) =>
          fold(s.memo).includes(w) ||
          fold(s.payee).includes(w) ||
          fold(s.imported_payee).includes(w) ||
          fold(s.category).includes(w) ||
          fold(s.subcategory).includes(w),
      ),
  );
}

/** What each role of a shared ledger may do (DESIGN §7): viewers only read. */
export const ROLE_LABELS = { owner: 'オーナー', editor: '編集者', viewer: '閲覧者' };
export const ROLES = ['owner', 'editor', 'viewer'];

export const canWrite = (role) => role === 'owner' || role === 'editor';

/** A ledger as the switcher names it: the personal one, or a shared one's name with the caller's role. */
export function ledgerLabel(ledger) {
  if (ledger.id === 'me') return '自分の家計簿（個人）';
  return `${ledger.name ?? ledger.id}（${ROLE_LABELS[ledger.role] ?? ledger.role}）`;
}

/** Who wrote a slip, for its row: the creator, and who changed it last when that is someone else. */
export function authorText(slip, name = (user) => user) {
  if (!slip.created_by) return slip.updated_by ? `更新: ${name(slip.updated_by)}` : '';
  const updated = slip.updated_by && slip.updated_by !== slip.created_by ? `（更新: ${name(slip.updated_by)}）` : '';
  return `${name(slip.created_by)}${updated}`;
}

/** The digits after the point of a currency's amounts (its minor unit: USD 2, KRW 0, KWD 3). */
export function minorDigits(unit) {
  if (!unit || unit === 'JPY' || unit === 'points') return 0;
  try {
    return new Intl.NumberFormat('ja-JP', { style: 'currency', currency: unit }).resolvedOptions().maximumFractionDigits;
  } catch {
    return 0; // not a currency Intl knows: whole numbers, as stored
  }
}

/**
 * An amount as stored (in its account's unit's minor unit) as people read it: ￥1,200 for yen,
 * $12.34 for 1234 in a USD account, 1,200 pt for points. Integer arithmetic only: no float rounding.
 */
export function amountIn(amount, unit) {
  if (!unit || unit === 'JPY') return yen(amount);
  if (unit === 'points') return `${new Intl.NumberFormat('ja-JP').format(amount)} pt`;
  const digits = minorDigits(unit);
  const scale = 10n ** BigInt(digits);
  const whole = BigInt(Math.abs(amount));
  const text = digits ? `${whole / scale}.${String(whole % scale).padStart(digits, '0')}` : String(whole);
  const formatter = new Intl.NumberFormat('ja-JP', {
    style: 'currency',
    currency: unit,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  // format the exact decimal text (Intl reads a string as a decimal, so 0.1 + 0.2 never happens)
  return formatter.format(`${amount < 0 ? '-' : ''}${text}`);
}

/**
 * An amount typed in a unit (12.34 in a USD account) as stored, in the unit's minor unit (1234).
 * Yen and points are whole numbers (parseAmount); a currency takes at most its minor digits.
 * Integer arithmetic only: the digits are joined, never multiplied as a float.
 */
export function parseAmountIn(text, unit, options = {}) {
  const digits = minorDigits(unit);
  if (!digits) {
    try {
      return parseAmount(text, options);
    } catch (error) {
      if (unit === 'points') throw new Error(error.message.replace('整数（円）', '整数（ポイント）'));
      throw error;
    }
  }
  const { allowNegative = false, allowZero = false } = options;
  const cleaned = String(text ?? '')
    .normalize('NFKC')
    .replace(/[\s,]/g, '')
    .replace(/^[−ー‐]/, '-');
  const match = new RegExp(`^(-?)(\\d+)(?:\\.(\\d{1,${digits}}))?$`).exec(cleaned);
  if (!match) throw new Error(`金額は小数点以下 ${digits} 桁までの数（${unit}）で入力してください`);
  const [, sign, whole, fraction = ''] = match;
  const minor = BigInt(`${whole}${fraction.padEnd(digits, '0')}`);
  if (minor > BigInt(MAX_AMOUNT)) throw new Error(`金額は ${amountIn(MAX_AMOUNT, unit)} 以下にしてください`);
  if (minor === 0n) {
    if (!allowZero) throw new Error('金額は 0 より大きくしてください');
    return 0;
  }
  if (sign && !allowNegative) throw new Error('金額は 0 より大きくしてください');
  return Number(minor) * (sign ? -1 : 1);
}

/** An amount as stored written back as typed into a form: 1234 in USD is "12.34", yen stays whole. */
export function amountText(amount, unit) {
  if (amount === null || amount === undefined || amount === '') return '';
  const digits = minorDigits(unit);
  if (!digits || !Number.isInteger(amount)) return String(amount);
  const scale = 10n ** BigInt(digits);
  const whole = BigInt(Math.abs(amount));
  return `${amount < 0 ? '-' : ''}${whole / scale}.${String(whole % scale).padStart(digits, '0')}`;
}

/**
 * The merge-patch entries for a slip's unit fields (円換算, 受取額, 有効期限) that the form changed. A new
 * amount sends the yen and what arrived the form shows with it, changed or not: the API keeps none
 * given for the old amount (422 naming them).
 */
export function unitPatch(base, wanted) {
  const patch = {};
  const repriced = (base?.amount ?? null) !== (wanted?.amount ?? null);
  for (const field of ['jpy_amount', 'to_amount', 'expires_on']) {
    const before = base?.[field] ?? null;
    const after = wanted?.[field] ?? null;
    if (before !== after || (repriced && field !== 'expires_on' && after !== null)) patch[field] = after;
  }
  return patch;
}

/** The word for a unit in a form's label: 円, ポイント, or the currency's code. */
export function unitLabel(unit) {
  if (!unit || unit === 'JPY') return '円';
  if (unit === 'points') return 'ポイント';
  return unit;
}

/**
 * The household's usual expense categories, for the quick entry's chips: those of the most slips
 * among `slips` (the month shown; a split slip counts each line), then those most spent on in
 * `totals` (months' GET /reports/monthly: their by_category), then `fallback`; uncategorized and
 * the categories the API books by itself (SYSTEM_CATEGORIES) left out, `count` at most. Pure.
 */
export function usualCategories({ slips = [], totals = [] }, count = 6, fallback = []) {
  const uses = new Map();
  for (const slip of slips) {
    if (slip.kind !== 'expense') continue;
    for (const category of slip.lines?.length ? slip.lines.map((line) => line.category) : [slip.category]) {
      uses.set(category, (uses.get(category) ?? 0) + 1);
    }
  }
  const spent = new Map();
  for (const report of totals) {
    for (const row of report?.by_category ?? []) if (row.expense > 0) spent.set(row.category, (spent.get(row.category) ?? 0) + row.expense);
  }
  const usual = (category) => category && category !== UNCATEGORIZED && !SYSTEM_CATEGORIES.includes(category);
  const used = [...new Set([...uses.keys(), ...spent.keys()])]
    .filter(usual)
    .sort((a, b) => (uses.get(b) ?? 0) - (uses.get(a) ?? 0) || (spent.get(b) ?? 0) - (spent.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  for (const category of fallback) if (usual(category) && !used.includes(category)) used.push(category);
  return used.slice(0, count);
}

/**
 * The account of the latest expense dated `day` or earlier (by date, then as listed), or null: a
 * slip recorded ahead (next month's rent) says nothing about the account in use today. Pure.
 */
export function latestAccount(slips, day = today()) {
  let latest = null;
  for (const slip of slips) if (slip.kind === 'expense' && slip.date <= day && (!latest || slip.date >= latest.date)) latest = slip;
  return latest?.account ?? null;
}

/** The account that spent most in months' totals (GET /reports/monthly: their by_account), or null. Pure. */
export function busiestAccount(totals) {
  const spent = new Map();
  for (const report of totals) for (const row of report?.by_account ?? []) spent.set(row.account, (spent.get(row.account) ?? 0) + (row.expense ?? 0));
  const [best] = [...spent].filter(([, expense]) => expense > 0).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  return best?.[0] ?? null;
}
