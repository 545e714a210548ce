/**
 * Published on another port (`docker run -p 127.0.0.1:4748:4747`), the emulator's links still named
 * its own port: invoices' `checkoutUrl` pointed at whatever held 4747 on the client's side (issue 38).
 * An emulator on every address without a public URL now says so at the first request that names
 * another port, once, with the SVC_PUBLIC_URL to set; with it set, the links name that address.
 * A TCP forwarder on another port stands in for the engine's port mapping.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

const each = perTest();

/** A port that forwards every connection to `port` on 127.0.0.1, as `-p 4748:4747` does. */
async function forwarder(port: number): Promise<number> {
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  each.defer(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as net.AddressInfo).port;
}

async function dev(args: string[]) {
  const cli = each.track(
    spawnCli(['dev', '--host', '0.0.0.0', '--port', '0', '--json', '--memory', ...args], { cwd: tempDir('svc-port-hint-'), env: { SVC_PROFILE: '' } }),
  );
  const ready = JSON.parse(await cli.waitForLine((l) => l.includes('"type":"ready"'))) as { baseUrl: string; test: { merchantKey: string } };
  return { cli, ready, port: Number(new URL(ready.baseUrl).port) };
}

const invoice = async (url: string, key: string) => {
  const res = await request(url, 'POST', '/v1/invoices', { key, idempotencyKey: ikey(), body: { amount: '5.00' } });
  expect(res.status, res.text).toBe(201);
  return res.body as { checkoutUrl: string };
};

describe('an emulator reached on another port than its own', () => {
  it('warns once, at the first request through that port, naming the SVC_PUBLIC_URL to set', async () => {
    const { cli, ready, port } = await dev([]);
    const mapped = await forwarder(port);
    // Its own port first: nothing to say.
    await invoice(ready.baseUrl, ready.test.merchantKey);
    const created = await invoice(`http://127.0.0.1:${mapped}`, ready.test.merchantKey);
    expect(created.checkoutUrl.startsWith(`${ready.baseUrl}/`)).toBe(true);
    const warning = JSON.parse(await cli.waitForLine((l) => l.includes('"type":"warning"') && l.includes('SVC_PUBLIC_URL')));
    expect(warning.message).toBe(
      `a request came to 127.0.0.1:${mapped}, but the links this emulator writes (checkoutUrl, bindUrl) name ${ready.baseUrl}: published on another port, set SVC_PUBLIC_URL=http://127.0.0.1:${mapped} (or --public-url) so that they point here`,
    );
    await invoice(`http://127.0.0.1:${mapped}`, ready.test.merchantKey);
    await invoice(ready.baseUrl, ready.test.merchantKey);
    expect(cli.lines.filter((l) => l.includes('SVC_PUBLIC_URL'))).toHaveLength(1);
  });

  it('with SVC_PUBLIC_URL set to the mapped address: checkoutUrl names it, and nothing is said', async () => {
    // The mapped port is known before the emulator starts: it forwards to a port chosen first.
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    await new Promise((resolve) => holder.close(resolve));
    const mapped = await forwarder(port);
    const cli = each.track(
      spawnCli(['dev', '--host', '0.0.0.0', '--port', String(port), '--json', '--memory'], {
        cwd: tempDir('svc-port-hint-'),
        env: { SVC_PROFILE: '', SVC_PUBLIC_URL: `http://127.0.0.1:${mapped}` },
      }),
    );
    const ready = JSON.parse(await cli.waitForLine((l) => l.includes('"type":"ready"'))) as { test: { merchantKey: string } };
    const created = await invoice(`http://127.0.0.1:${mapped}`, ready.test.merchantKey);
    expect(created.checkoutUrl.startsWith(`http://127.0.0.1:${mapped}/checkout/`)).toBe(true);
    await invoice(`http://127.0.0.1:${port}`, ready.test.merchantKey);
    expect(cli.lines.filter((l) => l.includes('"type":"warning"') && l.includes('SVC_PUBLIC_URL'))).toEqual([]);
  });
});
