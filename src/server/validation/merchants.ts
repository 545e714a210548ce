import { z } from 'zod';
import { boundedString, listOf } from './common.js';

export const createMerchantBody = z.object({
  externalTenantId: boundedString('externalTenantId').meta({ description: "The partner's own identifier for the tenant." }),
  email: z.email({ error: (issue) => (issue.input === undefined ? 'email is required.' : 'email must be an e-mail address.') }).max(255),
  name: boundedString('name'),
});
export type CreateMerchantBody = z.output<typeof createMerchantBody>;

export const INTEGRATION_STATUSES = ['PENDING', 'ACTIVE'] as const;

export const merchantSchema = z
  .object({
    merchantId: z.guid(),
    organizationId: z.string(),
    partnerId: z.guid(),
    externalTenantId: z.string(),
    name: z.string(),
    email: z.string(),
    integrationStatus: z.enum(INTEGRATION_STATUSES).meta({ description: 'PENDING until onboarding completes at bindUrl, then ACTIVE.' }),
    dashboardAccess: z.boolean(),
    autoPayoutEnabled: z.boolean(),
    bindUrl: z.url(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Merchant' });

export const merchantList = listOf(merchantSchema, 'MerchantList');
