import type { Streams } from './streams.js';
import type { ServerResponse } from 'node:http';
import type * as z from 'zod';
import type { Clock } from '../clock/clock.js';
import type { EmulatorConfig } from '../config/defaults.js';
import type { Environment } from '../domain/environment.js';
import type { DeliveryRow } from '../store/repos/deliveries.js';
import type { StoreDb } from '../store/db.js';
import type { ExtraTargets } from '../webhooks/outbox.js';
import type { KeyCache } from './auth.js';
import type { ZodFreeBody } from './validation/invoice-bodies.js';
import type { DefaultKeys } from './bootstrap.js';
import type { EmulatorEvent, EmulatorListener } from './events.js';
import type { ListenerHub } from '../webhooks/listener-hub.js';
import type { AdvanceReport } from './public-types.js';
import type { Snapshots } from './snapshots/snapshots.js';
import type { WebhookChaos } from '../webhooks/chaos.js';
import type { Random } from '../domain/random.js';
import type { FaultTable } from './faults/table.js';
import type { RequestJournal } from './journal/journal.js';
import type { ChainsControl } from './chains/types.js';
import type { WebhookTargets } from '../webhooks/targets.js';

/** Who is calling: the owner of the API key, in the key's environment. */
export interface Principal {
  kind: 'partner' | 'merchant';
  environment: Environment;
  partnerId: string;
  /** Set for merchant keys. */
  merchantId: string | null;
}

/** What every route and action can use. Built once by `createApp`. */
export interface AppDeps {
  /** The store, on whichever engine (src/store/db.ts). */
  db: StoreDb;
  /**
   * Resolves once this replica's caches hold what other replicas acknowledged (./freshness.ts);
   * null where this process is the only one (nothing to wait for).
   */
  sync(): Promise<void> | null;
  clock: Clock;
  config: EmulatorConfig;
  /** The emulator's public base URL (known once it listens). */
  baseUrl(): string;
  /** Hosts the emulator is known by besides loopback: its bound address when specific, its base URL's host. */
  ownHosts(): string[];
  emit(event: EmulatorEvent): void;
  version: string;
  /** Operations that reach beyond one request: the control plane drives them. */
  runtime: Runtime;
  /** Valid keys seen so far (cleared by a reset). */
  keyCache: KeyCache;
  /** Whether anyone listens to request events (svc dev does; a library user may not). */
  observed(): boolean;
  /** Where generated ids, keys and secrets come from (seeded for deterministic runs, CONTRACT §9). */
  random: Random;
  /** The request journal (CONTRACT §9). */
  journal: RequestJournal;
  /** API faults in force (CONTRACT §9). */
  faults: FaultTable;
  /** Where webhooks may go (CONTRACT §5, §8): checked when a URL is saved. */
  webhookTargets: WebhookTargets;
}

export interface Runtime {
  /** Empties every table, recreates the defaults with the same keys, and puts the clock back (resetClock). */
  reset(): Promise<void>;
  /** Moves the clock forward and runs everything that falls due, before resolving. */
  advanceClock(ms: number): Promise<AdvanceReport>;
  /** Puts the clock back to the real time, or to its start (`--clock-start`), for every replica. */
  resetClock(): Promise<void>;
  /** The default partner's keys (CONTRACT §7 `GET keys`). */
  defaultKeys(): DefaultKeys;
  /** Something falls due at `at` (an expiry, a delivery): make sure the scheduler wakes by then. */
  schedule(at: number): void;
  /** One manual attempt of a delivery, awaited (CONTRACT §5 resend). */
  resend(delivery: DeliveryRow): Promise<DeliveryRow>;
  /** Delivery targets beyond the partner's webhook (listeners), consulted by the outbox. */
  extraTargets?: ExtraTargets;
  /** `svc webhook listen`'s registrations and streams. */
  listeners: ListenerHub;
  /** Subscribe to the emulator's events (the tail stream); returns an unsubscribe function. */
  subscribe(listener: EmulatorListener): () => void;
  /** The bounded server-sent-event streams: request journal, change feed, delivery attempts (CONTRACT §8). */
  streams: Streams;
  /** Saved states (CONTRACT §9). */
  snapshots: Snapshots;
  /** Webhook chaos in force (CONTRACT §9). */
  chaos: WebhookChaos;
  /** The local chains (`svc dev --chains`, CONTRACT §14), or null without them. */
  readonly chains: ChainsControl | null;
}

