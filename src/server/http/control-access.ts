import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../api-error.js';
import { isLoopback } from './loopback.js';

/**
 * Who may use the control plane (/__emulator/…; CONTRACT §7, §12 "Remote control plane"):
 * - loopback clients always (the developer at the machine, a container's own health check);
 * - with a control token, any client that sends it: `Authorization: Bearer <token>`, or
 *   `Svc-Control-Token: <token>` on the control routes that take an API key in Authorization
 *   (webhook chaos, the listener stream);
 * - without a token, any client only when the control plane is exposed (`--expose-control-plane`,
 *   the container image's default, whose banner says to publish the port on 127.0.0.1).
 * A configured token wins over exposure: exposed with a token means "to token holders".
 * `shell`: the dashboard's page, served to anyone when there is a token (it asks its user for it).
 */
export function checkControlAccess(
  headers: IncomingHttpHeaders,
  remoteAddress: string | undefined,
  config: { controlToken: string | null; exposeControlPlane: boolean },
  shell = false,
): void {
  if (isLoopback(remoteAddress)) return;
  if (shell && config.controlToken !== null) return;
  if (config.controlToken === null) {
    if (config.exposeControlPlane) return;
    throw new ApiError(
      403,
      'control_plane_forbidden',
      'The /__emulator control plane only answers loopback clients; start svc dev with --control-token (or --expose-control-plane) to change that.',
    );
  }
  const bearer = /^Bearer +(.+)$/i.exec(headers.authorization ?? '')?.[1]?.trim();
  const own = headers['svc-control-token'];
  const sent = [bearer, typeof own === 'string' ? own.trim() : undefined];
  if (sent.some((token) => token !== undefined && sameSecret(token, config.controlToken!))) return;
  throw new ApiError(
    403,
    'control_plane_forbidden',
    'The /__emulator control plane needs the control token from this address: send "Authorization: Bearer <token>" (the CLI sends SVC_CONTROL_TOKEN).',
  );
}

/** Constant-time: both sides are hashed first, so neither the length nor a prefix leaks by timing. */
function sameSecret(sent: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}
