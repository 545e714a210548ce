import type { Environment } from '../../domain/environment.js';
import type { Runner } from '../engine.js';
import { param, prepared } from '../query.js';
import type { WebhookConfigsTable } from '../schema.js';

export type WebhookConfigRow = WebhookConfigsTable;

const byPartner = prepared((qb) =>
  qb.selectFrom('webhook_configs').selectAll().where('partner_id', '=', param('partner_id')).where('environment', '=', param('environment')),
);
// One per partner and environment (the unique constraint webhook_configs_partner_env): two concurrent
// first PUTs through two replicas leave one row, the later one's values.
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

export async function findWebhookConfig(db: Runner, partnerId: string, environment: Environment): Promise<WebhookConfigRow | undefined> {
  return db.get(byPartner, { partner_id: partnerId, environment });
}

export async function saveWebhookConfig(db: Runner, row: WebhookConfigRow): Promise<void> {
  await db.run(upsert, { ...row });
}
