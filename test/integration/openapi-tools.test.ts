/**
 * The OpenAPI document as the tools integrators use read it (issue 12): Redocly's linter with its
 * `recommended` rules finds no problem at all, and openapi-typescript generates types that a strict
 * consumer (test/openapi-consumer/consumer.ts) uses without a cast. The document is the one built
 * from the contract, which `GET /openapi.json` and `svc openapi` serve (openapi-document.test.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/contract/openapi/build.js';
import { VERSION } from '../../src/version.js';
import { ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('svc-openapi-tools-');
const DOC = path.join(dir, 'openapi.json');
const bin = (file: string) => path.join(ROOT, 'node_modules', file);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], timeoutMs = 90_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    // Offline and quiet: no telemetry, no update check.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => {
  fs.writeFileSync(DOC, `${JSON.stringify(buildOpenApi(VERSION), null, 2)}\n`);
});

describe('Redocly', () => {
  it('lints the document with the recommended rules: no errors, no warnings', { timeout: 120_000 }, async () => {
    const r = await run([bin('@redocly/cli/bin/cli.js'), 'lint', DOC, '--extends', 'recommended', '--format', 'json', '--max-problems', '50']);
    const start = r.stdout.indexOf('{');
    expect(start, `no JSON from redocly:\n${r.stdout}\n${r.stderr}`).toBeGreaterThanOrEqual(0);
    const report = JSON.parse(r.stdout.slice(start)) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    const listed = report.problems.map((p) => `${p.ruleId}: ${p.message}`).join('\n');
    expect(report.totals, listed).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('openapi-typescript', () => {
  it('generates types that a strict consumer compiles against without casts', { timeout: 180_000 }, async () => {
    const generated = await run([bin('openapi-typescript/bin/cli.js'), DOC, '--output', path.join(dir, 'schema.d.ts')]);
    expect(generated.code, generated.stderr).toBe(0);
    const types = fs.readFileSync(path.join(dir, 'schema.d.ts'), 'utf8');
    // The generated types are strong: error codes are unions, and the webhooks have their events.
    expect(types).toMatch(/code: "invoice_not_found";/);
    expect(types).toMatch(/"invoice\.paid": \{/);

    const consumer = fs.readFileSync(path.join(ROOT, 'test/openapi-consumer/consumer.ts'), 'utf8');
    expect(consumer, 'the consumer uses the types as they are').not.toMatch(/\bas (unknown|any)\b|: any\b|@ts-/);
    fs.writeFileSync(path.join(dir, 'consumer.ts'), consumer);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023'],
          types: [],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noImplicitReturns: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = await run([bin('typescript/bin/tsc'), '-p', 'tsconfig.json']);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  });
});
