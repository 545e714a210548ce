import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { ikey, request } from '../helpers/emulator.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * CONTRACT §8 "Terminal output": a client's field name carrying an escape sequence reaches the
 * operator's terminal as visible text, never as a command to the terminal.
 */
const each = perTest();

describe("svc dev's human output", () => {
  it('escapes an unknown field named with an ANSI escape in the warning line', async () => {
    const p = each.track(spawnCli(['dev', '--port', '0', '--memory'], { cwd: tempDir() }));
    const baseUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(await p.waitForLine((l) => l.includes('Base URL')))![0];
    await p.waitForLine((l) => l.includes('Ctrl-C'));
    const merchantKey = /Test merchant key\s+(test_[0-9A-Za-z]{32})/.exec(p.lines.join('\n'))![1]!;

    const res = await request(baseUrl, 'POST', '/v1/invoices', {
      key: merchantKey,
      raw: '{"amount":"1.00","\\u001b[2Jx":1,"\\u202eevil":2}',
      headers: { 'content-type': 'application/json' },
      idempotencyKey: ikey(),
    });
    expect(res.status).toBe(201);
    const warning = await p.waitForLine((l) => l.includes('warning'));
    expect(warning).toContain('unknown fields ignored: \\x1b[2Jx, \\u202eevil');
    expect(p.lines.join('\n')).not.toMatch(/[\u001b\u202e]/);
  });
});
