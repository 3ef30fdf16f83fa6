import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  WORDS,
  cardPaymentRows,
  checkText,
  differenceRows,
  formatName,
  rowText,
  skippedRows,
  statementAccounts,
  wordsFor,
} from '../../web/statements.js';

const yen = (n) => `￥${n.toLocaleString('en-US')}`;
const FORMATS = [
  { id: 'kakeibo', name: 'この API の CSV', name_en: "This API's own CSV (GET /slips.csv)", kind: 'app' },
  { id: 'rakuten_card', name: '楽天カード（楽天e-NAVI ご利用明細）', name_en: 'Rakuten Card (e-NAVI statement)', kind: 'card' },
];

test('the words follow the browser: Japanese for ja and when it says nothing, English otherwise', () => {
  // Given language tags as browsers give them, When their words are chosen, Then ja* and none are Japanese
  assert.equal(wordsFor('ja-JP'), WORDS.ja);
  assert.equal(wordsFor(''), WORDS.ja);
  assert.equal(wordsFor(undefined), WORDS.ja);
  assert.equal(wordsFor('en-GB'), WORDS.en);
  // And both languages have words for every reason a line is skipped and every kind of difference
  for (const key of ['skipped', 'payments', 'differences', 'kinds']) {
    assert.deepEqual(Object.keys(WORDS.en[key]).sort(), Object.keys(WORDS.ja[key]).sort(), key);
  }
});

test("a statement's format is named as GET /imports/formats lists it, in the page's language", () => {
  // Given the API's listing, When the format of a 楽天カード file is named
  // Then Japanese pages say its Japanese name, English ones its English name
  assert.equal(formatName(FORMATS, 'rakuten_card', 'ja'), '楽天カード（楽天e-NAVI ご利用明細）');
  assert.equal(formatName(FORMATS, 'rakuten_card', 'en-US'), 'Rakuten Card (e-NAVI statement)');
  // And a format the listing lacks (or no listing read) is named by the fallback, else its id
  assert.equal(formatName(null, 'jcb', 'ja', 'JCB'), 'JCB');
  assert.equal(formatName(FORMATS, 'jcb', 'ja'), 'jcb');
});

test('a statement goes onto a card, a bank or an IC card, never an archived one', () => {
  // Given the ledger's accounts, When those a statement can be of are offered
  const accounts = [
    { id: 'cash', type: 'cash' },
    { id: 'card', type: 'credit' },
    { id: 'bank', type: 'bank' },
    { id: 'suica', type: 'emoney' },
    { id: 'old', type: 'bank', archived: true },
  ];
  // Then the card, the bank and the IC card are, in the ledger's order
  assert.deepEqual(statementAccounts(accounts).map((a) => a.id), ['card', 'bank', 'suica']);
  assert.deepEqual(statementAccounts(undefined), []);
});

test("each row says what it becomes: its kind, the issuer's payee, a rule's category", () => {
  // Given the slips of a dry run's rows, When they are said, Then kind and payee, the category only when set
  const ja = WORDS.ja;
  assert.equal(rowText({ kind: 'expense', payee: 'ｽｰﾊﾟｰ ﾏﾙｴﾂ', category: 'uncategorized' }, ja), '支出 ｽｰﾊﾟｰ ﾏﾙｴﾂ');
  assert.equal(rowText({ kind: 'income', payee: 'AMAZON.CO.JP' }, ja), '収入 AMAZON.CO.JP');
  assert.equal(rowText({ kind: 'expense', imported_payee: 'ローソン', category: '食費', subcategory: 'コンビニ' }, WORDS.en), 'expense ローソン 食費 / コンビニ');
});

test('the lines skipped and the card payments are listed in words, by line', () => {
  // Given a dry run's skipped lines and a bank row that pays a card
  const report = {
    skipped_lines: [{ line: 1, reason: 'header', text: '利用日,利用店名・商品名' }, { line: 8, reason: 'blank', text: '' }],
    card_payments: [{ line: 4, card: 'card', payment_date: '2026-12-28', amount: 29901, action: 'already_posted' }],
  };
  // When they are said, Then each is its line, its reason (or what happens) and its text
  assert.deepEqual(skippedRows(report, WORDS.ja), [['1', '見出し行', '利用日,利用店名・商品名'], ['8', '空行', '']]);
  assert.deepEqual(cardPaymentRows(report, WORDS.ja, (id) => `${id}!`, yen), [['4', 'card!', '2026-12-28', '￥29,901', '記帳済み（何も書き込みません）']]);
  // And a file without them lists none
  assert.deepEqual(skippedRows({}, WORDS.ja), []);
  assert.deepEqual(cardPaymentRows({}, WORDS.ja, String, yen), []);
});

test("the card file against the card's statement: equal, or by how much and which rows differ", () => {
  // Given the check of a file whose total is 1,200 more than the cycle's amount due
  const statement = {
    payment_date: '2026-12-27', period: { from: '2026-11-01', to: '2026-11-30' }, file_total: 29901, amount_due: 28701,
    equal: false, difference: 1200, differing: 2,
    differences: [
      { reason: 'outside_period', line: 6, date: '2026-09-15', payee: 'ビックカメラ', file_amount: 22000, ledger_amount: 22000 },
      { reason: 'not_in_file', line: null, date: '2026-11-20', file_amount: null, ledger_amount: 500 },
    ],
  };
  // When it is said, Then the totals and the difference are, and each row that differs with its reason
  assert.equal(
    checkText({ statement }, WORDS.ja, yen),
    '2026-12-27 支払い分（2026-11-01〜2026-11-30）: ファイルの合計 ￥29,901、家計簿の請求額 ￥28,701 — ￥1,200 違います（違う行・伝票 2 件）',
  );
  assert.deepEqual(differenceRows({ statement }, WORDS.ja, yen), [
    ['別の締め期間', '6', '2026-09-15', 'ビックカメラ', '￥22,000', '￥22,000'],
    ['ファイルにない', '—', '2026-11-20', '', '—', '￥500'],
  ]);
  // And an equal one says so, in English too; a file with no check says nothing
  const equal = { ...statement, amount_due: 29901, equal: true, difference: 0, differing: 0 };
  assert.match(checkText({ statement: equal }, WORDS.en, yen), /the ledger's amount due ￥29,901 — equal$/);
  assert.equal(checkText({}, WORDS.ja, yen), '');
});
