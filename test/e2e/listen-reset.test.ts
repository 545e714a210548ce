/**
 * `svc reset --yes` does not detach a running `svc webhook listen` (issue 38): the listener was
 * dropped with the data, its secret rotated, and listen went on showing "Ready" while forwarding
 * nothing, so an app started with `WEBHOOK_SECRET=$(svc webhook listen --print-secret)` rejected
 * every event after. Now the registration and its secret survive the reset: the next event reaches
 * the app, verifiable with the secret printed before it.
 */
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { perTest } from '../helpers/per-test.js';
import { tempDir } from '../helpers/temp-dir.js';

const each = perTest();
const env = { SVC_PROFILE: '' };

describe('svc reset and a running svc webhook listen', () => {
  it('keeps forwarding after svc reset --yes, signed with the secret --print-secret gave before it', async () => {
    const cwd = tempDir('svc-listen-reset-');
    const dev = each.track(spawnCli(['dev', '--port', '0', '--json', '--memory'], { cwd, env }));
    await dev.waitForLine((l) => l.includes('"type":"ready"'));
    const app = await each.receiver({ status: 200 });

    // The app's secret, as `WEBHOOK_SECRET=$(svc webhook listen --print-secret)` takes it.
    const printed = await runCli(['webhook', 'listen', '--print-secret'], { cwd, env });
    expect(printed.code, printed.stderr).toBe(0);
    const secret = printed.stdout.trim();
    const listen = each.track(spawnCli(['webhook', 'listen', '--forward-to', `${app.url}/hooks`, '--events', 'invoice.paid'], { cwd, env }));
    expect(await listen.waitForLine((l) => l.startsWith('Ready!'))).toContain(secret);

    const reset = await runCli(['reset', '--yes'], { cwd, env });
    expect(reset.code, reset.stderr).toBe(0);
    const stillPrinted = await runCli(['webhook', 'listen', '--print-secret'], { cwd, env });
    expect(stillPrinted.stdout.trim()).toBe(secret);

    const trigger = await runCli(['trigger', 'invoice.paid', '--json'], { cwd, env });
    expect(trigger.code, trigger.stderr).toBe(0);
    const [delivered] = await app.waitFor(1, 15_000);
    const event = verifyWebhook(delivered!.rawBody, delivered!.headers['x-service-signature'] as string, secret);
    expect(event.type).toBe('invoice.paid');
    expect(await listen.waitForLine((l) => l.startsWith('<-- [200] invoice.paid'))).toContain('/hooks');
    expect(listen.stderr()).not.toMatch(/secret changed/);
  });
});
