import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type LiveCli } from '../helpers/cli.js';
import { bash, docBlocks, installSvc } from '../helpers/doc-blocks.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The README's day-one commands and curl calls run as written against `svc dev`, with `svc` on the
 * PATH as `npm link` (or a project's node_modules/.bin) puts it there.
 */
describe('README: the commands and curl calls of "the six things"', () => {
  let dev: LiveCli;
  let cwd: string;
  let ready: { baseUrl: string; test: { merchantKey: string } };
  beforeAll(async () => {
    cwd = tempDir('svc-readme-');
    dev = spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd });
    ready = JSON.parse(await dev.waitForLine((l) => l.includes('"type":"ready"')));
    installSvc(path.join(cwd, 'bin'));
  });
  afterAll(() => dev.stop());

  it('the svc commands run against svc dev, found through .svc/dev.json', () => {
    const [script, ...more] = docBlocks('README.md', 'readme-commands');
    expect(more).toEqual([]);
    const result = bash(`set -euo pipefail\n${script}`, cwd, { PATH: `${path.join(cwd, 'bin')}:${process.env.PATH}` });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('→ invoice.paid');
    // The list printed with --json is the API's list: the triggered invoice is in it, PAID.
    const list = /^\{\n[\s\S]*?^\}$/m.exec(result.stdout);
    expect(list, result.stdout).not.toBeNull();
    expect(JSON.parse(list![0]).data).toContainEqual(expect.objectContaining({ status: 'PAID' }));
  });

  it('the curl calls succeed with the base URL and merchant key svc dev printed', () => {
    const [script, ...more] = docBlocks('README.md', 'readme-curl');
    expect(more).toEqual([]);
    const result = bash(`set -euo pipefail\n${script}`, cwd, { SVC_BASE_URL: ready.baseUrl, SVC_MERCHANT_KEY: ready.test.merchantKey });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('"referenceId":"order-1001"');
  });
});
