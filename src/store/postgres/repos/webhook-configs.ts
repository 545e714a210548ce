import type { Environment } from '../../../domain/environment.js';
import type { WebhookConfigRow } from '../../repos/webhook-configs.js';
import type { PgHandle } from './handle.js';

// PostgreSQL's webhook configurations: the same functions as ../../repos/webhook-configs.ts. One per
// partner and environment, by the unique constraint webhook_configs_partner_env: two concurrent
// first PUTs leave one row (the later one's values), as SQLite's serialised upserts do.

export async function findWebhookConfig(db: PgHandle, partnerId: string, environment: Environment): Promise<WebhookConfigRow | undefined> {
  return db.selectFrom('webhook_configs').selectAll().where('partner_id', '=', partnerId).where('environment', '=', environment).executeTakeFirst();
}

export async function saveWebhookConfig(db: PgHandle, row: WebhookConfigRow): Promise<void> {
  await db
    .insertInto('webhook_configs')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['partner_id', 'environment']).doUpdateSet({
        url: row.url,
        secret: row.secret,
        custom_headers: row.custom_headers,
        enabled: row.enabled,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}
