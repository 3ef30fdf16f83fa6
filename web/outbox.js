// New slips go out through here, each with its Idempotency-Key: sent again after a failure, the same
// slip is never recorded twice.

import { state } from './state.js';
import { uuid } from './ui.js';

/** POST a new slip (`path` is the ledger's /slips) with a fresh Idempotency-Key; the API's answer. */
export async function sendSlip(path, body, key = uuid()) {
  const { data } = await state.api.request('POST', path, { json: body, headers: { 'Idempotency-Key': key } });
  return data;
}
