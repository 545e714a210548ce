import type { BodyInputOf, QueryInputOf } from '../contract/types.js';
import type { Answer, ThrowingClient } from '../client/throwing.js';
import type { SuccessOf } from '../contract/types.js';

/** Either variant's answer: a command reads the fields both have, or tells them apart by `merchantId`. */
type Either<
  A extends 'createInvoice' | 'getInvoice' | 'listInvoices',
  B extends 'createPartnerInvoice' | 'getPartnerInvoice' | 'listPartnerInvoices',
> = Promise<Answer<SuccessOf<A> | SuccessOf<B>>>;

/**
 * The invoice operations come in two variants (CONTRACT §3): the partner's, which names a merchant,
 * and the merchant's own. Commands choose the variant at run time (service.ts `variantFor`,
 * `readerFor`); these pick the matching operation id, so a command never names a path.
 */
export type Variant = { variant: 'partner'; merchantId: string } | { variant: 'merchant'; merchantId?: undefined };

type InvoiceFields = BodyInputOf<'createInvoice'>;

/** createPartnerInvoice (with the merchant) or createInvoice. */
export function createInvoiceAs(
  client: ThrowingClient,
  as: Variant,
  fields: InvoiceFields,
  idempotencyKey: string,
): Either<'createInvoice', 'createPartnerInvoice'> {
  return as.variant === 'partner'
    ? client.createPartnerInvoice({ body: { merchantId: as.merchantId, ...fields }, idempotencyKey })
    : client.createInvoice({ body: fields, idempotencyKey });
}

/** getPartnerInvoice or getInvoice. */
export function getInvoiceAs(client: ThrowingClient, variant: 'partner' | 'merchant', id: string): Either<'getInvoice', 'getPartnerInvoice'> {
  return variant === 'partner' ? client.getPartnerInvoice({ params: { id } }) : client.getInvoice({ params: { id } });
}

/** listPartnerInvoices (optionally one merchant's) or listInvoices. */
export function listInvoicesAs(
  client: ThrowingClient,
  variant: 'partner' | 'merchant',
  query: NonNullable<QueryInputOf<'listPartnerInvoices'>>,
): Either<'listInvoices', 'listPartnerInvoices'> {
  const { merchantId, ...rest } = query;
  return variant === 'partner' ? client.listPartnerInvoices({ query }) : client.listInvoices({ query: rest });
}
