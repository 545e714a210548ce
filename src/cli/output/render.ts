import { ApiRefusedError, ServiceUnreachableError } from '../../client/errors.js';
import { UsageError, UserError } from '../../errors.js';
import type { Context } from '../context.js';
import type { CommandOutput } from '../spec.js';
import { VERSION } from '../../version.js';
import { esc } from './escape.js';
import { plain } from './human.js';
import { styleFor } from './style.js';
import { stdStream } from './std.js';

/** Exit codes, documented in docs/cli.md ("Output and exit codes") and CONTRACT §11; 130 for a signal is main.ts's. */
export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3, internal: 4 } as const;

/** Prints a command's result: one JSON document with --json, a human rendering otherwise. */
export function renderOutput(out: CommandOutput, ctx: Context): number {
  if (out.streamed) return out.exitCode ?? EXIT.ok;
  for (const alert of out.alerts ?? []) ctx.stderr.write(`${esc(alert)}\n`);
  if (ctx.json) {
    if (out.data !== undefined) ctx.print(`${JSON.stringify(out.data, null, 2)}\n`);
  } else {
    const c = styleFor(ctx.color);
    const text = out.human ? out.human(c) : plain(c, out.data);
    if (text && !(ctx.quiet && !out.human && out.data === undefined)) ctx.print(`${text}\n`);
    if (!ctx.quiet) for (const note of out.notes ?? []) ctx.stderr.write(`${esc(note)}\n`);
  }
  return out.exitCode ?? EXIT.ok;
}

/**
 * Prints an error and returns the exit code. With --json, stdout still holds exactly one document:
 * the contract's `{"error":{…}}`; the human message goes to stderr, escaped (a service's message or
 * a file name may carry control characters, CONTRACT §8).
 */
export function renderError(
  error: unknown,
  ctx: Context | null,
  stderr?: NodeJS.WritableStream,
  stdout?: NodeJS.WritableStream,
  /** Before a context exists (a value refused while commander parses): whether --json was given. */
  jsonWithoutContext = false,
): number {
  const json = ctx?.json ?? jsonWithoutContext;
  const c = styleFor(ctx?.color ?? false);
  const err = ctx?.stderr ?? stderr ?? stdStream(2);
  const out = ctx?.stdout ?? stdout ?? stdStream(1);
  const emit = (code: number, body: { code: string; message: string; param?: string; problems?: unknown[] }, human: string) => {
    if (json) out.write(`${JSON.stringify({ error: body }, null, 2)}\n`);
    err.write(`${human}\n`);
    return code;
  };
  if (error instanceof ApiRefusedError) {
    const where = error.error.param ? ` (${esc(error.error.param)})` : '';
    const id = error.requestId && ctx?.verbose ? c.dim(` [${esc(error.requestId)}]`) : '';
    return emit(EXIT.refused, error.error, `${c.red('error')} ${error.status} ${esc(error.error.code)}${where}: ${esc(error.error.message)}${id}`);
  }
  if (error instanceof ServiceUnreachableError) {
    return emit(EXIT.unreachable, { code: 'service_unreachable', message: error.message }, `${c.red('error')} ${esc(error.message)}`);
  }
  if (error instanceof UsageError) {
    const body = error.flag ? { code: 'usage_error', message: error.message, param: error.flag } : { code: 'usage_error', message: error.message };
    return emit(EXIT.usage, body, `${c.red('error')} ${esc(error.message, { multiline: true })}\n${c.dim('(add --help for usage)')}`);
  }
  if (error instanceof UserError) {
    // A UserError may carry a list of `problems` (a fixtures file with several mistakes): --json has them all.
    const problems = 'problems' in error ? error.problems : undefined;
    return emit(
      EXIT.refused,
      { code: error.code, message: error.message, ...(Array.isArray(problems) && problems.length ? { problems } : {}) },
      `${c.red('error')} ${esc(error.message, { multiline: true })}${error.hint ? `\n${esc(error.hint, { multiline: true })}` : ''}`,
    );
  }
  // Anything else is a bug in svc (CONTRACT §11): one line and a request to report it; the stack,
  // with src/ paths (bin/svc.js turns source maps on for these), under --verbose or SVC_DEBUG=1.
  const message = error instanceof Error ? error.message : String(error);
  const debug = ctx?.verbose === true || isDebug();
  const stack = debug && error instanceof Error && error.stack ? `\n${esc(error.stack, { multiline: true })}` : '';
  return emit(
    EXIT.internal,
    { code: 'internal_error', message },
    `${c.red('internal error')} ${esc(message)}\nThis is a bug in svc ${VERSION}: please report it with the command you ran${debug ? ' and the stack below.' : ' and what `SVC_DEBUG=1` prints.'}${stack}`,
  );
}

/** `SVC_DEBUG=1` (or any value but empty and 0) asks for stacks of internal errors. */
export function isDebug(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SVC_DEBUG !== undefined && env.SVC_DEBUG !== '' && env.SVC_DEBUG !== '0';
}
