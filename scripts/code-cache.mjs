#!/usr/bin/env node
// Run by scripts/build.mjs after it writes dist/: walks svc's start-up paths in this one process,
// then writes V8's code cache for every chunk they loaded (dist/chunk-loader.js). What V8 compiled
// while they ran (the functions a start calls, not only each chunk's top level) is in the cache, so
// a start neither parses the chunks nor compiles those functions again. The paths: the package's
// API as a test suite uses it (#13), `svc exec` around a command (#16, which is `svc dev`'s start,
// #12), and a CLI command against the emulator (#9). Prints one line for the build's summary.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (file) => pathToFileURL(path.join(root, 'dist', file)).href;

const { startEmulator } = await import(dist('index.js'));
const emulator = await startEmulator({ port: 0, db: ':memory:' });
const { test } = emulator.keys;
const created = await fetch(`${emulator.url}/v1/partner/invoices`, {
  method: 'POST',
  headers: { authorization: `Bearer ${test.partnerKey}`, 'content-type': 'application/json', 'idempotency-key': 'code-cache' },
  body: JSON.stringify({ merchantId: test.merchantId, amount: '1.00' }),
});
if (created.status !== 201) throw new Error(`creating an invoice answered ${created.status}: ${await created.text()}`);
const invoice = await created.json();
await (await fetch(`${emulator.url}/v1/partner/invoices/${invoice.id}`, { headers: { authorization: `Bearer ${test.partnerKey}` } })).text();

// The CLI in this process, as bin/svc.js runs it; its output is not the build's.
const { main } = await import(dist('cli/main.js'));
const env = { SVC_BASE_URL: emulator.url, SVC_PARTNER_KEY: test.partnerKey, SVC_MERCHANT_KEY: test.merchantKey };
Object.assign(process.env, env, { NO_COLOR: '1' });
const write = process.stdout.write;
process.stdout.write = () => true;
try {
  await main(['invoices', 'create', '--merchant', test.merchantId, '--amount', '2.00', '--json']);
  await main(['exec', '--', process.execPath, '-e', '0']);
} finally {
  process.stdout.write = write;
}
if (process.exitCode) throw new Error(`a CLI command of the warm-up exited ${process.exitCode}`);
await emulator.stop();

const { writeCodeCache } = await import(dist('chunk-loader.js'));
const written = writeCodeCache();
process.stdout.write(`V8 code cache for ${written} chunks (Node ${process.versions.node} on ${os.platform()})\n`);
