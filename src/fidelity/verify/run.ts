import { ServiceUnreachableError } from '../../client/errors.js';
import { OPERATIONS } from '../../contract/operations/index.js';
import { parseKey } from '../../domain/keys.js';
import { UsageError } from '../../errors.js';
import { CHECKS, GROUPS } from './checks/index.js';
import { VerifyContext } from './context.js';
import type { CheckResult } from './result.js';
import { CheckFailed, CheckSkipped, type Check, groupOf } from './types.js';

export interface VerifyRunOptions {
  /** The deployment: an emulator's `url`, a shared sandbox, or the real service's test environment. */
  baseUrl: string;
  /** A test partner key (`pt_test_…`). Live keys are refused: the suite creates resources. */
  partnerKey: string;
  /** A test merchant key (`test_…`); without one the merchant-side checks are skipped. */
  merchantKey?: string | undefined;
  /** Only these groups (`idempotency`) or checks (`idempotency.replay-same-body`). */
  only?: readonly string[] | undefined;
  /** Reach the webhook receiver through a cloudflared quick tunnel (a deployment not on this machine). */
  tunnel?: boolean | undefined;
  /** For `CLOUDFLARED_BIN` and cloudflared's own environment (default: this process's). */
  env?: NodeJS.ProcessEnv | undefined;
  /** Per request, in ms (default 15 s). */
  timeoutMs?: number | undefined;
  /** How long a check waits for a webhook delivery, in ms (default 20 s). */
  deliveryTimeoutMs?: number | undefined;
  /** Each check's result as it is known (the CLI prints one line per check). */
  onResult?: ((result: CheckResult) => void) | undefined;
  /** Stops before the next check; what ran is reported. */
  signal?: AbortSignal | undefined;
}

export interface VerifyReport {
  checks: CheckResult[];
  passed: number;
  failed: number;
  skipped: number;
  /** What the run left changed on the deployment (the test webhook), for the user. */
  notes: string[];
}

/** A check that takes longer than this has failed (a wait that never ends is a finding too). */
const CHECK_TIMEOUT_MS = 120_000;

/**
 * Runs the contract's portable checks against a deployment (CONTRACT §13), one after another, and
 * reports each as passed, failed (expected vs got) or skipped (why). Everything it creates is marked
 * `svc-verify-`. The test webhook is pointed at a local receiver while deliveries are checked, then
 * put back (its secret cannot be: see `notes`).
 * @throws UsageError for a live or malformed key, or an unknown group
 * @throws ServiceUnreachableError when the deployment does not answer at all
 */
export async function verify(options: VerifyRunOptions): Promise<VerifyReport> {
  const partner = parseKey(options.partnerKey);
  if (partner?.kind !== 'partner') throw new UsageError('verify needs a test partner key (pt_test_ and 32 letters and digits)', '--partner-key');
  if (partner.environment === 'live')
    throw new UsageError('verify creates resources: it takes test keys only, and the partner key is a live key (pt_live_…)', '--partner-key');
  if (options.merchantKey !== undefined) {
    const merchant = parseKey(options.merchantKey);
    if (merchant?.kind !== 'merchant') throw new UsageError('the merchant key is not one (test_ and 32 letters and digits)', '--merchant-key');
    if (merchant.environment === 'live')
      throw new UsageError('verify creates resources: it takes test keys only, and the merchant key is a live key (live_…)', '--merchant-key');
  }
  if (!/^https?:\/\/[^/]/i.test(options.baseUrl) || !URL.canParse(options.baseUrl))
    throw new UsageError(`the base URL is not an http(s) URL: ${options.baseUrl}`, '--base-url');
  const checks = selectChecks(options.only);
  await reachable(options.baseUrl, options.partnerKey);

  const ctx = new VerifyContext({
    baseUrl: options.baseUrl,
    partnerKey: options.partnerKey,
    merchantKey: options.merchantKey,
    tunnel: options.tunnel === true,
    env: options.env ?? process.env,
    timeoutMs: options.timeoutMs ?? 15_000,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 20_000,
  });
  const results: CheckResult[] = [];
  let notes: string[] = [];
  try {
    for (const check of checks) {
      if (options.signal?.aborted) break;
      const result = await runOne(check, ctx);
      results.push(result);
      options.onResult?.(result);
    }
  } finally {
    notes = await ctx.close();
  }
  const count = (outcome: CheckResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
  return { checks: results, passed: count('passed'), failed: count('failed'), skipped: count('skipped'), notes };
}

/** The checks `only` names (groups or ids), in the suite's order; all without it. */
export function selectChecks(only: readonly string[] | undefined): Check[] {
  if (!only || only.length === 0) return CHECKS;
  const unknown = only.filter((name) => !GROUPS.includes(name) && !CHECKS.some((c) => c.id === name));
  if (unknown.length) throw new UsageError(`no check group or check ${unknown.map((u) => `"${u}"`).join(', ')}; groups: ${GROUPS.join(', ')}`, '--only');
  return CHECKS.filter((c) => only.includes(c.id) || only.includes(groupOf(c.id)));
}

async function runOne(check: Check, ctx: VerifyContext): Promise<CheckResult> {
  const base = { id: check.id, title: check.title, section: check.section };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailed(`an outcome within ${CHECK_TIMEOUT_MS / 1000} s`, 'the check was still waiting')), CHECK_TIMEOUT_MS);
  });
  try {
    const note = await Promise.race([check.run(ctx), timeout]);
    return { ...base, outcome: 'passed', detail: note ?? '' };
  } catch (error) {
    if (error instanceof CheckSkipped) return { ...base, outcome: 'skipped', detail: error.reason };
    if (error instanceof CheckFailed) return { ...base, outcome: 'failed', detail: error.message };
    return { ...base, outcome: 'failed', detail: `the check could not run: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/** One request first: a deployment that does not answer at all is no finding, it is exit 3. */
async function reachable(baseUrl: string, key: string): Promise<void> {
  try {
    await fetch(`${baseUrl.replace(/\/+$/, '')}${OPERATIONS.getWebhook.path}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(15_000),
    }).then((r) => r.arrayBuffer());
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new ServiceUnreachableError(baseUrl, cause);
  }
}
