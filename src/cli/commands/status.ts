import type { Style } from '../output/style.js';
import { ApiRefusedError, ServiceUnreachableError } from '../../client/errors.js';
import { keyHint, parseKey } from '../../domain/keys.js';
import { UserError } from '../../errors.js';
import type { Context } from '../context.js';
import { findLocalState } from '../local-emulator.js';
import { esc } from '../output/escape.js';
import { keyValue, styled } from '../output/human.js';
import { EXIT } from '../output/render.js';
import { call, cliClient } from '../service.js';
import type { Handler } from '../spec.js';
import type { statusSpec } from './top.js';
import { resolveTarget, type Source, type Target } from '../target.js';

interface KeyStatus {
  hint: string;
  environment: 'test' | 'live' | null;
  source: Source;
}

/** What `svc status --json` prints: the same document whether or not the service answers. */
export interface StatusData {
  baseUrl: string | null;
  baseUrlSource: Source | null;
  profile: string | null;
  partnerKey: KeyStatus | null;
  merchantKey: KeyStatus | null;
  /** The nearest `.svc/dev.json`, whether or not it is the target. */
  localEmulator: { stateFile: string; baseUrl: string; pid: number; running: boolean; inUse: boolean } | null;
  answers: boolean;
  /** What answered: the emulator (its health), or some other HTTP service (any status counts). */
  service: { kind: 'emulator'; version: string; now: string } | { kind: 'http'; status: number } | null;
  /** Why there is no answer: no target at all, or the network error. */
  problem: string | null;
}

/**
 * `svc status`: which service and keys the other commands would use, where each came from, and
 * whether the service answers (GET /__emulator/health; a remote that is not the emulator answers
 * that with some HTTP error, which still counts as answering).
 *
 * Choice: status always prints its report, in both modes (`--json`: the StatusData document, never
 * an `{"error":…}`), because a report is most useful exactly when something is wrong; the exit code
 * tells scripts the outcome: 0 it answers, 3 it does not (unreachable), 1 there is no target at all
 * (nothing configured and no `svc dev` running here: a user error, as for every other command).
 * Other errors (an unknown --profile, a malformed --api-key) fail as usual.
 */
export const statusCommand: Handler<typeof statusSpec> = async (_input, ctx) => {
  const found = findLocalState(ctx.cwd);
  let target: Target;
  try {
    target = await resolveTarget(ctx);
  } catch (error) {
    if (!(error instanceof UserError) || error.code !== 'no_target') throw error;
    const data: StatusData = {
      baseUrl: null,
      baseUrlSource: null,
      profile: null,
      partnerKey: null,
      merchantKey: null,
      localEmulator: found ? { stateFile: found.file, baseUrl: found.state.baseUrl, pid: found.state.pid, running: found.running, inUse: false } : null,
      answers: false,
      service: null,
      problem: `${error.message}. ${error.hint ?? ''}`.trim(),
    };
    return { data, human: (c) => view(c, data), exitCode: EXIT.refused };
  }

  const data: StatusData = {
    baseUrl: target.baseUrl,
    baseUrlSource: target.baseUrlSource,
    profile: target.profile,
    partnerKey: keyStatus(target.partnerKey, target.partnerKeySource),
    merchantKey: keyStatus(target.merchantKey, target.merchantKeySource),
    localEmulator: found
      ? { stateFile: found.file, baseUrl: found.state.baseUrl, pid: found.state.pid, running: found.running, inUse: target.local !== null }
      : null,
    ...(await probe(ctx, target)),
  };
  return { data, human: (c) => view(c, data), exitCode: data.answers ? EXIT.ok : EXIT.unreachable };
};

async function probe(ctx: Context, target: Target): Promise<Pick<StatusData, 'answers' | 'service' | 'problem'>> {
  const client = cliClient({ baseUrl: target.baseUrl, controlToken: target.controlToken });
  try {
    const res = await call(ctx, `Checking ${target.baseUrl}`, client.getHealth({ timeoutMs: 3000 }));
    const health = res.data;
    return { answers: true, service: { kind: 'emulator', version: health.version ?? 'unknown', now: health.now ?? '' }, problem: null };
  } catch (error) {
    if (error instanceof ApiRefusedError) return { answers: true, service: { kind: 'http', status: error.status }, problem: null };
    if (error instanceof ServiceUnreachableError) return { answers: false, service: null, problem: error.message };
    throw error;
  }
}

function keyStatus(key: string | undefined, source: Source | undefined): KeyStatus | null {
  if (!key || !source) return null;
  return { hint: keyHint(key), environment: parseKey(key)?.environment ?? null, source };
}

function view(c: Style, s: StatusData): string {
  // Values built here mix styles: their data parts are escaped one by one (the service's answer,
  // the state file and the config are not ours).
  const key = (k: KeyStatus | null) => styled(k ? `${esc(k.hint)}  ${c.dim(`(${esc(k.source)}${k.environment ? `, ${k.environment}` : ''})`)}` : c.dim('none'));
  const answers = s.answers
    ? c.green(
        s.service?.kind === 'emulator'
          ? `yes: svc emulator ${esc(s.service.version)}, clock ${esc(s.service.now)}`
          : `yes: HTTP ${s.service?.status} (not the emulator)`,
      )
    : c.red(`no: ${esc(s.problem)}`);
  const local = s.localEmulator
    ? `${esc(s.localEmulator.stateFile)}: ${esc(s.localEmulator.baseUrl)}, pid ${s.localEmulator.pid} ${s.localEmulator.running ? 'running' : c.red('not running (stale file)')}${s.localEmulator.inUse ? '' : c.dim(', not in use')}`
    : c.dim('none (`svc dev` records one in .svc/dev.json)');
  return keyValue(c, [
    ['service', styled(s.baseUrl ? `${esc(s.baseUrl)}  ${c.dim(`(${esc(s.baseUrlSource)})`)}` : c.red('none'))],
    ['answers', styled(answers)],
    ['profile', s.profile],
    ['partner key', key(s.partnerKey)],
    ['merchant key', key(s.merchantKey)],
    ['local emulator', styled(local)],
  ]);
}
