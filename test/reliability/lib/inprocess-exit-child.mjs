// One user's test process, as CONTRACT §11's exit check runs it 200 times per Node: import the
// built package, start an emulator in memory (and, when a folder is given, once more on a file
// database there), create and pay an invoice on each, stop, and let the process end by itself.
// Any abort at exit (better-sqlite3 12 on Node 24: SIGABRT from a finaliser) shows in the parent.
import path from 'node:path';

const dist = process.argv[2];
const folder = process.argv[3];
const { startEmulator } = await import(dist);

for (const db of [':memory:', ...(folder ? [path.join(folder, 'emu.sqlite')] : [])]) {
  const emulator = await startEmulator({ port: 0, db });
  const api = emulator.client.test;
  const created = await api.createPartnerInvoice({ body: { merchantId: emulator.keys.test.merchantId, amount: '10.00' }, idempotencyKey: crypto.randomUUID() });
  if (!created.ok) throw new Error(`create: ${created.error.message}`);
  const paid = await api.createTestPayment({ params: { id: created.data.id }, body: {} });
  if (!paid.ok || paid.data.invoice.status !== 'PAID') throw new Error(`pay: ${JSON.stringify(paid)}`);
  await emulator.stop();
}
process.stdout.write('done\n');
