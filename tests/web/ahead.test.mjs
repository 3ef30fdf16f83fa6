// The months ahead's pure words and shapes (web/views/ahead.js, web/chart.js): a shortfall named in
// a sentence, a goal's progress, the alert badge, the forecast's step lines and window.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { forecastLines } from '../../web/chart.js';
import { alertCountText, debitDays, forecastSeries, goalShare, goalText, lastTwelve, moveText, netWorthSummary, shortfallText, untilOf } from '../../web/views/ahead.js';

const yen = (n) => `￥${n.toLocaleString('en-US')}`.replace('￥-', '-￥');

const bank = {
  account: 'bank',
  name: '三井住友',
  type: 'bank',
  unit: 'JPY',
  balance: 50000,
  low_balance: 10000,
  final_balance: -3000,
  days: [
    { date: '2026-12-10', change: -20000, balance: 30000, moves: [{ kind: 'recurrence', date: '2026-12-10', amount: -20000, memo: '家賃' }] },
    { date: '2026-12-28', change: -33000, balance: -3000, moves: [{ kind: 'card_payment', date: '2026-12-27', amount: -33000, card: 'visa', closing_date: '2026-11-30' }] },
  ],
  first_shortfall: {
    title: '残高不足の見込み',
    date: '2026-12-28',
    balance: -3000,
    floor: 10000,
    cause: { kind: 'card_payment', date: '2026-12-27', amount: -33000, card: 'visa', closing_date: '2026-11-30' },
  },
};

describe('a shortfall in words', () => {
  test('names the day, the account, the cause and the floor', () => {
    const text = shortfallText(bank, (id) => ({ visa: '楽天カード' })[id] ?? id);
    assert.match(text, /^残高不足の見込み: 2026年12月28日\(月\) 三井住友 が /);
    assert.ok(text.includes('カードの引き落とし（楽天カード、11/30(月)締め）'), text);
    assert.ok(text.includes(`${yen(-33000)} で${yen(-3000)} になります`), text);
    assert.ok(text.endsWith(`（下限 ${yen(10000)}）`), text);
  });

  test('below already today: no cause, no floor when it is 0', () => {
    const text = shortfallText({ ...bank, first_shortfall: { title: 'Projected shortfall', date: '2026-12-01', balance: -5, floor: 0, cause: null } });
    assert.equal(text, `Projected shortfall: 2026年12月1日(火) 三井住友 が すでに${yen(-5)} になります`);
  });

  test('none: nothing said', () => {
    assert.equal(shortfallText({ ...bank, first_shortfall: null }), '');
  });

  test('each kind of move', () => {
    assert.equal(moveText({ kind: 'recurrence', memo: '家賃' }), '繰り返しの伝票「家賃」');
    assert.equal(moveText({ kind: 'slip' }), '予定の伝票');
    assert.equal(moveText({ kind: 'lapse' }), 'ポイントの失効');
    assert.equal(moveText({ kind: 'card_payment', card: 'visa' }), 'カードの引き落とし（visa）');
    assert.equal(moveText(null), '');
  });
});

describe('the forecast line', () => {
  test('debit days are the days with a card payment', () => {
    assert.deepEqual(debitDays(bank), ['2026-12-28']);
    assert.deepEqual(debitDays({ days: [] }), []);
  });

  test('the series starts today', () => {
    assert.deepEqual(forecastSeries(bank, '2026-12-01'), [
      { date: '2026-12-01', balance: 50000 },
      { date: '2026-12-10', balance: 30000 },
      { date: '2026-12-28', balance: -3000 },
    ]);
  });

  test('step lines on one scale, 0 inside it, carried to the window end', () => {
    const points = forecastSeries(bank, '2026-12-01');
    const { steps, zero } = forecastLines([{ points }], { from: '2026-12-01', until: '2026-12-31', width: 300, height: 100 });
    const [line] = steps;
    assert.deepEqual(line[0], [0, 0]); // the highest balance on top
    assert.deepEqual(line[1], [90, 0]); // held until the 10th ...
    assert.equal(line[2][0], 90); // ... then down
    assert.deepEqual(line.at(-1), [300, 100]); // the lowest at the bottom, to the last day
    assert.ok(zero > 90 && zero < 100, String(zero));
  });

  test('the window: months on, a year the day before the same date', () => {
    assert.equal(untilOf('2026-12-02', 3), '2027-03-02');
    assert.equal(untilOf('2026-11-30', 3), '2027-02-28');
    assert.equal(untilOf('2026-12-02', 12), '2027-12-01');
    assert.equal(untilOf('2028-02-29', 12), '2029-02-27');
  });
});

describe('a goal in words', () => {
  const goal = { name: '旅行', target: 300000, saved: 120000, remaining: 180000, by: '2027-06-30', monthly_needed: 25715, on_track: false };

  test('saved of target, what remains, by when, monthly, on track', () => {
    assert.equal(goalShare(goal), 0.4);
    assert.equal(
      goalText(goal),
      `${yen(120000)} / ${yen(300000)}（40%）・あと ${yen(180000)}・2027年6月30日(水)まで・毎月 ${yen(25715)}・見通しでは間に合いません`,
    );
    assert.ok(goalText({ ...goal, on_track: true }).endsWith('見通しでは間に合います'));
  });

  test('without by: no monthly amount; reached: 達成; a balance below 0 is 0%', () => {
    assert.equal(goalText({ ...goal, by: null, monthly_needed: null, on_track: null }), `${yen(120000)} / ${yen(300000)}（40%）・あと ${yen(180000)}`);
    assert.equal(goalText({ ...goal, saved: 310000, remaining: 0, by: null, monthly_needed: 0, on_track: true }), `${yen(310000)} / ${yen(300000)}（100%）・達成`);
    assert.equal(goalShare({ ...goal, saved: -5 }), 0);
  });
});

describe('alerts and net worth', () => {
  test('the badge', () => {
    assert.equal(alertCountText(0), 'お知らせはありません');
    assert.equal(alertCountText(3), 'お知らせ 3 件');
  });

  test('the twelve months up to the month shown, never past this month', () => {
    assert.deepEqual(lastTwelve('2026-11', '2026-12'), { from: '2025-12', to: '2026-11' });
    assert.deepEqual(lastTwelve('2027-03', '2026-12'), { from: '2026-01', to: '2026-12' });
  });

  test('net worth from the first month to the last', () => {
    assert.equal(netWorthSummary([]), 'データなし');
    assert.equal(
      netWorthSummary([
        { month: '2026-01', net: 100000 },
        { month: '2026-12', net: 80000 },
      ]),
      `2026年1月 ${yen(100000)} → 2026年12月 ${yen(80000)}（-${yen(20000)}）`,
    );
  });
});
