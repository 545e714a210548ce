import type { Environment } from '../../domain/environment.js';
import { param, prepared } from '../query.js';
import type { WebhookConfigsTable } from '../schema.js';
import type { Store } from '../sqlite/store.js';

export type WebhookConfigRow = WebhookConfigsTable;

const byPartner = prepared((qb) =>
  qb.selectFrom('webhook_configs').selectAll().where('partner_id', '=', param('partner_id')).where('environment', '=', param('environment')),
);
const upsert = prepared((qb) =>
  qb
    .insertInto('webhook_configs')
    .values({
      id: param('id'),
      partner_id: param('partner_id'),
      environment: param('environment'),
      url: param('url'),
      secret: param('secret'),
      custom_headers: param('custom_headers'),
      enabled: param('enabled'),
      created_at: param('created_at'),
      updated_at: param('updated_at'),
    })
    .onConflict((oc) =>
      oc.columns(['partner_id', 'environment']).doUpdateSet({
        url: param('url'),
        secret: param('secret'),
        custom_headers: param('custom_headers'),
        enabled: param('enabled'),
        updated_at: param('updated_at'),
      }),
    ),
);

export function findWebhookConfig(store: Store, partnerId: string, environment: Environment): WebhookConfigRow | undefined {
  return byPartner.get(store, { partner_id: partnerId, environment });
}

export function saveWebhookConfig(store: Store, row: WebhookConfigRow): void {
  upsert.run(store, { ...row });
}