// Declared in public-types.ts so that the public API's types never reach the database layer.
export type { AdvanceReport } from './public-types.js';

/** What a route's handler receives. Operations get a typed view of it (`handler.ts`). */
export interface RouteInput<Body> {
  params: Record<string, string>;
  /** The parsed query for operations that declare one; the raw search parameters for pages. */
  query: URLSearchParams;
  body: Body;
  headers: Record<string, string | string[] | undefined>;
  requestId: string;
  remoteAddress: string | undefined;
}

export interface AuthedInput<Body> extends RouteInput<Body> {
  principal: Principal;
}

export interface RouteResult {
  status: number;
  /** Serialised as JSON, unless `json`, `html` or `text` is given. */
  body?: unknown;
  /** The body already serialised as JSON (hot paths build it without a parse/stringify round trip). */
  json?: string;
  html?: string;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** A server-sent-events stream: the response is handed over, open, after the SSE headers. */
  stream?: (res: ServerResponse) => void;
}

export type Auth = 'partner' | 'merchant' | 'either' | 'none';

interface RouteBase {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Router syntax: `:name` for a parameter. */
  path: string;
  /** The contract's operation this route serves; pages and the document itself have none. */
  operationId?: string;
  /** Loopback-only control plane (CONTRACT §7). */
  control?: boolean;
  /**
   * The dashboard's static shell (CONTRACT §10): with a control token set, served to any client,
   * because a browser cannot send the token when it navigates, and the shell holds nothing: every
   * call its script makes is a control request that needs the token (issue 28).
   */
  controlShell?: boolean;
  /** Browser pages post here: writes from another origin are refused (CONTRACT §8); control routes always are. */
  sameOriginWrites?: boolean;
  /** 403 test_mode_only with a live key (CONTRACT §6). */
  testOnly?: boolean;
  /**
   * The route reads a zod schema (`body` or `query`): its first request awaits `loadSchemas()` (zod
   * loads on demand, ./validation/schemas.ts), after which those getters may be read. The invoice
   * creates' bodies are validated without zod (./validation/invoice-bodies.ts).
   */
  validated?: boolean;
  /** Schema of the JSON body; its keys are the known fields. Absent: the route takes no body. */
  body?: z.ZodType | ZodFreeBody;
  /** A POST whose body schema accepts `{}` may leave the body out (test helpers, clock defaults). */
  optionalBody?: boolean;
  /** Schema of the query; the handler receives it parsed (400 validation_failed naming the parameter). */
  query?: z.ZodType;
  /**
   * An idempotent create (CONTRACT §2): `endpoint` names the scope. `optional` (test helpers, an
   * extension): the header may be left out, and then the request is not idempotent; `perPath`: the
   * scope also holds the request path, whose ids say what the request acts on (the body does not).
   */
  idempotent?: { endpoint: string; tenantScoped?: boolean; optional?: boolean; perPath?: boolean };
  /** Reject fee fields in the body (create-merchant only). */
  rejectFeeFields?: boolean;
  /** A JSON-RPC endpoint: the body may be an array of `body` objects (a batch), each validated alone. */
  jsonRpc?: boolean;
}

/**
 * What the pipeline hands a route's handler: params, the query (parsed for operations, raw search
 * parameters for pages), the validated body, and the principal once authenticated.
 */
export type HandlerInputOf = Omit<RouteInput<unknown>, 'query'> & { query: unknown; principal?: Principal };

export interface RouteDef extends RouteBase {
  auth: Auth;
  /**
   * Declared as a method on purpose: a method's parameter is checked both ways, so each operation's
   * handler keeps its own input type (handler.ts: `HandlerInput<Id>`, from the contract) and each page
   * its own, while the pipeline calls every route with the one input it builds. What makes that input
   * fit the operation is the pipeline's validation (body and query parsed by the operation's schemas,
   * auth by its key kind), checked at run time by the integration suite's response checker.
   */
  handle(input: HandlerInputOf, deps: AppDeps): RouteResult | Promise<RouteResult>;
}
