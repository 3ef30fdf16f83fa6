// A card's or bank's statement imported as its website gives it (DESIGN §26), the pure part: the
// accounts a statement can be of, the format's name from GET /imports/formats in the page's
// language, and a dry run's or an import's statement parts in words — the lines skipped, the bank
// rows that pay a card, the card file checked against the card's statement. Japanese or English as
// the browser prefers (as the sign-in panel's words). No DOM here (tests/web/statements.test.mjs).

/** The account types a statement is imported onto: a card, a bank, an IC card (電子マネー). */
export const STATEMENT_TYPES = ['credit', 'bank', 'emoney'];

export const WORDS = {
  ja: {
    kinds: { expense: '支出', income: '収入', transfer: '振替' },
    skipped: {
      blank: '空行', preamble: '前書き', header: '見出し行', section: '区切り', note: '注記', total: '合計',
      payment: 'カードの入金', zero: '0円',
    },
    payments: { post: 'カードの支払いとして記帳', already_posted: '記帳済み（何も書き込みません）' },
    differences: {
      not_in_ledger: '家計簿にない', amount: '金額が違う', outside_period: '別の締め期間', not_in_file: 'ファイルにない',
    },
    onto: (format, account) => `${format} → ${account}`,
    skippedCaption: (n) => `読み飛ばした行（${n} 行）`,
    paymentsCaption: 'カードの支払い',
    checkCaption: 'カードの明細との照合',
    check: (c, yen) =>
      `${c.payment_date} 支払い分（${c.period.from}〜${c.period.to}）: ファイルの合計 ${yen(c.file_total)}、` +
      `家計簿の請求額 ${yen(c.amount_due)} — ` +
      (c.equal ? '一致しています' : `${yen(Math.abs(c.difference))} 違います（違う行・伝票 ${c.differing} 件）`),
  },
  en: {
    kinds: { expense: 'expense', income: 'income', transfer: 'transfer' },
    skipped: {
      blank: 'blank', preamble: 'preamble', header: 'header', section: 'section', note: 'note', total: 'total',
      payment: "the card's payment", zero: 'zero yen',
    },
    payments: { post: "booked as the card's payment", already_posted: 'already booked (nothing written)' },
    differences: {
      not_in_ledger: 'not in the ledger', amount: 'another amount', outside_period: 'in another cycle', not_in_file: 'not in the file',
    },
    onto: (format, account) => `${format} → ${account}`,
    skippedCaption: (n) => `Lines skipped (${n})`,
    paymentsCaption: 'Card payments',
    checkCaption: "Checked against the card's statement",
    check: (c, yen) =>
      `Paid ${c.payment_date} (${c.period.from} to ${c.period.to}): the file's total ${yen(c.file_total)}, ` +
      `the ledger's amount due ${yen(c.amount_due)} — ` +
      (c.equal ? 'equal' : `${yen(Math.abs(c.difference))} apart (${c.differing} rows and slips differ)`),
  },
};

/** The words for a language tag: Japanese for ja* (or none), English otherwise. Pure. */
export const wordsFor = (language) => (/^ja\b/i.test(language ?? '') || !language ? WORDS.ja : WORDS.en);

/** The accounts a statement may be imported onto (cards, banks, IC cards), archived ones left out. Pure. */
export const statementAccounts = (accounts) =>
  (accounts ?? []).filter((a) => STATEMENT_TYPES.includes(a.type) && !a.archived);

/**
 * A format's name as GET /imports/formats lists it, in the page's language (`name` for Japanese,
 * `name_en` otherwise); `fallback` (or the id) when the listing does not have it. Pure.
 */
export function formatName(formats, id, language, fallback) {
  const found = (formats ?? []).find((f) => f.id === id);
  if (!found) return fallback ?? id;
  return (wordsFor(language) === WORDS.ja ? found.name : found.name_en) || found.name || id;
}

/** What a statement's row becomes, in words: its kind and its payee (then its category, if a rule set one). Pure. */
export function rowText(slip, words) {
  return [
    words.kinds[slip.kind] ?? slip.kind,
    slip.payee ?? slip.imported_payee ?? '',
    [slip.category, slip.subcategory].filter((c) => c && c !== 'uncategorized').join(' / '),
  ].filter(Boolean).join(' ');
}

/** The lines skipped (totals, headers, notes…), each as [line, reason in words, its text]. Pure. */
export const skippedRows = (report, words) =>
  (report.skipped_lines ?? []).map((s) => [String(s.line), words.skipped[s.reason] ?? s.reason, s.text ?? '']);

/**
 * The bank rows that pay one of the ledger's cards, each as [line, card, payment date, amount, what
 * happens]; `cardName` names the card's account and `yen` writes an amount. Pure.
 */
export const cardPaymentRows = (report, words, cardName, yen) =>
  (report.card_payments ?? []).map((p) => [
    String(p.line),
    cardName(p.card),
    p.payment_date,
    yen(p.amount),
    words.payments[p.action] ?? p.action,
  ]);

/** The card file checked against the card's statement in one sentence, or '' without a check. Pure. */
export const checkText = (report, words, yen) => (report.statement ? words.check(report.statement, yen) : '');

/** The rows and slips that differ from the card's statement, each as [reason, line, date, payee, file, ledger]. Pure. */
export const differenceRows = (report, words, yen) =>
  (report.statement?.differences ?? []).map((d) => [
    words.differences[d.reason] ?? d.reason,
    d.line === null || d.line === undefined ? '—' : String(d.line),
    d.date,
    d.payee ?? '',
    d.file_amount === null || d.file_amount === undefined ? '—' : yen(d.file_amount),
    d.ledger_amount === null || d.ledger_amount === undefined ? '—' : yen(d.ledger_amount),
  ]);
