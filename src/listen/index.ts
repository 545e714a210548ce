/**
 * `svc webhook listen`'s core: choose the mode, run it, and turn every way it can end into an exit
 * code and, for failures, one `fatal` event (listen never dies silently). The CLI
 * (src/cli/commands/webhook/listen.ts) parses flags, installs the signal handlers and renders events.
 */
import type { ThrowingClient } from '../client/throwing.js';
import { ApiRefusedError, ServiceUnreachableError } from '../client/errors.js';
import { UsageError, UserError } from '../errors.js';
import type { Emit, ListenEvent, ListenMode } from './events.js';
import { ReconnectGaveUpError, runLocal, type LocalListenOptions } from './local.js';
import { runRemote, type RemoteListenOptions } from './remote.js';
import { errorMessage, errorString } from '../domain/caught.js';

export type { ListenEvent, ListenMode } from './events.js';
export type TunnelChoice = 'auto' | 'cloudflared' | 'none';

/**
 * `auto`: local mode when the target is an emulator whose control plane answers us
 * (`GET /__emulator/health` 200 with `status: ok`; the control plane only answers loopback callers,
 * unless `svc dev --expose-control-plane`), remote mode with a cloudflared tunnel otherwise.
 * `cloudflared` and `none` always mean remote mode (with a tunnel, or the relay's URL registered
 * directly), even against an emulator: that is how the remote flow is tested.
 * @throws ServiceUnreachableError when the target does not answer at all (no mode would work)
 */
export async function chooseMode(tunnel: TunnelChoice, client: ThrowingClient): Promise<{ mode: ListenMode; tunnel: 'cloudflared' | 'none' }> {
  if (tunnel !== 'auto') return { mode: 'remote', tunnel };
  try {
    const res = await client.getHealth({ timeoutMs: 3000 });
    if (res.data.status === 'ok') return { mode: 'local', tunnel: 'none' };
  } catch (error) {
    // A 404 (a real deployment has no control plane) or a 403 (an emulator that does not serve its
    // control plane to us) means remote mode; no answer at all is an error.
    if (!(error instanceof ApiRefusedError)) throw error;
  }
  return { mode: 'remote', tunnel: 'cloudflared' };
}

export type ListenRunOptions = ({ mode: 'local' } & LocalListenOptions) | ({ mode: 'remote' } & RemoteListenOptions);

/**
 * Runs listen until `signal` aborts (exit 0, after a `stopped` event) or it fails (a `fatal` event
 * and its exit code: 1 refused or user error, 2 usage, 3 the service unreachable or lost).
 */
export async function runListen(options: ListenRunOptions, ctx: { signal: AbortSignal; emit: Emit }): Promise<number> {
  try {
    if (options.mode === 'local') await runLocal(options, ctx);
    else await runRemote(options, ctx);
    ctx.emit({ type: 'stopped', signal: String(ctx.signal.reason ?? 'stop') });
    return 0;
  } catch (error) {
    const fatal = toFatal(error);
    ctx.emit(fatal);
    return fatal.exitCode;
  }
}

/** Any error as the `fatal` event that ends listen. */
export function toFatal(error: unknown): Extract<ListenEvent, { type: 'fatal' }> {
  if (error instanceof ReconnectGaveUpError)
    return { type: 'fatal', message: error.message, code: error.code, ...(error.hint ? { hint: error.hint } : {}), exitCode: 3 };
  if (error instanceof ServiceUnreachableError) return { type: 'fatal', message: error.message, code: 'service_unreachable', exitCode: 3 };
  if (error instanceof ApiRefusedError) {
    return { type: 'fatal', message: `the service refused: ${error.status} ${error.error.code}: ${error.error.message}`, code: error.error.code, exitCode: 1 };
  }
  if (error instanceof UsageError) return { type: 'fatal', message: error.message, code: error.code, exitCode: 2 };
  if (error instanceof UserError) return { type: 'fatal', message: error.message, code: error.code, ...(error.hint ? { hint: error.hint } : {}), exitCode: 1 };
  const stack = errorString(error, 'stack');
  return {
    type: 'fatal',
    message: `unexpected error: ${errorMessage(error)}`,
    code: 'internal_error',
    ...(stack ? { hint: stack } : {}),
    exitCode: 1,
  };
}

/**
 * `--print-secret`. Local: the listener secret (stable per partner and environment, the one listen
 * signs with). Remote: listen uses the webhook's configured secret, which the API never returns.
 */
export async function listenSecret(mode: ListenMode, client: ThrowingClient): Promise<string> {
  if (mode === 'local') return (await client.getListenerSecret()).data.secret;
  throw new UserError(
    "against a remote service, listen forwards deliveries signed with your webhook's configured secret, which cannot be read back",
    'secret_not_readable',
    'Use the secret you set with `svc webhook set --secret` (or that was printed when the webhook was created). If no webhook is configured, listen creates one and prints its secret when it starts.',
  );
}
