import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, spawnCli, type LiveCli } from '../helpers/cli.js';
import { bash, docBlocks as blocks, installSvc } from '../helpers/doc-blocks.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The recipes for shell scripts (docs/cli.md) and CI (docs/testing.md) are copy-pasteable: run them
 * as written, in bash, with `svc` on the PATH as an installed package puts it there.
 */
describe('docs/cli.md: recipes for shell scripts', () => {
  let dev: LiveCli;
  let cwd: string;
  beforeAll(async () => {
    cwd = tempDir('svc-recipes-');
    dev = spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd });
    await dev.waitForLine((l) => l.includes('"type":"ready"'));
  });
  afterAll(() => dev.stop());

  it('run as written against svc dev, found through .svc/dev.json', () => {
    const scripts = blocks('docs/cli.md', 'cli-recipes');
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    installSvc(path.join(cwd, 'bin'));
    const result = bash(scripts.join('\n'), cwd, { PATH: `${path.join(cwd, 'bin')}:${process.env.PATH}` });
    // With --json the error document is on stdout, and the human message on stderr.
    expect(result.stderr).toMatch(/^error 404 invoice_not_found: [^\n]*\n$/);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^[0-9a-f-]{36} is PAID$/m);
    expect(result.stdout).toContain('refused: invoice_not_found');
  });
});

describe('docs/testing.md: recipe for CI', () => {
  it('starts an emulator, seeds it, runs the tests against it, and stops it', async () => {
    const cwd = tempDir('svc-ci-recipe-');
    const bin = path.join(cwd, 'node_modules', '.bin');
    installSvc(bin);
    fs.copyFileSync(path.join(ROOT, 'templates', 'svc.fixtures.yaml'), path.join(cwd, 'svc.fixtures.yaml'));
    // The project's "npm test": checks what the recipe promises its tests (the recipe puts
    // node_modules/.bin first on the PATH, so this stands in for npm there).
    fs.writeFileSync(
      path.join(bin, 'npm'),
      `#!${process.execPath}
const fs = require('node:fs');
if (process.argv[2] !== 'test') process.exit(64);
const seeded = JSON.parse(fs.readFileSync('fixtures.json', 'utf8'));
fs.writeFileSync('dev-pid', String(JSON.parse(fs.readFileSync('.svc/dev.json', 'utf8')).pid));
fetch(process.env.SVC_BASE_URL + '/v1/partner/invoices/' + seeded['small-invoice'].id, { headers: { authorization: 'Bearer ' + process.env.SVC_PARTNER_KEY } })
  .then((res) => res.json())
  .then((invoice) => {
    if (invoice.status !== 'PAID' || !process.env.SVC_MERCHANT_KEY.startsWith('test_')) throw new Error(JSON.stringify(invoice));
    console.log('fake tests passed');
  });
`,
      { mode: 0o755 },
    );
    const [script] = blocks('docs/testing.md', 'cli-ci-recipe');
    const result = bash(script!, cwd);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('fake tests passed');
    // The trap stopped the emulator (SIGTERM: a clean stop, which removes .svc/dev.json).
    const pid = Number(fs.readFileSync(path.join(cwd, 'dev-pid'), 'utf8'));
    const gone = async () => {
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return true;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    };
    expect(await gone()).toBe(true);
    expect(fs.existsSync(path.join(cwd, '.svc', 'dev.json'))).toBe(false);
  });
});
