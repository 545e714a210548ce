import type { Style } from '../output/style.js';
import type { ResponseBody } from '../../contract/index.js';
import { keyValue } from '../output/human.js';

export function chaosView(c: Style, chaos: ResponseBody<'WebhookChaos'>): string {
  if (!chaos.active) return c.dim(`no webhook chaos for this partner in ${chaos.environment}`);
  const pct = (p: number | undefined) => (p === undefined ? undefined : `${Math.round(p * 100)}% of attempts`);
  return keyValue(c, [
    ['environment', chaos.environment],
    ['duplicate', pct(chaos.duplicate)],
    ['reorder', chaos.reorder ? 'on' : undefined],
    ['delay', chaos.delayMs ? `${chaos.delayMs[0]}–${chaos.delayMs[1]} ms` : undefined],
    ['bad signature', pct(chaos.badSignature)],
    ['stale timestamp', pct(chaos.staleTimestamp)],
    ['seed', chaos.seed ?? 0],
  ]);
}
