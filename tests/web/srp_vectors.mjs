// The page's SRP (web/srp.js) on fixed inputs, for tests/unit/test_srp_vectors.py to compare with
// pycognito's: reads a JSON list of cases on stdin ({a, salt, B, secret_block, timestamp, pool_id,
// user_id, password}, numbers in hex), prints each case's A, u, x, S (hex), key (hex) and signature.

import { claimSignature, ephemeral, passwordKey, timestamp } from '../../web/srp.js';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const c of JSON.parse(input)) {
  const { a, A } = ephemeral(BigInt(`0x${c.a}`));
  const { u, x, S, key } = await passwordKey({ poolId: c.pool_id, userId: c.user_id, password: c.password, a, A, B: c.B, salt: c.salt });
  const signature = await claimSignature({ poolId: c.pool_id, userId: c.user_id, secretBlock: c.secret_block, timestamp: c.timestamp, key });
  out.push({
    A: A.toString(16),
    u: u.toString(16),
    x: x.toString(16),
    S: S.toString(16),
    key: Buffer.from(key).toString('hex'),
    signature,
    timestamp: c.date ? timestamp(new Date(c.date)) : null,
  });
}
process.stdout.write(JSON.stringify(out));
