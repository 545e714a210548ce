import type { Style } from '../../output/style.js';
import type { ResponseBody } from '../../../contract/index.js';
import { UsageError, UserError } from '../../../errors.js';
import { table } from '../../output/human.js';
import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import type { listenersSpec } from './index.js';

type Listeners = ResponseBody<'ListenerList'>['data'];

/**
 * `svc webhook listeners`: GET /__emulator/listeners, and with `--remove <id>` or `--all`,
 * DELETE /__emulator/listener (the control plane's one way to unregister: a listener is per partner
 * and environment, so the key names it). `--json` prints `{"data": [...]}` as listed, or after a
 * removal `{"removed": [ids], "data": [...what remains]}`.
 */
export const listenersCommand: Handler<typeof listenersSpec> = async ({ options }, ctx) => {
  if (options.remove !== undefined && options.all) throw new UsageError('--remove and --all cannot be used together', '--remove');
  const { client, target } = await connect(ctx);
  const listed = (await controlPlane(ctx, target, 'Reading the listeners', client.listListeners())).data.data;
  if (options.remove === undefined && !options.all) return { data: { data: listed }, human: (c) => view(c, listed) };

  const doomed = options.all ? listed : listed.filter((l) => l.id === options.remove);
  if (!doomed.length && !options.all) {
    const known = listed.map((l) => l.id).join(', ');
    throw new UserError(
      `no listener ${options.remove} for this key (${known ? `registered: ${known}` : 'none is registered'})`,
      'listener_not_found',
      'A key sees the listener of its own environment: `svc webhook listeners` lists them.',
    );
  }
  if (doomed.length) await controlPlane(ctx, target, 'Removing the listener', client.unregisterListener());
  const removed = doomed.map((l) => l.id);
  const remaining = listed.filter((l) => !removed.includes(l.id));
  return {
    data: { removed, data: remaining },
    human: (c) => (removed.length ? `${c.green('removed')} ${removed.join(', ')}; its waiting deliveries end failed` : c.dim('(no listener to remove)')),
  };
};

function view(c: Style, listeners: Listeners): string {
  return table(
    c,
    [
      { header: 'id', value: (l) => l.id },
      { header: 'forward to', value: (l) => l.forwardTo },
      { header: 'events', value: (l) => (l.events ? l.events.join(',') : 'all') },
      { header: 'state', value: (l) => (l.connected ? 'connected' : `gone; removed at ${l.removeAt} unless it reconnects`) },
    ],
    listeners,
    'no listener registered',
  );
}
