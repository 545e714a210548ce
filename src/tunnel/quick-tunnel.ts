/**
 * A cloudflared quick tunnel (trycloudflare.com) as a child process: spawn it, read its log for the
 * public URL and the edge connections, and make sure it never outlives us. We spawn the binary
 * ourselves rather than use the `cloudflared` package's `Tunnel` class: that one reads the binary
 * path once at import time, stops with SIGINT only, and has no start timeout.
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { UserError } from '../errors.js';
import type { TunnelEvent } from './events.js';

/** A started tunnel: `url` is known; it keeps running until `stop()` or until cloudflared dies. */
export interface QuickTunnel {
  /** The public URL that reaches `localUrl`. */
  url: string;
  /** The cloudflared process id (for diagnostics). */
  pid: number | undefined;
  /** SIGTERM, then SIGKILL after 3 s; resolves once the process is gone. Idempotent. */
  stop(): Promise<void>;
  /** Settles when the process is gone, however that happened. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartQuickTunnelOptions {
  /** The local URL the tunnel forwards to, e.g. the relay's `http://127.0.0.1:PORT`. */
  localUrl: string;
  /** The cloudflared executable (see `locateCloudflared`). */
  bin: string;
  /** Extra cloudflared flags, after the defaults, e.g. `['--protocol', 'http2']`. */
  args?: string[];
  /** How long to wait for the URL before killing cloudflared and failing (default 30 s). */
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL (default 3 s). */
  stopTimeoutMs?: number;
  /** Receives every state event; `error` only after start (a failed start rejects instead). */
  onEvent?: (event: TunnelEvent) => void;
  /** The child's environment (default: ours). */
  env?: NodeJS.ProcessEnv;
}

/** cloudflared could not open the tunnel; `logTail` holds its last log lines, also shown in the hint. */
export class TunnelStartError extends UserError {
  constructor(
    message: string,
    readonly logTail: string[],
    override readonly cause?: unknown,
  ) {
    const tail = logTail.length ? `cloudflared's last log lines:\n${logTail.map((l) => `  ${l.slice(0, 300)}`).join('\n')}\n` : '';
    super(message, 'tunnel_failed', `${tail}Check that this machine can reach trycloudflare.com, or use --tunnel none if the service can reach it directly.`);
  }
}

/** What one log line tells us. */
export type LogFinding = { type: 'url'; url: string } | { type: 'connected'; connIndex: number; location?: string };

