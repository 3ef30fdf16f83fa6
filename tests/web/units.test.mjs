// Amounts in their account's unit (web/format.js): yen, other currencies in their minor unit, points.
// Run by tests/api/test_web.py with the page's other pure tests.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { amountIn, minorDigits, yen } from '../../web/format.js';

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
