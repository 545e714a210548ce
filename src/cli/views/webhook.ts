import type { Style } from '../output/style.js';
import type { WebhookConfiguration } from '../../contract/index.js';
import { keyValue } from '../output/human.js';

export type WebhookConfigData = WebhookConfiguration;

export function webhookView(c: Style, w: WebhookConfigData): string {
  const headers = Object.entries(w.customHeaders);
  return keyValue(c, [
    ['url', w.url],
    w.enabled ? ['enabled', 'yes', c.green] : ['enabled', 'no (events are recorded, nothing is delivered)', c.yellow],
    ['environment', w.environment],
    w.secretConfigured ? ['secret', 'configured'] : ['secret', 'not configured', c.red],
    ['headers', headers.length ? headers.map(([k, v]) => `${k}: ${v}`).join(', ') : null],
    ['id', w.id],
    ['updated', w.updatedAt],
  ]);
}
