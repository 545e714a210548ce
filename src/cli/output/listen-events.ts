import type { Style } from './style.js';
import type { ListenEvent } from '../../listen/events.js';
import { esc } from './escape.js';

/** Where a human line goes: the stream on stdout; warnings and the fatal error on stderr. */
export interface HumanLine {
  stream: 'stdout' | 'stderr';
  text: string;
}

const ms = (n: number) => `${Math.round(n)} ms`;
/** `invoice.paid [<eventId>]`: type and id come from the delivery, so they are escaped. */
const named = (e: { eventType: string; eventId: string }) => `${esc(e.eventType)} [${esc(e.eventId)}]`;
const seconds = (n: number) => `${Math.round(n / 100) / 10} s`;

/**
 * `svc webhook listen` for people: `Ready! Forwarding to … · signing secret whsec_… (^C to quit)`,
 * `--> invoice.paid [<eventId>]`, `<-- [200] invoice.paid [<eventId>] POST http://localhost:3000/hooks (12 ms)`
 * (the response line names the event too: forwards run concurrently, and their answers interleave),
 * failures in red with their reason, and what happens to the connection and the webhook. Whatever
 * the service, the deliveries or the app sent is escaped (CONTRACT §8). Empty: nothing to show.
 */
export function humanListenLines(event: ListenEvent, c: Style): HumanLine[] {
  const out = (...text: string[]): HumanLine[] => text.map((t) => ({ stream: 'stdout', text: t }));
  const err = (...text: string[]): HumanLine[] => text.map((t) => ({ stream: 'stderr', text: t }));
  switch (event.type) {
    case 'ready': {
      const secret = event.secret !== null ? `signing secret ${esc(event.secret)}` : "signed with your webhook's configured secret";
      const lines: string[] = [];
      if (event.mode === 'remote') {
        lines.push(
          event.tunnelUrl
            ? `Tunnel ${esc(event.tunnelUrl)} → relay ${event.relayUrl}; the test webhook points at the tunnel until listen stops`
            : `Relay ${event.relayUrl}; the test webhook points at it until listen stops`,
        );
        if (event.secretSource === 'generated')
          lines.push(c.yellow('No webhook was configured: listen created one with the secret below, and disables it when it stops.'));
      }
      if (event.events) lines.push(c.dim(`Only ${esc(event.events.join(', '))}`));
      lines.push(`${c.green('Ready!')} Forwarding to ${esc(event.forwardTo)} · ${secret} ${c.dim('(^C to quit)')}`);
      return out(...lines);
    }
    case 'event':
      return out(`${c.cyan('-->')} ${named(event)}${event.attempt && event.attempt > 1 ? c.dim(` (attempt ${event.attempt})`) : ''}`);
    case 'forwarded':
      return out(`${c.green('<--')} [${event.status}] ${named(event)} ${esc(event.method)} ${esc(event.url)} (${ms(event.durationMs)})`);
    case 'forward_failed':
      return out(c.red(`<-- [${event.status ?? 'ERR'}] ${named(event)} ${esc(event.method)} ${esc(event.url)} (${ms(event.durationMs)}) ${esc(event.reason)}`));
    case 'violation':
      return err(c.yellow(`violation ${named(event)}: ${esc(event.message)}`));
    case 'filtered':
      return out(c.dim(`--- ${named(event)} not forwarded (not in --events)`));
    case 'reconnecting':
      return out(c.yellow(`Connection lost (${esc(event.reason)}); reconnecting in ${seconds(event.delayMs)} (attempt ${event.attempt})…`));
    case 'reconnected':
      return out(c.green(`Reconnected after ${seconds(event.downMs)}; deliveries missed meanwhile follow.`));
    case 'tunnel':
      if (event.state === 'starting') return out(c.dim(`Starting cloudflared (${event.bin})…`));
      if (event.state === 'connected') return out(c.dim(`Tunnel connected${event.location ? ` (${esc(event.location)})` : ''}`));
      return [];
    case 'restoring':
      return out(
        event.reason === 'leftover'
          ? c.yellow('A previous listen was stopped before it could restore the webhook; restoring it first…')
          : c.dim('Restoring the webhook configuration…'),
      );
    case 'restored':
      if (event.action === 'restored') return out(`Webhook restored: ${esc(event.url)} (${event.enabled ? 'enabled' : 'disabled'})`);
      if (event.action === 'disabled') return out(`Webhook disabled (listen created it; there is none to go back to): ${esc(event.url)}`);
      return [];
    case 'unregistered':
      return err(c.dim(`Unregistered the listener from ${esc(event.baseUrl)}: events are no longer delivered to it.`));
    case 'warning':
      return err(`${c.yellow('warning')} ${esc(event.message)}`);
    case 'fatal':
      return err(`${c.red('error')} ${esc(event.message)}`, ...(event.hint ? [esc(event.hint, { multiline: true })] : []));
    case 'stopped':
      return [];
    default:
      return [];
  }
}
