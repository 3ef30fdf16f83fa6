// Amounts in their account's unit (web/format.js): yen, other currencies in their minor unit, points.
// Run by tests/api/test_web.py with the page's other pure tests.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { amountIn, amountText, minorDigits, parseAmountIn, unitLabel, unitPatch, yen } from '../../web/format.js';

test('yen stays as the page always showed it', () => {
  assert.equal(amountIn(1200, 'JPY'), yen(1200));
  assert.equal(amountIn(1200, undefined), yen(1200));
});

test('a foreign amount is shown in its currency from its minor unit, exactly', () => {
  assert.equal(amountIn(1234, 'USD'), '$12.34');
  assert.equal(amountIn(-5, 'USD'), '-$0.05');
  assert.equal(amountIn(123456789, 'EUR'), '€1,234,567.89');
  assert.equal(amountIn(1000, 'KRW'), '₩1,000');
  assert.equal(minorDigits('KWD'), 3);
  assert.match(amountIn(12345, 'KWD'), /12\.345/);
});

test('points are whole, with pt', () => {
  assert.equal(amountIn(1200, 'points'), '1,200 pt');
  assert.equal(minorDigits('points'), 0);
});

test('an amount typed in a currency becomes its minor unit, with integer arithmetic', () => {
  assert.equal(parseAmountIn('12.34', 'USD'), 1234);
  assert.equal(parseAmountIn('0.1', 'USD'), 10);
  assert.equal(parseAmountIn('1,000', 'USD'), 100000);
  assert.equal(parseAmountIn('１２．３４', 'USD'), 1234);
  assert.equal(parseAmountIn('4.01', 'EUR'), 401); // 4.01 * 100 is 400.99999999999994 in floats
  assert.equal(parseAmountIn('1.234', 'KWD'), 1234);
  assert.equal(parseAmountIn('1200', 'JPY'), 1200);
  assert.equal(parseAmountIn('120', 'points'), 120);
  assert.equal(parseAmountIn('-1.5', 'USD', { allowNegative: true }), -150);
  assert.equal(parseAmountIn('0', 'USD', { allowZero: true }), 0);
});

test('an amount with more digits than its currency has, or none, is refused in words', () => {
  assert.throws(() => parseAmountIn('12.345', 'USD'), /小数点以下 2 桁/);
  assert.throws(() => parseAmountIn('12.3', 'JPY'), /整数（円）/);
  assert.throws(() => parseAmountIn('1.5', 'points'), /整数（ポイント）/);
  assert.throws(() => parseAmountIn('0', 'USD'), /0 より大きく/);
  assert.throws(() => parseAmountIn('-1', 'USD'), /0 より大きく/);
  assert.throws(() => parseAmountIn('', 'USD'));
  assert.throws(() => parseAmountIn('10000000000.01', 'USD'), /以下/);
});

test('a unit is named in a label', () => {
  assert.equal(unitLabel('JPY'), '円');
  assert.equal(unitLabel(undefined), '円');
  assert.equal(unitLabel('points'), 'ポイント');
  assert.equal(unitLabel('USD'), 'USD');
});

test('an amount goes back into a form as it was typed', () => {
  assert.equal(amountText(1234, 'USD'), '12.34');
  assert.equal(amountText(5, 'USD'), '0.05');
  assert.equal(amountText(-150, 'USD'), '-1.50');
  assert.equal(amountText(1200, 'JPY'), '1200');
  assert.equal(amountText(120, 'points'), '120');
  assert.equal(amountText(null, 'USD'), '');
  assert.equal(parseAmountIn(amountText(401, 'EUR'), 'EUR'), 401);
});

test('an edit patches only the unit fields it changed, null removing one', () => {
  const base = { jpy_amount: 1850, expires_on: null };
  assert.deepEqual(unitPatch(base, { jpy_amount: 1850 }), {});
  assert.deepEqual(unitPatch(base, { jpy_amount: 1900 }), { jpy_amount: 1900 });
  assert.deepEqual(unitPatch(base, {}), { jpy_amount: null });
  assert.deepEqual(unitPatch({}, { to_amount: 500, expires_on: '2026-12-31' }), { to_amount: 500, expires_on: '2026-12-31' });
});

test('a new amount sends the yen and what arrived that the form shows, even unchanged', () => {
  // Given a $12.34 dinner charged ¥1,850, and a $130.00 exchange that brought ¥20,000
  const dinner = { amount: 1234, jpy_amount: 1850, expires_on: null };
  const exchange = { amount: 13000, to_amount: 20000 };
  // When the amount changes and the yen stays as shown, Then the yen goes with the new amount
  assert.deepEqual(unitPatch(dinner, { amount: 2000, jpy_amount: 1850 }), { jpy_amount: 1850 });
  assert.deepEqual(unitPatch(exchange, { amount: 14000, to_amount: 20000 }), { to_amount: 20000 });
  // And the same amount sends nothing it did not change; a yen slip sends no yen
  assert.deepEqual(unitPatch(dinner, { amount: 1234, jpy_amount: 1850 }), {});
  assert.deepEqual(unitPatch({ amount: 500 }, { amount: 600 }), {});
});
