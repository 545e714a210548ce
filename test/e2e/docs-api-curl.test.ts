import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type LiveCli } from '../helpers/cli.js';
import { docBlocks } from '../helpers/doc-blocks.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testEngine } from '../helpers/postgres-database.js';

/**
 * docs/api.md promises that its curl examples run as shown against `svc dev`: run them, in order,
 * in one bash session, exactly as written between the curl-examples markers.
 */
let dev: LiveCli;
let ready: { baseUrl: string; test: { partnerKey: string; merchantKey: string } };

beforeAll(async () => {
  // With local chains: their examples mine and call a node (docs/chains.md). They need SQLite: on
  // PostgreSQL (e2e-postgres) their block is left out, and their endpoints from the coverage below.
  dev = spawnCli(['dev', '--port', '0', '--json', '--memory', ...(CHAINS ? ['--chains'] : [])], { cwd: tempDir() });
  ready = JSON.parse(await dev.waitForLine(() => true));
});
afterAll(() => dev.stop());

const CHAINS = testEngine() !== 'postgres';
const CHAIN_OPERATIONS = ['GET /__emulator/chains', 'POST /__emulator/chains/{networkId}/rpc', 'POST /__emulator/chains/{networkId}/mine'];

function examples(): string[] {
  return docBlocks('docs/api.md', 'curl-examples').filter((block) => CHAINS || !block.includes('/__emulator/chains'));
}

describe('docs/api.md curl examples', () => {
  it('every block runs successfully against svc dev', () => {
    const blocks = examples();
    expect(blocks.length).toBeGreaterThan(8);
    // Each block is followed by a marker line, so a failure names the block that failed.
    const script = ['set -euo pipefail', ...blocks.flatMap((b, i) => [b, `echo "@@block ${i} ok"`])].join('\n');
    // In a folder of its own: the examples write files (snapshot.sqlite) where they run.
    const result = spawnSync('bash', ['-c', script], {
      cwd: tempDir(),
      env: { ...process.env, SVC_BASE_URL: ready.baseUrl, SVC_PARTNER_KEY: ready.test.partnerKey, SVC_MERCHANT_KEY: ready.test.merchantKey },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const done = [...result.stdout.matchAll(/@@block (\d+) ok/g)].length;
    expect(done, `block ${done} failed:\n${blocks[done]}\nstdout (end):\n${result.stdout.slice(-1500)}\nstderr:\n${result.stderr}`).toBe(blocks.length);
    expect(result.status).toBe(0);
  });

  it('covers every endpoint the emulator serves', async () => {
    const doc = (await (await fetch(`${ready.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const text = examples().join('\n');
    const missing: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        // /v1/partner/merchants/{merchantId} appears as /v1/partner/merchants/$MERCHANT_ID, and so on.
        const pattern = new RegExp(`${p.replace(/\{\w+\}/g, '\\$[A-Z_]+').replace(/\//g, '\\/')}(?:[?"\\s]|$)`);
        if (!commandUses(text, pattern, method)) missing.push(`${method.toUpperCase()} ${p}`);
      }
    }
    // reset is shown outside the executed block on purpose (it would wipe what the examples made);
    // the streams and the results endpoint are svc webhook listen/tail's protocol, not curl material.
    const notCurl = [
      'POST /__emulator/reset',
      'GET /__emulator/listener/stream',
      'POST /__emulator/listener/results',
      'GET /__emulator/deliveries/stream',
      'GET /__emulator/requests/stream',
      'GET /__emulator/changes',
      ...(CHAINS ? [] : CHAIN_OPERATIONS),
    ];
    expect(missing.filter((m) => !notCurl.includes(m))).toEqual([]);
  });
});

/** Whether one curl command (continuation lines joined) calls `pattern` with `method`. */
function commandUses(text: string, pattern: RegExp, method: string): boolean {
  const commands = text.replace(/\\\n\s*/g, ' ').split('\n');
  return commands.some((c) => pattern.test(c) && (method === 'get' ? !/-X (POST|PUT)/.test(c) : c.includes(`-X ${method.toUpperCase()}`)));
}
