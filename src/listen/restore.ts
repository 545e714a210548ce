/**
 * Remote mode changes the partner's test webhook; this module makes sure it is put back. Before
 * anything changes, listen writes a restore file, `.svc/listen-restore-<hash>.json` (one per service
 * and key; the key itself is not stored, only a hash), holding the configuration to put back. A clean
 * exit restores and deletes it. A listen killed with SIGKILL (or a crash, or a power cut) leaves it
 * behind, and the next `svc webhook listen` against the same service and key restores from it first.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ThrowingClient } from '../client/throwing.js';
import { ApiRefusedError, ServiceUnreachableError } from '../client/errors.js';
import type { Emit, SavedWebhook } from './events.js';
import { isAlive } from '../pid.js';

export interface RestoreRecord {
  version: 1;
  baseUrl: string;
  /** sha256 of the partner key (first 16 hex digits): which account, without keeping the key. */
  keyHash: string;
  /** The listen process that wrote it; a live one means "in use", a dead one "left behind". */
  pid: number;
  createdAt: string;
  /** The URL listen pointed the webhook at (the tunnel's, or the relay's with --tunnel none). */
  listenUrl: string;
  /** What to put back; null: there was no webhook, so the one listen created is disabled. */
  previous: SavedWebhook | null;
}

const PREFIX = 'listen-restore-';

/** The project's `.svc/` folder: the nearest one from `cwd` up (where `svc dev` keeps its state), else `cwd/.svc`. */
export function stateDirFor(cwd: string): string {
  let dir = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(dir, '.svc');
    if (fs.existsSync(candidate) && fs.statSync(candidate).isDirectory()) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return path.join(path.resolve(cwd), '.svc');
    dir = parent;
  }
}

export function keyHash(partnerKey: string): string {
  return createHash('sha256').update(partnerKey).digest('hex').slice(0, 16);
}

/** The restore file of one service and key. */
export function restoreFile(stateDir: string, baseUrl: string, partnerKey: string): string {
  const id = createHash('sha256')
    .update(`${baseUrl.replace(/\/+$/, '')}\n${partnerKey}`)
    .digest('hex')
    .slice(0, 16);
  return path.join(stateDir, `${PREFIX}${id}.json`);
}

/** Written whole then renamed (a reader never sees half a file), readable by its owner only. */
export function writeRestoreRecord(file: string, record: RestoreRecord): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function readRestoreRecord(file: string): RestoreRecord | null {
  try {
    return restoreRecordOf(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
}

export function removeRestoreRecord(file: string): void {
  fs.rmSync(file, { force: true });
}

/** Restore files in `stateDir` other than `except` whose listen is gone (for a warning). */
export function otherLeftovers(stateDir: string, except: string): RestoreRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(stateDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(PREFIX) && n.endsWith('.json') && path.join(stateDir, n) !== except)
    .map((n) => readRestoreRecord(path.join(stateDir, n)))
    .filter((r): r is RestoreRecord => r !== null && !isAlive(r.pid));
}

/** The current webhook configuration, or null when there is none (404 webhook_not_configured). */
export async function readWebhook(client: ThrowingClient): Promise<SavedWebhook | null> {
  try {
    const { data } = await client.getWebhook();
    return { url: data.url, enabled: data.enabled, customHeaders: data.customHeaders ?? {} };
  } catch (error) {
    if (error instanceof ApiRefusedError && error.status === 404) return null;
    throw error;
  }
}

/**
 * Puts the webhook back as `record` says, but only if it still points at listen's URL: if someone
 * changed it meanwhile (`svc webhook set`), their change stands. With `quiet`, an untouched webhook
 * (listen failed before pointing it) is not reported. Transient failures are retried a few times;
 * a final failure throws, and the caller keeps the restore file for the next run.
 */
export async function restoreWebhook(
  client: ThrowingClient,
  record: RestoreRecord,
  reason: 'exit' | 'leftover',
  emit: Emit,
  { quiet = false }: { quiet?: boolean } = {},
): Promise<void> {
  let announced = false;
  const announce = () => {
    if (!announced) emit({ type: 'restoring', reason, to: record.previous });
    announced = true;
  };
  await withRetries(async () => {
    const current = await readWebhook(client);
    if (!current || current.url !== record.listenUrl) {
      if (quiet) return;
      announce();
      emit({ type: 'restored', reason, action: 'skipped', url: current?.url ?? '', enabled: current?.enabled ?? false });
      emit({
        type: 'warning',
        message: current
          ? `the webhook was changed while listen ran (it now points at ${current.url}); it was left as it is`
          : 'the webhook configuration is gone; nothing to restore',
      });
      return;
    }
    announce();
    if (record.previous) {
      const { url, enabled, customHeaders } = record.previous;
      await client.putWebhook({ body: { url, enabled, customHeaders } });
      emit({ type: 'restored', reason, action: 'restored', url, enabled });
    } else {
      // There is no DELETE for the configuration: disabled is the closest to "none".
      await client.putWebhook({ body: { url: record.listenUrl, enabled: false } });
      emit({ type: 'restored', reason, action: 'disabled', url: record.listenUrl, enabled: false });
    }
  });
}

async function withRetries(work: () => Promise<void>, tries = 3): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await work();
    } catch (error) {
      const transient = error instanceof ServiceUnreachableError || (error instanceof ApiRefusedError && error.status >= 500);
      if (!transient || i >= tries) throw error;
      await new Promise((r) => setTimeout(r, 500 * i));
    }
  }
}

/** A restore file as read back, checked field by field (hand-edited or from an older svc: then ignored, like a torn one). */
function restoreRecordOf(value: unknown): RestoreRecord | null {
  if (typeof value !== 'object' || value === null) return null;
  const field = (key: string): unknown => Reflect.get(value, key);
  const [version, baseUrl, keyHash, pid, createdAt, listenUrl] = ['version', 'baseUrl', 'keyHash', 'pid', 'createdAt', 'listenUrl'].map(field);
  if (version !== 1 || typeof pid !== 'number') return null;
  if (typeof baseUrl !== 'string' || typeof keyHash !== 'string' || typeof createdAt !== 'string' || typeof listenUrl !== 'string') return null;
  const previous = savedWebhookOf(field('previous'));
  if (previous === undefined) return null;
  return { version, baseUrl, keyHash, pid, createdAt, listenUrl, previous };
}

/** The saved configuration, null when there was none, undefined when the value is not one. */
function savedWebhookOf(value: unknown): SavedWebhook | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'object') return undefined;
  const url: unknown = Reflect.get(value, 'url');
  const enabled: unknown = Reflect.get(value, 'enabled');
  const headers: unknown = Reflect.get(value, 'customHeaders');
  if (typeof url !== 'string' || typeof enabled !== 'boolean' || typeof headers !== 'object' || headers === null) return undefined;
  const customHeaders: Record<string, string> = {};
  for (const [name, v] of Object.entries(headers)) {
    if (typeof v !== 'string') return undefined;
    customHeaders[name] = v;
  }
  return { url, enabled, customHeaders };
}
