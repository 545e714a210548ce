import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../api-error.js';
import { isLoopback } from './loopback.js';

/**
 * Who may use the control plane (/__emulator/…; CONTRACT §7, §8 "A control token guards every
 * client", §12 "Remote control plane"):
 * - with a control token, exactly the clients that send it, loopback ones too:
 *   `Authorization: Bearer <token>`, or `Svc-Control-Token: <token>` on the control routes that take
 *   an API key in Authorization (webhook chaos, the listener stream). A same-host proxy (nginx beside
 *   the replica, a pod's sidecar: Istio's inbound proxy connects from 127.0.0.6) forwards other
 *   people's requests from loopback, so a loopback address proves nothing once a token is set;
 *   local `svc` commands find the token in `.svc/dev.json`;
 * - without a token, loopback clients (the developer at the machine, a container's own health check),
 *   and any client when the control plane is exposed (`--expose-control-plane`, the container
 *   image's default, whose banner says to publish the port on 127.0.0.1).
 * A configured token wins over exposure: exposed with a token means "to token holders".
 * `shell`: the dashboard's page, served to anyone when there is a token (it asks its user for it).
 */
export function checkControlAccess(
  headers: IncomingHttpHeaders,
  remoteAddress: string | undefined,
  config: { controlToken: string | null; exposeControlPlane: boolean },
  shell = false,
): void {
  const expected = config.controlToken;
  if (expected === null) {
    if (isLoopback(remoteAddress) || config.exposeControlPlane) return;
    throw new ApiError(
      403,
      'control_plane_forbidden',
      'The /__emulator control plane only answers loopback clients; start svc dev with --control-token (or --expose-control-plane) to change that.',
    );
  }
  if (shell) return;
  const bearer = /^Bearer +(.+)$/i.exec(headers.authorization ?? '')?.[1]?.trim();
  const own = headers['svc-control-token'];
  const sent = [bearer, typeof own === 'string' ? own.trim() : undefined];
  if (sent.some((token) => token !== undefined && sameSecret(token, expected))) return;
  throw new ApiError(
    403,
    'control_plane_forbidden',
    'The /__emulator control plane needs its control token from every client, loopback too: send "Authorization: Bearer <token>" (svc commands send the one in .svc/dev.json, or SVC_CONTROL_TOKEN).',
  );
}

/** Constant-time: both sides are hashed first, so neither the length nor a prefix leaks by timing. */
function sameSecret(sent: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}