// Real quick tunnels print `https://<words>.trycloudflare.com` in the banner box. `api.trycloudflare.com`
// is excluded: it appears in failures ("failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel"...").
const TRYCLOUDFLARE_URL = /https:\/\/(?!api\.)[a-z0-9-]+\.trycloudflare\.com\b/;
// The box's title line; the URL is on the next line. Older releases said "Your free tunnel has started!".
const BANNER = /Your quick Tunnel has been created!|Your free tunnel has started!/;
const ANY_URL = /https?:\/\/[^\s|"'<>]+/;
// Current releases: "Registered tunnel connection connIndex=0 connection=<uuid> ... location=txl01 ...";
// 2022-2023 releases: "Connection <uuid> registered with protocol: quic connIndex=0 ... location=CDG".
// Case matters: "Unregistered tunnel connection" is the opposite.
const REGISTERED = /\bRegistered tunnel connection\b|\bConnection [0-9a-f-]{36} registered\b/;
const CONN_INDEX = /\bconnIndex=(\d+)/;
const LOCATION = /\blocation=([A-Za-z0-9_-]+)/;
// Colour codes, should a build colour its log even when it is not a terminal.
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * A stateful parser of cloudflared's log, one line at a time (it needs to know the previous line).
 * Besides a trycloudflare URL anywhere, any http(s) URL on the line right after the banner title is
 * taken: a tunnel provider that hands back another URL there (the tests' fake cloudflared echoes the
 * relay's own local URL, so the remote flow runs end to end without the Cloudflare edge).
 */
export function createLogParser(): (line: string) => LogFinding | undefined {
  let previousWasBanner = false;
  return (raw) => {
    const line = raw.replace(ANSI, '');
    const afterBanner = previousWasBanner;
    previousWasBanner = BANNER.test(line);
    const url = line.match(TRYCLOUDFLARE_URL)?.[0] ?? (afterBanner ? line.match(ANY_URL)?.[0] : undefined);
    if (url) return { type: 'url', url };
    if (!REGISTERED.test(line)) return undefined;
    const connIndex = Number(line.match(CONN_INDEX)?.[1] ?? 0);
    const location = line.match(LOCATION)?.[1];
    return location ? { type: 'connected', connIndex, location } : { type: 'connected', connIndex };
  };
}

const TAIL_LINES = 8;

/**
 * Spawns `<bin> tunnel --no-autoupdate --url <localUrl>` and resolves once the public URL is known
 * (not waiting for the edge connection, which is reported as a `connected` event when it comes).
 * Emits `starting`, `url`, `connected`, `exited`, and `error` for an unexpected exit after start.
 * @throws TunnelStartError when cloudflared cannot start, exits before the URL, or prints none in time
 */
export function startQuickTunnel(options: StartQuickTunnelOptions): Promise<QuickTunnel> {
  const { localUrl, bin, readyTimeoutMs = 30_000, stopTimeoutMs = 3_000, env = process.env } = options;
  const emit = (event: TunnelEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A renderer's bug must not take the tunnel down.
    }
  };
  const args = ['tunnel', '--no-autoupdate', ...(options.args ?? []), '--url', localUrl];
  emit({ type: 'starting', bin, args });

  // Own process group (not on Windows, where it would open a console): a Ctrl-C in the terminal reaches
  // only us, so the CLI decides when the tunnel goes (after restoring the webhook config), and an
  // orderly shutdown is not mistaken for a crash.
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env, detached: process.platform !== 'win32' });
  const alive = () => child.pid !== undefined && child.exitCode === null && child.signalCode === null;

  // Exiting without stop() (an uncaught error, process.exit) must not orphan cloudflared. Only
  // synchronous work is possible in 'exit', so no grace period: SIGKILL.
  const onParentExit = () => {
    if (alive()) child.kill('SIGKILL');
  };
  process.on('exit', onParentExit);

  let resolveExited!: (value: { code: number | null; signal: NodeJS.Signals | null }) => void;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => (resolveExited = r));
  let stopping: Promise<void> | undefined;
  const terminate = (): Promise<void> =>
    (stopping ??= (async () => {
      if (!alive()) return void (await exited);
      child.kill('SIGTERM');
      // cloudflared waits up to its grace period (30 s) for open requests; we do not.
      const escalate = setTimeout(() => alive() && child.kill('SIGKILL'), stopTimeoutMs);
      await exited;
      clearTimeout(escalate);
    })());

  return new Promise<QuickTunnel>((resolve, reject) => {
    let url: string | undefined;
    let failure: TunnelStartError | undefined;
    let stopRequested = false;
    let settled = false;
    const tail: string[] = [];

    const readyTimer = setTimeout(() => {
      failure = new TunnelStartError(`cloudflared printed no tunnel URL within ${Math.round(readyTimeoutMs / 100) / 10} s.`, [...tail]);
      void terminate();
    }, readyTimeoutMs);

    const parse = createLogParser();
    const onLine = (line: string) => {
      if (!line.trim()) return;
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      const found = parse(line);
      if (found?.type === 'connected') emit(found);
      if (found?.type !== 'url' || url !== undefined || settled) return;
      url = found.url;
      settled = true;
      clearTimeout(readyTimer);
      emit({ type: 'url', url });
      const stop = () => {
        stopRequested = true;
        return terminate();
      };
      resolve({ url, pid: child.pid, stop, exited });
    };
    // cloudflared logs to stderr; stdout is read too, in case a build or wrapper prints there.
    for (const stream of [child.stdout, child.stderr]) readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);

    let closed = false;
    const onGone = (code: number | null, signal: NodeJS.Signals | null) => {
      if (closed) return;
      closed = true;
      clearTimeout(readyTimer);
      process.off('exit', onParentExit);
      emit({ type: 'exited', code, signal });
      const how = signal ? `on ${signal}` : `with code ${code}`;
      if (!settled) {
        settled = true;
        reject(failure ?? new TunnelStartError(`cloudflared exited ${how} before printing a tunnel URL.`, [...tail]));
      } else if (!stopRequested) {
        emit({ type: 'error', message: `cloudflared exited ${how}; the tunnel ${url} is gone.`, cause: { code, signal, logTail: [...tail] } });
      }
      resolveExited({ code, signal });
    };
    // 'close' comes after the output is fully read, so the tail is complete.
    child.once('close', onGone);
    child.on('error', (err) => {
      if (!settled && child.pid === undefined) failure = new TunnelStartError(`cloudflared could not be started (${bin}): ${err.message}.`, [], err);
      else if (settled) emit({ type: 'error', message: `cloudflared: ${err.message}`, cause: err });
      // A spawn failure is followed by 'close'; this covers the odd case where it is not.
      if (child.pid === undefined) setImmediate(() => onGone(null, null));
    });
  });
}
