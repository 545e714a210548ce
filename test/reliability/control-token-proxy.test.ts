/**
 * Reliability: a same-host proxy in front of a replica (CONTRACT §8 "A control token guards every
 * client", §12; issue 40). Two real `svc dev --control-token … --database <url>` processes on one
 * PostgreSQL database; in front of replica A, a proxy on the same host that connects from 127.0.0.6
 * (Istio's inbound sidecar does exactly that; an nginx beside the replica connects from 127.0.0.1),
 * and a balancer in front of that proxy and replica B. Every client reaches the replicas from
 * loopback here, so a replica that trusted a loopback address would serve anyone: the control plane
 * must want the token through the proxy, every time, on both replicas, and a refused request changes
 * nothing. The API never looks at the token; local commands in a replica's folder find it in
 * `.svc/dev.json`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LiveCli, runCli, spawnCli } from '../helpers/cli.js';
import { startPostgres } from '../helpers/postgres.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../helpers/round-robin-proxy.js';
import type { ReadyEvent } from './lib/dev-process.js';
import { answered, PlainClient } from './lib/plain-client.js';

const TOKEN = 'proxy-token-0123456789';
const server = await startPostgres();
const started: { stop(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop();
});

async function replica(database: string, n: number): Promise<{ cli: LiveCli; cwd: string; url: string; keys: ReadyEvent['test'] }> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), `token-replica-${n}-`));
  const cli = spawnCli(['dev', '--json', '--port', '0', '--control-token', TOKEN, '--database', database], { cwd, env: { SVC_CONTROL_TOKEN: '' } });
  started.push({ stop: () => cli.stop('SIGKILL') });
  const ready = JSON.parse(await cli.waitForLine((l) => l.startsWith('{"type":"ready"'), 60_000)) as ReadyEvent;
  return { cli, cwd, url: ready.baseUrl, keys: ready.test };
}

async function proxy(upstreams: string[], localAddress?: string): Promise<RoundRobinProxy> {
  const p = await startRoundRobinProxy(upstreams, localAddress ? { localAddress } : {});
  started.push(p);
  return p;
}

describe('a same-host proxy in front of a replica', () => {
  it('forwards from loopback, and the control plane still wants the token through it, on every replica', async () => {
    const database = await server.createDatabase();
    const a = await replica(database, 0);
    const b = await replica(database, 1);
    const sidecar = await proxy([a.url], '127.0.0.6');
    const balancer = await proxy([sidecar.url, b.url]);
    const client = new PlainClient(balancer.url);
    started.push({ stop: () => client.close() });
    const key = a.keys.partnerKey;

    const before = answered(
      await client.call('POST', '/v1/partner/invoices', { key, idempotencyKey: 'proxy-1', body: { merchantId: a.keys.merchantId, amount: '1.00' } }),
      'create',
    );
    expect(before.status).toBe(201);

    // What an attacker tried in issue 40, each sent twice so that both replicas answer it.
    const attempts: [string, string, unknown?][] = [
      ['GET', '/__emulator/keys'],
      ['GET', '/__emulator/requests'],
      ['GET', '/__emulator/snapshots'],
      ['POST', '/__emulator/snapshots', { name: 'stolen' }],
      ['POST', '/__emulator/faults', { match: { path: '/v1/invoices' }, action: { status: 500 }, when: 'before' }],
      ['POST', '/__emulator/clock/advance', { seconds: 3600 }],
      ['POST', '/__emulator/reset', {}],
    ];
    const refused: string[] = [];
    for (const [method, route, body] of attempts) {
      for (let turn = 0; turn < 2; turn++) {
        const reply = answered(await client.call(method, route, body === undefined ? {} : { body }), `${method} ${route}`);
        expect([reply.status, reply.body?.error?.code], `${method} ${route}, turn ${turn}`).toEqual([403, 'control_plane_forbidden']);
        refused.push(`${method} ${route}`);
      }
    }
    // Both replicas answered refusals (the sidecar's replica A from 127.0.0.6, B from 127.0.0.1).
    expect(balancer.hits[0]).toBeGreaterThanOrEqual(attempts.length);
    expect(balancer.hits[1]).toBeGreaterThanOrEqual(attempts.length);
    expect(sidecar.hits[0]).toBe(balancer.hits[0]);

    // Nothing changed: the invoice is there, the clock did not move, no fault, no snapshot.
    const inv = answered(await client.call('GET', `/v1/partner/invoices/${before.body.id}`, { key }), 'read');
    expect(inv.status).toBe(200);
    const withToken = { authorization: `Bearer ${TOKEN}` };
    for (let turn = 0; turn < 2; turn++) {
      const clock = await fetch(`${balancer.url}/__emulator/clock`, { headers: withToken });
      expect(clock.status).toBe(200);
      expect(((await clock.json()) as { offsetSeconds: number }).offsetSeconds).toBe(0);
      const faults = await fetch(`${balancer.url}/__emulator/faults`, { headers: withToken });
      expect(((await faults.json()) as { data: unknown[] }).data).toEqual([]);
      const snapshots = await fetch(`${balancer.url}/__emulator/snapshots`, { headers: withToken });
      expect(((await snapshots.json()) as { data: unknown[] }).data).toEqual([]);
    }

    // A local command in replica A's folder reaches it (not the proxy) with the token from .svc/dev.json.
    const shown = await runCli(['time', 'show', '--json'], { cwd: a.cwd, env: { SVC_CONTROL_TOKEN: '', SVC_BASE_URL: '' } });
    expect(shown.code, shown.stderr).toBe(0);
    console.log(`[control token proxy] ${refused.length} control requests through a same-host proxy refused; proxy turns ${JSON.stringify(balancer.hits)}`);
  });
});
