import { checkWebhookUrl } from '../../domain/url-rules.js';
import type { WebhookConfigRow } from '../../store/repos/webhook-configs.js';
import { ApiError } from '../api-error.js';
import type { AppDeps, Principal } from '../route.js';
import type { RequestOf } from '../../contract/schemas/requests.js';

/**
 * Creates or updates the partner's webhook for the key's environment (interface §4.4, §6.2):
 * the secret is required the first time and kept when omitted later. The read of the existing
 * configuration and the write are one transaction.
 */
export async function putWebhook(deps: AppDeps, principal: Principal, body: RequestOf<'PutWebhookRequest'>): Promise<WebhookConfigRow> {
  const url = checkWebhookUrl(body.url, principal.environment);
  if (!url.ok) throw new ApiError(400, 'webhook_url_not_allowed', url.message, 'url');
  // Beyond loopback, no internal address in either environment (CONTRACT §8); before the transaction: it may resolve a name.
  const refused = await deps.webhookTargets.refusal(url.url);
  if (refused !== null) throw new ApiError(400, 'webhook_url_not_allowed', refused, 'url');
  if (body.secret !== undefined && (body.secret.length < 16 || body.secret.length > 255)) {
    throw new ApiError(400, 'webhook_secret_invalid', `secret must be 16 to 255 characters long; it is ${body.secret.length}.`, 'secret');
  }
  return deps.db.transaction(async (tx) => {
    const existing = await tx.webhookConfigs.findWebhookConfig(principal.partnerId, principal.environment);
    if (!existing && body.secret === undefined) {
      throw new ApiError(400, 'webhook_secret_required', 'secret is required when the webhook is first configured.', 'secret');
    }
    const now = deps.clock.now();
    const row: WebhookConfigRow = {
      id: existing?.id ?? deps.random.uuid(),
      partner_id: principal.partnerId,
      environment: principal.environment,
      url: body.url,
      secret: body.secret ?? existing!.secret,
      custom_headers: JSON.stringify(body.customHeaders ?? (existing ? JSON.parse(existing.custom_headers) : {})),
      enabled: (body.enabled ?? (existing ? existing.enabled === 1 : true)) ? 1 : 0,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await tx.webhookConfigs.saveWebhookConfig(row);
    return row;
  });
}
