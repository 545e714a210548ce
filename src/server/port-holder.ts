import http from 'node:http';
import { OPERATIONS } from '../contract/operations/index.js';

/** What another svc emulator says of itself on its health route (fields an older svc may lack). */
export interface PortHolder {
  pid?: number;
  baseUrl?: string;
  folder?: string;
}

/**
 * Whether what holds `port` on `host` is an svc emulator, and which one: its health answer, asked
 * within a second (CONTRACT §7). An answer in svc's shape is one; a refusal in the contract's error
 * shape (a control token it was not given) is one too, without details. Anything else (another
 * program, no answer) is null: the port is simply in use.
 */
export function svcEmulatorOn(host: string, port: number): Promise<PortHolder | null> {
  // A wildcard address is reached through loopback, which every emulator answers.
  const target = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return new Promise((resolve) => {
    const req = http.get({ host: target, port, path: OPERATIONS.getHealth.path, timeout: 1000, headers: { accept: 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 64 * 1024) body += chunk;
      });
      res.on('end', () => resolve(holderOf(body)));
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

function holderOf(body: string): PortHolder | null {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(doc)) return null;
  if (isRecord(doc.error) && doc.error.code === 'control_plane_forbidden') return {};
  if (typeof doc.version !== 'string' || !['ok', 'degraded'].includes(String(doc.status))) return null;
  const { pid, baseUrl, folder } = doc;
  return {
    ...(typeof pid === 'number' && Number.isSafeInteger(pid) ? { pid } : {}),
    ...(typeof baseUrl === 'string' ? { baseUrl } : {}),
    ...(typeof folder === 'string' ? { folder } : {}),
  };
}

/** A parsed JSON object (not an array), whose fields are read as unknown. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
