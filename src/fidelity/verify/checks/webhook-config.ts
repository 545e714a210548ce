import { at, isRecord, str } from '../../json.js';
import { expectEqual, expectError, expectShape, expectStatus, expectThat, summary } from '../expect.js';
import { CheckSkipped, defineChecks } from '../types.js';
import type { VerifyContext } from '../context.js';
import { signatureProblem } from '../../contract/signature-rules.js';

/** A URL no delivery is made to: every PUT here leaves the webhook disabled. */
const quietUrl = (ctx: VerifyContext) => `https://example.com/${ctx.marker()}`;

/** Interface §6.2, CONTRACT §2 and §5: the webhook configuration's rules. */
export const webhookChecks = defineChecks([
  {
    id: 'webhook.secret-required',
    section: '§2',
    title: 'the first PUT of the webhook without a secret is 400 webhook_secret_required',
    async run(ctx) {
      let key = ctx.partnerKey;
      const current = await ctx.call('getWebhook', { key });
      if (current.status !== 404) {
        // Configured already: the rule can only be seen on a partner without one, which svc's control plane makes.
        if (!(await ctx.hasControlPlane())) throw new CheckSkipped('the partner has a webhook already, and the rule holds for the first PUT only');
        const partner = await ctx.call('createPartner', { body: { name: ctx.marker() } });
        expectStatus(partner, 201, 'for a fresh partner from the control plane');
        key = str(partner.json, 'test', 'partnerKey') ?? '';
      }
      const a = await ctx.call('putWebhook', { key, body: { url: quietUrl(ctx), enabled: false } });
      expectError(ctx.contract, a, 400, 'webhook_secret_required');
      return undefined;
    },
  },
  {
    id: 'webhook.secret-length',
    section: '§2',
    title: 'a secret shorter than 16 or longer than 255 characters is 400 webhook_secret_invalid',
    async run(ctx) {
      for (const secret of ['svc-verify-0123', `svc-verify-${'s'.repeat(245)}`]) {
        const a = await ctx.call('putWebhook', { key: ctx.partnerKey, body: { url: quietUrl(ctx), secret, enabled: false } });
        expectError(ctx.contract, a, 400, 'webhook_secret_invalid');
      }
      return undefined;
    },
  },
  {
    id: 'webhook.url-scheme',
    section: '§5',
    title: 'a webhook URL that is not http or https is 400 webhook_url_not_allowed',
    async run(ctx) {
      const a = await ctx.call('putWebhook', { key: ctx.partnerKey, body: { url: 'ftp://example.com/svc-verify', secret: ctx.hook.secret, enabled: false } });
      expectError(ctx.contract, a, 400, 'webhook_url_not_allowed');
      return undefined;
    },
  },
  {
    id: 'webhook.put-get',
    section: '§2',
    title: 'PUT answers 200 with the configuration (secretConfigured, never the secret); GET answers the same',
    async run(ctx) {
      await ctx.hook.save();
      const url = quietUrl(ctx);
      const put = await ctx.call('putWebhook', { key: ctx.partnerKey, body: { url, secret: ctx.hook.secret, enabled: false } });
      ctx.hook.changed();
      expectStatus(put, 200);
      expectShape(ctx.contract, put);
      expectThat(isRecord(put.json) && !('secret' in put.json), 'no secret in the answer', 'a secret');
      expectEqual(
        [str(put.json, 'url'), at(put.json, 'enabled'), at(put.json, 'secretConfigured'), str(put.json, 'environment')],
        [url, false, true, 'test'],
        'url, enabled, secretConfigured, environment',
      );
      const get = await ctx.call('getWebhook', { key: ctx.partnerKey });
      expectStatus(get, 200);
      expectShape(ctx.contract, get);
      expectEqual(get.json, put.json, 'GET answers what PUT did:');
      return undefined;
    },
  },
  {
    id: 'webhook.test-urls',
    section: '§5',
    title: 'in test, http URLs, localhost and tunnel hosts are allowed',
    async run(ctx) {
      await ctx.hook.save();
      for (const url of [`http://localhost:9/${ctx.marker()}`, `https://svc-verify-${ctx.run}.trycloudflare.com/hooks`]) {
        const a = await ctx.call('putWebhook', { key: ctx.partnerKey, body: { url, secret: ctx.hook.secret, enabled: false } });
        ctx.hook.changed();
        expectThat(a.status === 200, `200 for ${url}`, summary(a));
      }
      return undefined;
    },
  },
  {
    id: 'webhook.custom-headers-rules',
    section: '§5',
    title: 'customHeaders naming a reserved header (User-Agent) is 400 validation_failed',
    async run(ctx) {
      await ctx.hook.save();
      const a = await ctx.call('putWebhook', {
        key: ctx.partnerKey,
        body: { url: quietUrl(ctx), secret: ctx.hook.secret, enabled: false, customHeaders: { 'User-Agent': 'svc-verify' } },
      });
      ctx.hook.changed();
      // customHeaders is svc's extension: a deployment that ignores the field has nothing to hold.
      if (a.status === 200 && !isRecord(at(a.json, 'customHeaders'))) throw new CheckSkipped('the deployment does not take customHeaders (an svc extension)');
      expectError(ctx.contract, a, 400, 'validation_failed');
      expectThat(str(a.json, 'error', 'param')?.startsWith('customHeaders') === true, 'param naming customHeaders', summary(a));
      return undefined;
    },
  },
]);

/** Needs the receiver: omitting the secret on an update keeps the stored one (interface §6.2). */
export const secretKeptCheck = defineChecks([
  {
    id: 'webhook.secret-kept',
    section: '§2',
    title: 'a PUT without secret keeps the stored one: deliveries are still signed with it',
    async run(ctx) {
      const setup = await ctx.receiver();
      const put = await ctx.call('putWebhook', {
        key: ctx.partnerKey,
        body: { url: setup.url, enabled: true, ...(setup.customHeaders ? { customHeaders: setup.customHeaders } : {}) },
      });
      expectStatus(put, 200, 'for a PUT without secret');
      expectEqual(at(put.json, 'secretConfigured'), true, 'secretConfigured');
      const invoice = await ctx.partnerInvoice();
      const [delivery] = await ctx.deliveriesOf(str(invoice.json, 'id') ?? '', 1);
      const problem = signatureProblem(delivery!.rawBody, delivery!.headers['x-service-signature'], setup.secret);
      expectThat(problem === null, 'a delivery signed with the secret set before', problem ?? '');
      return undefined;
    },
  },
]);
