import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, spawnCli } from '../helpers/cli.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `svc dev --chains`, `svc exec --chains` and `svc chain …` as users run them (CONTRACT §14): real
 * anvil nodes from the optional package, stopped with svc, whatever way svc stops.
 */
const cleanup = perTest();
const dir = tempDir('svc-e2e-chains-');

interface Ready {
  type: 'ready';
  baseUrl: string;
  test: { partnerKey: string; merchantKey: string; merchantId: string };
  chains: { networkId: number; name: string; rpcUrl: string; blockNumber: number; confirmations: number; accounts: { address: string }[] }[];
}

/** The anvil processes `pid` started (Linux: their parent is svc, in a process group of their own). */
function anvilChildren(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((f) => /^\d+$/.test(f))
    .flatMap((f) => {
      try {
        const stat = fs.readFileSync(`/proc/${f}/stat`, 'utf8');
        const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(stat)!;
        const ppid = Number(rest!.split(' ')[1]);
        return comm === 'anvil' && ppid === pid ? [Number(f)] : [];
      } catch {
        return [];
      }
    });
}

/** Processes whose environment holds `SVC_TEST_MARK=<mark>`: svc's children inherit it, wherever they were reparented. */
function marked(mark: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((f) => /^\d+$/.test(f))
    .filter((f) => {
      try {
        return fs.readFileSync(`/proc/${f}/environ`, 'utf8').split('\0').includes(`SVC_TEST_MARK=${mark}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function devWithChains(cwd: string, extra: string[] = []) {
  const dev = cleanup.track(spawnCli(['dev', '--chains', '--json', '--port', '0', ...extra], { cwd }));
  const ready: Ready = JSON.parse(await dev.waitForLine((l) => l.startsWith('{"type":"ready"'), 60_000));
  return { dev, ready };
}

async function createInvoice(ready: Ready, amount: string): Promise<{ id: string }> {
  const res = await fetch(`${ready.baseUrl}/v1/invoices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ready.test.merchantKey}`, 'content-type': 'application/json', 'idempotency-key': `e2e-${Math.random()}` },
    body: JSON.stringify({ amount }),
  });
  expect(res.status).toBe(201);
  return res.json() as Promise<{ id: string }>;
}

describe('svc dev --chains', () => {
  it('starts a node per EVM test network (the ready event lists them), and stops them with svc', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'dev-'));
    const { dev, ready } = await devWithChains(cwd, ['--memory']);
    expect(ready.chains.map((c) => [c.networkId, c.blockNumber, c.confirmations])).toEqual([
      [11155111, 0, 2],
      [84532, 0, 2],
      [80002, 0, 2],
      [421614, 0, 2],
    ]);
    for (const chain of ready.chains) expect(chain.rpcUrl).toBe(`${ready.baseUrl}/__emulator/chains/${chain.networkId}/rpc`);
    const rpc = await fetch(ready.chains[1]!.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    expect(await rpc.json()).toMatchObject({ result: '0x14a34' });
    const nodes = anvilChildren(dev.child.pid!);
    expect(nodes).toHaveLength(4);
    expect(await dev.stop('SIGTERM')).toBe(0);
    for (const pid of nodes) expect(alive(pid), `anvil ${pid}`).toBe(false);
  });

  it('a SIGKILLed svc leaves no node running (Linux: the kernel ends them with it)', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'kill-'));
    const { dev } = await devWithChains(cwd, ['--memory']);
    const nodes = anvilChildren(dev.child.pid!);
    expect(nodes).toHaveLength(4);
    await dev.stop('SIGKILL');
    // The kernel signals them as svc ends; reaping them takes a moment (init adopts them).
    for (let i = 0; i < 100 && nodes.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
    for (const pid of nodes) expect(alive(pid), `anvil ${pid}`).toBe(false);
  });

  it('svc chain pay, mine and list against it: a real transfer, its hash, the invoice confirming then paid', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'pay-'));
    const { ready } = await devWithChains(cwd, ['--memory']);
    const inv = await createInvoice(ready, '20.00');

    const human = await runCli(['chain', 'pay', inv.id, '--network', '80002', '--amount', '5', '--no-confirm'], { cwd });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/tx hash\s+0x[0-9a-f]{64}/);
    expect(human.stdout).toMatch(/status\s+CONFIRMING/);

    const mined = await runCli(['chain', 'mine', '--network', '80002', '--json'], { cwd });
    expect(mined.code, mined.stderr).toBe(0);
    expect(JSON.parse(mined.stdout)).toMatchObject({ networkId: 80002, blockNumber: 2 });

    const rest = await runCli(['chain', 'pay', inv.id, '--json'], { cwd });
    expect(rest.code, rest.stderr).toBe(0);
    const paid = JSON.parse(rest.stdout);
    expect(paid).toMatchObject({ networkId: 11155111, token: 'USDC', amount: '15.00', credited: true, invoice: { status: 'PAID', amountReceived: '20.00' } });
    expect(paid.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(paid.from).toBe(ready.chains[0]!.accounts[0]!.address);

    const list = await runCli(['chain', 'list', '--json'], { cwd });
    expect(JSON.parse(list.stdout).data.find((c: { networkId: number }) => c.networkId === 11155111).blockNumber).toBe(2);
    const nothingLeft = await runCli(['chain', 'pay', inv.id], { cwd });
    expect(nothingLeft.code).toBe(2);
    expect(nothingLeft.stderr).toMatch(/nothing left to pay: pass --amount/);
  });

  it('a Ctrl-C (SIGINT to the terminal’s process group) saves the chains: the next start has them as they were', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'ctrl-c-'));
    const db = path.join(cwd, 'state.sqlite');
    // Like a terminal: svc leads its own process group, and Ctrl-C signals the whole group.
    const dev = spawn(process.execPath, [BIN, 'dev', '--chains', '--json', '--port', '0', '--db', db], {
      cwd,
      detached: true,
      env: { ...process.env, NO_COLOR: '1' },
    });
    cleanup.defer(async () => {
      if (dev.exitCode === null) process.kill(-dev.pid!, 'SIGKILL');
    });
    const lines = readline.createInterface({ input: dev.stdout });
    const ready: Ready = JSON.parse(await new Promise<string>((resolve) => lines.on('line', (l) => l.startsWith('{"type":"ready"') && resolve(l))));
    const inv = await createInvoice(ready, '9.00');
    const pay = await runCli(['chain', 'pay', inv.id, '--network', '84532', '--no-confirm', '--json'], { cwd });
    expect(pay.code, pay.stderr).toBe(0);
    const nodes = anvilChildren(dev.pid!);
    const exited = new Promise<number | null>((resolve) => dev.on('exit', (code) => resolve(code)));
    process.kill(-dev.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    for (const pid of nodes) expect(alive(pid)).toBe(false);

    const { ready: again } = await devWithChains(cwd, ['--db', db]);
    expect(again.chains.find((c) => c.networkId === 84532)!.blockNumber).toBe(1);
    const mined = await runCli(['chain', 'mine', '--network', '84532', '--json'], { cwd });
    expect(mined.code, mined.stderr).toBe(0);
    const invoice = await fetch(`${again.baseUrl}/v1/invoices/${inv.id}`, { headers: { authorization: `Bearer ${again.test.merchantKey}` } });
    expect(await invoice.json()).toMatchObject({ status: 'PAID', amountReceived: '9.00' });
  });

  it('a failed start (the port is taken) leaves no node behind', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'busy-'));
    // A program that holds the port and reads what it is sent (svc asks whether it is an emulator).
    const blocker = net.createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanup.defer(() => new Promise((resolve) => blocker.close(resolve)));
    const port = (blocker.address() as net.AddressInfo).port;
    const mark = `busy-${process.pid}-${Date.now()}`;
    const res = await runCli(['dev', '--chains', '--memory', '--port', String(port)], { cwd, env: { SVC_TEST_MARK: mark } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(String(port));
    expect(marked(mark)).toEqual([]);
  });

  it('without the optional package: one line naming it, exit 1 (SVC_ANVIL plays its absence)', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'missing-'));
    const res = await runCli(['dev', '--chains', '--memory', '--port', '0'], { cwd, env: { SVC_ANVIL: path.join(cwd, 'no-anvil-here') } });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/@foundry-rs\/anvil/);
    expect(fs.existsSync(path.join(cwd, '.svc'))).toBe(false);
  });

  it('with --database: refused in one line naming --chains (exit 2)', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'pg-'));
    const res = await runCli(['dev', '--chains', '--database', 'postgres://svc@127.0.0.1:1/none'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')[0]).toMatch(/--chains cannot run with --database/);
  });

  it('SVC_CHAINS=1 turns them on', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'env-'));
    const dev = cleanup.track(spawnCli(['dev', '--json', '--port', '0', '--memory'], { cwd, env: { SVC_CHAINS: '1' } }));
    const ready: Ready = JSON.parse(await dev.waitForLine((l) => l.startsWith('{"type":"ready"'), 60_000));
    expect(ready.chains).toHaveLength(4);
  });
});

describe('svc exec --chains', () => {
  it('runs a command that pays with viem through the RPC URL it finds from SVC_BASE_URL; no node outlives it', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'exec-'));
    const script = path.join(cwd, 'pay.mjs');
    fs.writeFileSync(
      script,
      `import { createWalletClient, createPublicClient, http, parseAbi, parseUnits } from ${JSON.stringify(path.join(ROOT, 'node_modules/viem/_esm/index.js'))};
import { privateKeyToAccount } from ${JSON.stringify(path.join(ROOT, 'node_modules/viem/_esm/accounts/index.js'))};
const base = process.env.SVC_BASE_URL;
const headers = { authorization: 'Bearer ' + process.env.SVC_MERCHANT_KEY, 'content-type': 'application/json' };
const invoice = await (await fetch(base + '/v1/invoices', { method: 'POST', headers: { ...headers, 'idempotency-key': 'exec-1' }, body: JSON.stringify({ amount: '2.00' }) })).json();
const chain = (await (await fetch(base + '/__emulator/chains')).json()).data.find((c) => c.networkId === 84532);
const account = privateKeyToAccount(chain.accounts[0].privateKey);
const wallet = createWalletClient({ account, chain: { id: chain.networkId, name: chain.name, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } }, transport: http(chain.rpcUrl) });
const hash = await wallet.writeContract({ address: chain.tokens[0].contractAddress, abi: parseAbi(['function transfer(address,uint256) returns (bool)']), functionName: 'transfer', args: [invoice.addresses.find((a) => a.family === 'evm').depositAddress, parseUnits('2', 6)] });
await fetch(base + '/__emulator/chains/84532/mine', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"blocks":1}' });
for (let i = 0; i < 200; i++) {
  const now = await (await fetch(base + '/v1/invoices/' + invoice.id, { headers })).json();
  if (now.status === 'PAID') { console.log('PAID ' + hash); process.exit(0); }
  await new Promise((r) => setTimeout(r, 50));
}
process.exit(3);
`,
    );
    const log = path.join(cwd, 'svc.ndjson');
    const mark = `exec-${process.pid}-${Date.now()}`;
    const res = await runCli(['exec', '--chains', '--log', log, '--', process.execPath, script], { cwd, timeoutMs: 60_000, env: { SVC_TEST_MARK: mark } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^PAID 0x[0-9a-f]{64}\n$/);
    const ready = JSON.parse(fs.readFileSync(log, 'utf8').split('\n')[0]!);
    expect(ready.chains.map((c: { networkId: number }) => c.networkId)).toEqual([11155111, 84532, 80002, 421614]);
    const events = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.some((e) => e.type === 'chain.transfer' && e.credited === true)).toBe(true);
    // Its nodes went with it.
    expect(marked(mark)).toEqual([]);
  });
});
