import { checkControlAccess } from '../http/control-access.js';
import type { Stage } from './compose.js';
import type { RoutedContext } from './context.js';

/** The control plane (`/__emulator/…`) answers loopback clients, or any client with the control token (CONTRACT §7, §12). */
export const controlAccess: Stage<RoutedContext> = (ctx, next) => {
  if (ctx.route.control) checkControlAccess(ctx.req.headers, ctx.req.socket.remoteAddress, ctx.deps.config, ctx.route.controlShell === true);
  return next();
};
