import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { API_PATH_PREFIX, type OperationSpec } from '../../contract/operation.js';
import { operationEntries } from '../../contract/operations/index.js';
import { ApiError } from '../api-error.js';
import type { Fault, FaultAction, FaultMatch, FaultSpec } from '../../contract/testing-types.js';
import type { SharedValue } from '../../store/shared-value.js';

/** More would make every API request scan a long list; a test needs a handful. */
export const MAX_FAULTS = 100;

/** An error action once added: its `code` is filled in with the status's default. */
export type ErrorAction = { status: number; code: string; retryAfter?: number };

/** A fault in force. `segments` is `match.path` split, with `null` for a `{name}` placeholder. */
export interface ActiveFault {
  id: string;
  match: FaultMatch;
  segments: (string | null)[] | null;
  action: ErrorAction | Exclude<FaultAction, { status: number }>;
  when: 'before' | 'after_commit';
  remaining: number | null;
  fired: number;
  createdAt: number;
}

interface Template {
  method: OperationSpec['method'];
  segments: (string | null)[];
}

/** A fault as the sandbox stores it (its segments are derived). */
export type StoredFault = Omit<ActiveFault, 'segments'>;

/** What a stored list must look like (a file restored from elsewhere may hold anything). */
export const isStoredFaults = (value: unknown): value is StoredFault[] =>
  Array.isArray(value) && value.every((f) => typeof f === 'object' && f !== null && typeof f.id === 'string' && typeof f.match === 'object');

/**
 * The fault table (CONTRACT §9). Checked for every API request after its route and key are known;
 * with no fault in force that is one length check. The first fault added that matches applies; it
 * is used up (`fire`) when it acts: at once for `before`, on a 2xx answer for `after_commit`.
 *
 * The list is a value the sandbox shares (CONTRACT §12), kept by the store kit (store/shared-value.ts):
 * this process's memory on SQLite, a row every replica reads on PostgreSQL, with memory its cache. A
 * fault with `times` is used up in that value, one use per request under its lock, so N uses hold
 * across replicas; an unlimited one counts its uses here only, and never writes.
 */
export class FaultTable {
  /** The API's routes, as fault paths are checked against them: made by the first `add`, not with every start. */
  private routeTemplates: Template[] | null = null;
  private readonly waits = new Set<() => void>();
  private closed = false;
  /** The stored list last seen, and its faults with their path segments. */
  private seen: StoredFault[] | null = null;
  private active: ActiveFault[] = [];
  /** Uses of unlimited faults here (by id): counted, never stored. */
  private readonly usedHere = new Map<string, number>();

  constructor(
    private readonly stored: SharedValue<StoredFault[]>,
    private readonly now: () => number,
    // Read when an id is made, not when the table is: node:crypto loads on first use (domain/os-random.ts).
    private readonly newId: () => string = () => randomUUID(),
  ) {}

  /** The API's routes (never the control plane: it must stay reachable to clear a fault). */
  private get templates(): Template[] {
    this.routeTemplates ??= operationEntries()
      .filter(([, op]) => op.path.startsWith(API_PATH_PREFIX))
      .map(([, op]) => ({ method: op.method, segments: split(op.path) }));
    return this.routeTemplates;
  }

  /** The faults in force, as stored (derived again only when the stored list changed). */
  private get faults(): ActiveFault[] {
    const list = this.closed ? [] : this.stored.current;
    if (list !== this.seen) {
      this.seen = list;
      this.active = list.map((f) => ({
        ...f,
        fired: f.fired + (this.usedHere.get(f.id) ?? 0),
        segments: f.match.path === undefined ? null : split(f.match.path),
      }));
    }
    return this.active;
  }

  get size(): number {
    return this.faults.length;
  }

  /** Adds a fault whose shape was validated; 400 `validation_failed` naming `match.path` when it matches no route. */
  add(spec: FaultSpec): ActiveFault {
    const segments = spec.match.path === undefined ? null : split(spec.match.path);
    if (segments && !this.templates.some((t) => (spec.match.method === undefined || t.method === spec.match.method) && prefixOf(segments, t.segments, true))) {
      const method = spec.match.method ? `${spec.match.method} ` : '';
      throw new ApiError(
        400,
        'validation_failed',
        `match.path ${spec.match.path} matches no ${method}API route; use a route template such as /v1/invoices or /v1/partner/invoices/{id}, or a prefix of one.`,
        'match.path',
      );
    }
    if (this.faults.length >= MAX_FAULTS) {
      throw new ApiError(400, 'validation_failed', `At most ${MAX_FAULTS} faults can be in force; clear some first (DELETE /__emulator/faults).`);
    }
    const action = 'status' in spec.action ? { ...spec.action, code: spec.action.code ?? defaultCode(spec.action.status) } : { ...spec.action };
    const fault: StoredFault = {
      id: this.newId(),
      match: { ...spec.match },
      action,
      when: spec.when,
      remaining: spec.times ?? null,
      fired: 0,
      createdAt: this.now(),
    };
    this.stored.write((list) => [...list, fault]);
    return { ...fault, segments };
  }

