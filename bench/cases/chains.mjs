import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createWalletClient, http, parseAbi, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin', 'svc.js');
const ERC20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

/**
 * `svc dev --json --memory --port 0` (with `extra` flags) in its own process: resolves once its ready
 * line is read, with the time it took and its NDJSON events as they come.
 */
async function dev(cwd, extra = []) {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'dev', '--json', '--memory', '--port', '0', ...extra], {
    cwd,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const listeners = new Set();
  const lines = readline.createInterface({ input: child.stdout });
  const ready = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`svc dev exited ${code} before it was ready`)));
    lines.on('line', (line) => {
      const event = JSON.parse(line);
      if (event.type === 'ready') resolve(event);
      for (const listener of listeners) listener(event, performance.now());
    });
  });
  const ms = performance.now() - started;
  const stop = () =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  return { ready, ms, stop, on: (listener) => listeners.add(listener) };
}

async function createInvoices(ready, count, amount) {
  const headers = { authorization: `Bearer ${ready.test.merchantKey}`, 'content-type': 'application/json' };
  const invoices = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${ready.baseUrl}/v1/invoices`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': `bench-chains-${i}-${Math.random()}` },
      body: JSON.stringify({ amount }),
    });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    const invoice = await res.json();
    invoices.push({ id: invoice.id, address: invoice.addresses.find((a) => a.family === 'evm').depositAddress });
  }
  return invoices;
}

function wallet(chain, account) {
  const definition = {
    id: chain.networkId,
    name: chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  };
  return createWalletClient({ account: privateKeyToAccount(chain.accounts[account].privateKey), chain: definition, transport: http(chain.rpcUrl) });
}

/**
 * #27: `svc dev --chains` until its ready line (four anvil nodes started, their USDC deployed and
 * funded), median of 5 starts; beside it `svc dev` without chains, in turns, for what the chains add.
 * #28: a transfer's inclusion to the invoice's CONFIRMING: the time from the RPC's answer to
 * eth_sendRawTransaction (automine: the block is mined before it answers) to the `chain.transfer`
 * event on svc dev's stdout (written once the payment is committed), for 60 transfers one after the
 * other, sent through the rpcUrl by viem; p50, p90 in the detail.
 * #29: 100 invoices paid by 100 transfers sent at once from ten accounts over the four networks, then
 * one block mined on each: missed plus double-credited payments (target 0).
 */
export async function chainRows(report) {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-chains-'));
  try {
    const withChains = [];
    const without = [];
    for (let i = 0; i < 6; i++) {
      const plain = await dev(cwd);
      await plain.stop();
      const chains = await dev(cwd, ['--chains']);
      await chains.stop();
      if (i === 0) continue; // warms the file cache
      without.push(plain.ms);
      withChains.push(chains.ms);
    }
    report({
      id: 27,
      what: '`svc dev --chains` ready (four anvil nodes, their USDC deployed and funded)',
      value: median(withChains),
      target: 2000,
      better: 'lower',
      unit: 'ms',
      detail: `median of 5 starts; \`svc dev\` without chains ${median(without).toFixed(0)} ms in turns`,
    });

    const emulator = await dev(cwd, ['--chains']);
    try {
      const arrivals = new Map();
      const waiting = new Map();
      emulator.on((event, at) => {
        if (event.type !== 'chain.transfer') return;
        arrivals.set(event.txHash, at);
        waiting.get(event.txHash)?.(at);
      });
      const chain = emulator.ready.chains.find((c) => c.networkId === 84532);
      const token = chain.tokens[0].contractAddress;
      const sender = wallet(chain, 0);
      const invoices = await createInvoices(emulator.ready, 61, '1.00');
      const latencies = [];
      for (const [i, invoice] of invoices.entries()) {
        const hash = await sender.writeContract({ address: token, abi: ERC20, functionName: 'transfer', args: [invoice.address, parseUnits('1', 6)] });
        const included = performance.now();
        // The event may be read before the hash is known here: then it is already among the arrivals.
        const at =
          arrivals.get(hash) ??
          (await new Promise((resolve) => {
            waiting.set(hash, resolve);
            setTimeout(() => resolve(null), 10_000);
          }));
        if (at === null) throw new Error(`no chain.transfer for ${hash}`);
        if (i > 0) latencies.push(Math.max(0, at - included));
      }
      report({
        id: 28,
        what: "a transfer's inclusion (the RPC's answer) to the invoice's CONFIRMING (`chain.transfer` on svc dev's stdout)",
        value: percentile(latencies, 50),
        target: 200,
        better: 'lower',
        unit: 'ms',
        detail: `p50 of ${latencies.length} transfers one after the other through the rpcUrl; p90 ${percentile(latencies, 90).toFixed(1)} ms; ${latencies.filter((l) => l === 0).length} arrived before viem's call returned (counted 0)`,
      });
    } finally {
      await emulator.stop();
    }

    const batch = await dev(cwd, ['--chains']);
    try {
      const { ready } = batch;
      const invoices = await createInvoices(ready, 100, '2.50');
      const started = performance.now();
      // Ten accounts, each sending its ten transfers in order (one nonce after the other), at once.
      await Promise.all(
        Array.from({ length: 10 }, async (_, account) => {
          for (let k = 0; k < 10; k++) {
            const n = account * 10 + k;
            const chain = ready.chains[n % ready.chains.length];
            await wallet(chain, account).writeContract({
              address: chain.tokens[0].contractAddress,
              abi: ERC20,
              functionName: 'transfer',
              args: [invoices[n].address, parseUnits('2.5', 6)],
            });
          }
        }),
      );
      for (const chain of ready.chains) {
        const res = await fetch(`${ready.baseUrl}/__emulator/chains/${chain.networkId}/mine`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"blocks":1}',
        });
        if (res.status !== 200) throw new Error(`mine: ${res.status}`);
      }
      const elapsed = performance.now() - started;
      let missed = 0;
      let doubled = 0;
      for (const invoice of invoices) {
        const payments = (await (await fetch(`${ready.baseUrl}/__emulator/invoices/${invoice.id}/payments`)).json()).data.filter((p) => p.credited);
        const got = await (
          await fetch(`${ready.baseUrl}/v1/invoices/${invoice.id}`, { headers: { authorization: `Bearer ${ready.test.merchantKey}` } })
        ).json();
        if (payments.length === 0 || got.status !== 'PAID') missed++;
        if (payments.length > 1 || got.amountReceived !== '2.50') doubled++;
      }
      report({
        id: 29,
        what: '100 invoices paid by 100 transfers at once (ten accounts, four networks): payments missed or credited twice',
        value: missed + doubled,
        target: 0,
        better: 'lower',
        unit: 'payments',
        detail: `${missed} missed, ${doubled} credited twice; sent and confirmed in ${(elapsed / 1000).toFixed(1)} s`,
      });
    } finally {
      await batch.stop();
    }
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}
