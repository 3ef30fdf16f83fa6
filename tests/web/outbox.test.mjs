// The outbox's pure parts (web/outbox.js) and how a queued edit shows on the slips list
// (web/views/slips/state.js), under `node --test`.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { retriable, same } from '../../web/outbox.js';
import { ApiError } from '../../web/api.js';
import { applied } from '../../web/views/slips/state.js';

describe('an edit sent again and refused: did this very edit land? (outbox.js same)', () => {
  test('the value a change left equals the one asked for, null and absent alike', () => {
    assert.ok(same('パンと牛乳', 'パンと牛乳'));
    assert.ok(same(1200, 1200));
    assert.ok(!same(1300, 1200));
    assert.ok(same(null, null) && same(undefined, null));
    assert.ok(!same('バス', null));
  });

  test("a split's lines: each line's own fields, the words the API adds left aside", () => {
    const asked = [{ amount: 800, category: '食費' }, { amount: 400, category: '日用品', memo: '洗剤' }];
    const left = [
      { amount: 800, category: '食費', category_label: '食費', subcategory: null },
      { amount: 400, category: '日用品', category_label: '日用品', memo: '洗剤' },
    ];
    assert.ok(same(left, asked));
    assert.ok(!same(left.slice(0, 1), asked)); // a line missing
    assert.ok(!same([left[0], { ...left[1], amount: 300 }], asked));
  });

  test('only a lost connection (or an API not answering for now) is tried again later', () => {
    assert.ok(retriable(new ApiError(0, null, 'offline')));
    assert.ok(retriable(new ApiError(503, null)));
    for (const status of [404, 409, 412, 422]) assert.ok(!retriable(new ApiError(status, null)), status);
  });
});

describe('an edit waiting to go out, shown on its row (views/slips/state.js applied)', () => {
  test('the merge patch applied as the API would: null removes a field, the version stays', () => {
    const slip = { id: 'S', version: 3, amount: 1200, memo: 'パン', payee: 'マルエツ' };
    assert.deepEqual(applied(slip, { memo: 'パンと牛乳', payee: null }), { id: 'S', version: 3, amount: 1200, memo: 'パンと牛乳' });
    assert.equal(slip.memo, 'パン'); // the slip listed is left as it was
  });
});
