import { UsageError } from '../../errors.js';
import type { CheckResult } from '../../fidelity/verify/index.js';
import { esc } from '../output/escape.js';
import { type Style, styleFor } from '../output/style.js';
import type { Handler } from '../spec.js';
import { resolveTarget } from '../target.js';
import type { verifySpec } from './fidelity.js';

/**
 * `svc verify`: the contract's checks against the target (flags > environment > profile > the local
 * emulator), one line per check as it ends, then `N passed, N failed, N skipped`; with --json one
 * document `{checks, passed, failed, skipped}`. Exit 0 when none failed, 1 otherwise; Ctrl-C stops
 * after the check that runs (the webhook is put back first), exit 130.
 */
export const verifyCommand: Handler<typeof verifySpec> = async ({ options }, ctx) => {
  const target = await resolveTarget(ctx);
  const partnerKey = options.partnerKey ?? target.partnerKey;
  if (!partnerKey) {
    throw new UsageError(
      `svc verify needs a test partner key for ${target.baseUrl}: pass --partner-key pt_test_…, set SVC_PARTNER_KEY, choose a --profile, or run \`svc dev\` in this folder`,
      '--partner-key',
    );
  }
  const only = options.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const c = styleFor(ctx.color);
  const { verify } = await import('../../fidelity/verify/index.js');
  const report = await verify({
    baseUrl: target.baseUrl,
    partnerKey,
    merchantKey: options.merchantKey ?? target.merchantKey,
    only,
    tunnel: options.tunnel === true,
    env: ctx.env,
    signal: ctx.signal,
    onResult: ctx.json ? undefined : (r) => ctx.stdout.write(`${resultLines(r, c)}\n`),
  });
  for (const note of report.notes) ctx.stderr.write(`${esc(note)}\n`);
  const exitCode = ctx.signal.aborted ? 130 : report.failed > 0 ? 1 : 0;
  const { checks, passed, failed, skipped } = report;
  if (ctx.json) return { data: { checks, passed, failed, skipped }, exitCode };
  const counts = `${passed} passed, ${failed} failed, ${skipped} skipped`;
  ctx.stdout.write(`${failed ? c.red(counts) : c.green(counts)}\n`);
  return { streamed: true, exitCode };
};

/** `passed  auth.missing-key  §2  a request without a key is 401 unauthorized`, and for the others why. */
export function resultLines(r: CheckResult, c: Style): string {
  const mark = r.outcome === 'passed' ? c.green('passed ') : r.outcome === 'failed' ? c.red('failed ') : c.yellow('skipped');
  const line = `${mark} ${r.id}  ${c.dim(r.section)}  ${esc(r.title)}`;
  return r.outcome === 'passed' || !r.detail ? line : `${line}\n        ${esc(r.detail)}`;
}
