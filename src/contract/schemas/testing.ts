import * as z from 'zod';
import type { Fault, FaultSpec, JournalEntry } from '../testing-types.js';
import type { Equal } from '../type-equal.js';
import { ENVIRONMENTS } from '../enums.js';
import { faultAction, faultMatch, faultWhen, type TESTING_REQUESTS } from './testing-requests.js';

/** The testing tools' answers (CONTRACT §9, extension): the request journal and API faults. */

const principal = z
  .object({ kind: z.enum(['partner', 'merchant']), environment: z.enum(ENVIRONMENTS), partnerId: z.guid(), merchantId: z.guid().nullable() })
  .meta({ id: 'JournalPrincipal' });

const journalEntry = z
  .object({
    id: z.string().meta({ description: 'The `Request-Id` the client received.' }),
    at: z.iso.datetime().meta({ description: 'Arrival, emulator time.' }),
    method: z.string(),
    path: z.string().meta({ description: 'Without the query string.' }),
    query: z.string().meta({ description: 'The query string as sent, without `?`; empty when none.' }),
    status: z.number().int().nullable().meta({ description: 'null: the connection was dropped without an answer (a `drop` fault).' }),
    durationMs: z.number().min(0),
    principal: principal.nullable().meta({ description: 'null when no valid key was sent.' }),
    key: z.string().nullable().meta({ description: 'The key sent, as its prefix and last four characters (`pt_test_…a1B2`).' }),
    idempotencyKey: z.string().nullable(),
    replayed: z.boolean().meta({ description: 'An idempotent replay.' }),
    requestBody: z.string().nullable().meta({ description: 'The body as received; null when none was read. API keys and webhook secrets are masked.' }),
    responseBody: z.string().nullable().meta({ description: 'The body answered; null for none.' }),
    truncated: z.boolean().meta({ description: 'A body was longer than 16 KiB: only its start is kept.' }),
    fault: z.string().nullable().meta({ description: 'The fault that shaped this answer (`Svc-Fault`).' }),
    fromDashboard: z.boolean().meta({ description: "Made by the emulator's dashboard (it sends `Svc-Client: dashboard`), not by your code." }),
  })
  .meta({ id: 'JournalEntry', description: 'One API request (`/v1/…`) and its answer.' });

const fault = z
  .object({
    id: z.guid(),
    match: faultMatch(),
    action: faultAction(),
    when: faultWhen(),
    times: z.number().int().min(1).nullable().meta({ description: 'How many more requests it applies to; null: until cleared.' }),
    fired: z.number().int().min(0).meta({ description: 'How many requests it has applied to.' }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Fault' });

const deleted = (id: string) => z.object({ deleted: z.number().int().min(0) }).meta({ id, description: 'How many were removed.' });

export const TESTING_SCHEMAS = {
  JournalEntry: journalEntry,
  RequestJournal: z.object({ data: z.array(journalEntry), hasMore: z.boolean() }).meta({ id: 'RequestJournal' }),
  RequestJournalCleared: deleted('RequestJournalCleared'),
  Fault: fault,
  FaultList: z.object({ data: z.array(fault) }).meta({ id: 'FaultList' }),
  FaultsCleared: deleted('FaultsCleared'),
};

/** The schemas produce exactly the public types (testing-types.ts): a field added to one only does not compile. */
const entryMatches: Equal<z.output<typeof journalEntry>, JournalEntry> = true;
const faultMatches: Equal<z.output<typeof fault>, Fault> = true;
const specMatches: Equal<z.output<ReturnType<typeof TESTING_REQUESTS.CreateFaultRequest>>, FaultSpec> = true;
void entryMatches;
void faultMatches;
void specMatches;
