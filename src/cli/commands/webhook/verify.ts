import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { UsageError, UserError } from '../../../errors.js';
import { verifyWebhook, WebhookVerificationError } from '../../../webhooks/signature.js';
import { keyValue } from '../../output/human.js';
import { required } from '../../prompt.js';
import type { Handler } from '../../spec.js';
import type { verifyWebhookSpec } from './index.js';
import { errorMessage } from '../../../domain/caught.js';

/**
 * `svc webhook verify`: checks a delivery offline with the exported `verifyWebhook`, exactly as a
 * receiver would; no service is involved. The body is read as bytes (from --payload-file, else
 * stdin), never re-encoded. Valid: exit 0 and `{"valid": true, "event": <envelope>}`. Invalid: exit 1
 * and the contract-shaped error whose code is the WebhookVerificationError's (`signature_mismatch`,
 * `timestamp_too_old`, …).
 */
export const verifyWebhookCommand: Handler<typeof verifyWebhookSpec> = async ({ options }, ctx) => {
  const secret = await required(ctx, options.secret, {
    flag: '--secret',
    message: 'Webhook secret:',
    what: 'the webhook secret',
    secret: true,
  });
  const signature = await required(ctx, options.signature, {
    flag: '--signature',
    message: 'X-Service-Signature header (t=…,v1=…):',
    what: 'the X-Service-Signature header, t=…,v1=…',
  });
  const file = options.payloadFile;
  let body: Buffer;
  if (file !== undefined) {
    try {
      body = await fs.readFile(path.resolve(ctx.cwd, file));
    } catch (error) {
      throw new UserError(`cannot read --payload-file ${file}: ${errorMessage(error)}`, 'read_failed');
    }
  } else {
    // Reading a terminal would wait for Ctrl-D with no prompt: ask for the flag instead.
    if (ctx.stdinIsTTY) throw new UsageError('missing --payload-file (or pipe the raw body on stdin)', '--payload-file');
    body = await readAll(ctx.stdin);
  }

  try {
    const event = verifyWebhook(body, signature, secret, options.tolerance !== undefined ? { toleranceSeconds: options.tolerance } : {});
    return {
      data: { valid: true, event },
      human: (c) =>
        `${c.green('signature valid')}\n${keyValue(c, [
          ['event', event.id],
          ['type', event.type],
          ['created', event.createdAt],
          ['invoice', event.data?.invoiceId],
          ['status', event.data?.status],
        ])}`,
    };
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new UserError(`${error.code}: ${error.message}`, error.code);
    throw error;
  }
};

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  // A byte stream yields Buffers, or strings once an encoding is set on it.
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}
