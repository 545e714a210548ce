import { INVOICE_EVENT_TYPES, type InvoiceEventType } from '../contract/enums.js';
import type { DepositAddress } from '../domain/addresses.js';
import type { ChainFamily, TokenInfo } from '../domain/chains.js';

/**
 * The columns that hold JSON text (lists and objects, which SQLite has no type for), read back into
 * their types. svc wrote them, but a restored snapshot file is not trusted (CONTRACT §8): each is
 * checked, not cast, and a value of another shape is an error naming the column. Hand-written
 * guards rather than zod: the store is on `svc dev`'s start-up path, which does not load zod.
 */

class JsonColumnError extends Error {
  constructor(column: string, expected: string) {
    super(`svc: the ${column} column does not hold ${expected}`);
  }
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);
const prop = (value: object, key: string): unknown => Reflect.get(value, key);

/** `webhook_configs.custom_headers`: header name to value. */
export function parseCustomHeaders(text: string): Record<string, string> {
  const value: unknown = JSON.parse(text);
  if (!isObject(value)) throw new JsonColumnError('custom_headers', 'an object of header names to values');
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new JsonColumnError('custom_headers', 'an object of header names to values');
    headers[name] = v;
  }
  return headers;
}

/** `merchants.network_ids`: the merchant's enabled networkIds. */
export function parseNetworkIds(text: string): number[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((n) => typeof n === 'number')) throw new JsonColumnError('network_ids', 'a list of networkIds');
  return value;
}

export const isInvoiceEventType = (value: unknown): value is InvoiceEventType => INVOICE_EVENT_TYPES.some((t) => t === value);

/** `listeners.events`: the event types a listener asked for, or null for all. */
export function parseEventTypes(text: string | null): InvoiceEventType[] | null {
  if (!text) return null;
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every(isInvoiceEventType)) throw new JsonColumnError('events', 'a list of event types');
  return value;
}

const FAMILIES: readonly ChainFamily[] = ['evm', 'tron', 'solana'];

function tokenOf(value: unknown): TokenInfo | null {
  if (!isObject(value)) return null;
  const symbol = prop(value, 'symbol');
  const contractAddress = prop(value, 'contractAddress');
  const decimals = prop(value, 'decimals');
  if (typeof symbol !== 'string' || typeof contractAddress !== 'string' || typeof decimals !== 'number') return null;
  return { symbol, contractAddress, decimals };
}

function addressOf(value: unknown): DepositAddress | null {
  if (!isObject(value)) return null;
  const chainId = prop(value, 'chainId');
  const chainName = prop(value, 'chainName');
  const family = FAMILIES.find((f) => f === prop(value, 'family'));
  const networkId = prop(value, 'networkId');
  const depositAddress = prop(value, 'depositAddress');
  const rawTokens = prop(value, 'tokens');
  if (typeof chainId !== 'string' || typeof chainName !== 'string' || !family || typeof networkId !== 'number' || typeof depositAddress !== 'string')
    return null;
  if (!Array.isArray(rawTokens)) return null;
  const tokens = rawTokens.map(tokenOf);
  if (tokens.some((t) => t === null)) return null;
  return { chainId, chainName, family, networkId, depositAddress, tokens: tokens.filter((t) => t !== null) };
}

/** `invoices.addresses`: the invoice's deposit addresses, as the API returns them. */
export function parseDepositAddresses(text: string): DepositAddress[] {
  const value: unknown = JSON.parse(text);
  const addresses = Array.isArray(value) ? value.map(addressOf) : [null];
  if (addresses.some((a) => a === null)) throw new JsonColumnError('addresses', 'a list of deposit addresses');
  return addresses.filter((a) => a !== null);
}
