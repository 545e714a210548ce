import { ApiRefusedError } from '../../../client/errors.js';
import { generateSecret } from '../../../domain/keys.js';
import { UsageError } from '../../../errors.js';
import type { Context } from '../../context.js';
import { required } from '../../prompt.js';
import { call, connect } from '../../service.js';
import type { Handler, Input } from '../../spec.js';
import type { setWebhookSpec } from './index.js';
import { webhookView, type WebhookConfigData } from '../../views/webhook.js';

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The options that change a saved configuration (which then needs no --url). */
const CHANGES = ['enable', 'disable', 'secret', 'header'] satisfies (keyof Input<typeof setWebhookSpec>['options'])[];

/**
 * `svc webhook set`: creates or updates the partner's webhook (PUT, partner key). Without --secret,
 * a first configuration gets a generated `whsec_…` secret, shown once on stderr (in every mode, even
 * --quiet, since it cannot be read back) and, with --json, in the printed JSON as `secret`; an existing configuration keeps its secret, so the
 * handler reads it first (404 webhook_not_configured means this is the first time). `--header`
 * replaces the custom headers; without it they are kept.
 *
 * Without --url, a change to the saved configuration (`--enable`, `--disable`, `--secret`,
 * `--header`) sends its current URL back: the PUT needs one, and `svc webhook set --disable` is what
 * people type to pause deliveries. With nothing saved there is nothing to change: a usage error
 * asking for --url. With no change and no --url, the URL is asked for (a usage error off a terminal).
 */
export const setWebhookCommand: Handler<typeof setWebhookSpec> = async ({ options }, ctx) => {
  if (options.enable && options.disable) throw new UsageError('--enable and --disable cannot be used together', '--enable');
  const customHeaders = options.header === undefined ? undefined : parseHeaders(options.header);
  const given = options.url;
  const changes = CHANGES.filter((o) => options[o] !== undefined);
  // Asked before connecting when it must be: a missing --url fails fast, with or without a service.
  const asked = given === undefined && changes.length === 0 ? await askUrl(ctx, undefined) : given === undefined ? undefined : await askUrl(ctx, given);
  const { client } = await connect(ctx);
  const current = await readCurrent(() => call(ctx, 'Reading the webhook', client.getWebhook()));
  let url = asked;
  if (url === undefined) {
    if (!current) {
      const flags = changes.map((o) => `--${o}`).join(', ');
      throw new UsageError(`${flags} changes the saved webhook, and there is none yet: pass --url to create it`, '--url');
    }
    url = current.url;
  }

  let secret = options.secret;
  let generated = false;
  if (secret === undefined && current?.secretConfigured !== true) {
    secret = generateSecret();
    generated = true;
  }
  const body = {
    url,
    ...(secret !== undefined ? { secret } : {}),
    ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
    ...(customHeaders ? { customHeaders } : {}),
  };
  const res = await call(ctx, 'Saving the webhook', client.putWebhook({ body }));
  return {
    // A generated secret cannot be read back later, so --json carries it too (a script reads stdout).
    data: generated ? { ...res.data, secret } : res.data,
    human: (c) => webhookView(c, res.data),
    alerts: generated ? [`Generated webhook secret (shown only now; pass it to your receiver): ${secret}`] : [],
  };
};

function askUrl(ctx: Context, value: string | undefined): Promise<string> {
  return required(ctx, value, {
    flag: '--url',
    message: 'Webhook URL:',
    what: 'the receiving endpoint, e.g. http://localhost:3000/hooks',
    validate: (v) => (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)) || 'an http(s) URL, e.g. http://localhost:3000/hooks',
  });
}

/** The saved configuration, or null when there is none (404 webhook_not_configured). */
async function readCurrent(read: () => Promise<{ data: WebhookConfigData }>): Promise<WebhookConfigData | null> {
  try {
    return (await read()).data;
  } catch (error) {
    if (error instanceof ApiRefusedError && error.status === 404 && error.error.code === 'webhook_not_configured') return null;
    throw error;
  }
}

/** `Name: value` lines to an object; anything else is a usage error naming --header. */
function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!HEADER_NAME.test(name)) {
      throw new UsageError(`--header must look like 'Name: value', not "${line}"`, '--header');
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}