  list(): ActiveFault[] {
    return [...this.faults];
  }

  /** Removes one fault, or all; returns how many went. */
  clear(id?: string): number {
    const count = id === undefined ? this.faults.length : this.faults.filter((f) => f.id === id).length;
    this.stored.write((list) => (id === undefined ? [] : list.filter((f) => f.id !== id)));
    return count;
  }

  /** The first fault that applies to a request (`path` as requested, its segments compared whole). */
  match(method: string, path: string, environment: string | undefined): ActiveFault | undefined {
    let actual: string[] | undefined;
    for (const fault of this.faults) {
      const m = fault.match;
      if (m.method !== undefined && m.method !== method) continue;
      if (m.environment !== undefined && m.environment !== environment) continue;
      if (fault.segments) {
        actual ??= path.split('/').filter(Boolean);
        if (!prefixOf(fault.segments, actual, false)) continue;
      }
      return fault;
    }
    return undefined;
  }

  /** Loads the list as stored (another replica changed it). */
  reload(): Promise<void> {
    return this.stored.reload();
  }

  /** Resolves once what add and clear changed is stored, rejecting with the store's error: the control plane answers after it. */
  settled(): Promise<void> {
    return this.stored.settled();
  }

  /**
   * Uses the fault once; false when it was cleared or used up meanwhile (then it does not act). A
   * promise only for a fault with `times`, whose uses the store counts.
   */
  fire(fault: ActiveFault): boolean | Promise<boolean> {
    if (fault.remaining === null) {
      if (!this.faults.some((f) => f.id === fault.id)) return false;
      this.usedHere.set(fault.id, (this.usedHere.get(fault.id) ?? 0) + 1);
      fault.fired++;
      for (const f of this.active) if (f.id === fault.id && f !== fault) f.fired++;
      return true;
    }
    return this.stored
      .update((list) => {
        const found = list.find((f) => f.id === fault.id);
        if (!found || found.remaining === 0) return { value: list, answer: null };
        const left = (found.remaining ?? 1) - 1;
        const used = { ...found, remaining: left, fired: found.fired + 1 };
        return { value: left === 0 ? list.filter((f) => f.id !== fault.id) : list.map((f) => (f.id === fault.id ? used : f)), answer: used };
      })
      .then((used) => {
        if (!used) return false;
        // The request matched `fault`; the counts the store holds go to it too (its view of the use).
        fault.fired = used.fired;
        fault.remaining = used.remaining;
        return true;
      });
  }

  /** Waits `ms` (a delay action); resolves false at once when the emulator stops meanwhile. */
  delay(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waits.delete(done);
        resolve(!this.closed);
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.waits.add(done);
    });
  }

  /** The emulator stops: delays end now (their connections are dropped), nothing more is faulted here. */
  close(): void {
    this.closed = true;
    for (const done of [...this.waits]) done();
  }
}

/** The public view of a fault. */
export function presentFault(f: ActiveFault): Fault {
  return {
    id: f.id,
    match: { ...f.match },
    action: { ...f.action },
    when: f.when,
    times: f.remaining,
    fired: f.fired,
    createdAt: new Date(f.createdAt).toISOString(),
  };
}

/** `{name}` (the contract's form) or `:name` (the router's) is a placeholder. */
export function split(path: string): (string | null)[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((s) => (/^\{\w+\}$|^:\w+$/.test(s) ? null : s));
}

/**
 * Whether `pattern` is `target` or a prefix of it, segment by segment. A placeholder in the pattern
 * stands for any one segment of a request, but only for a parameter of a route `template`; a
 * concrete value in the pattern fits a template's parameter.
 */
function prefixOf(pattern: (string | null)[], target: (string | null)[], template: boolean): boolean {
  if (pattern.length > target.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    const t = target[i];
    if (p === null) {
      if (template && t !== null) return false;
    } else if (t !== null && p !== t) return false;
  }
  return true;
}

/**
 * The code a fault answers with by default: the status's name in the contract's style
 * (`service_unavailable`, `too_many_requests`), `internal_error` for 500 as the emulator's own.
 */
export function defaultCode(status: number): string {
  if (status === 500) return 'internal_error';
  const name = STATUS_CODES[status];
  const code = name
    ?.toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return code && /^[a-z]/.test(code) ? code.slice(0, 64) : 'injected_fault';
}
