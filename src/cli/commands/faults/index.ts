import { defineCommand, withHandler } from '../../spec.js';

export const addFaultSpec = defineCommand({
  name: 'faults add',
  summary: 'make matching API requests fail: an error, a delay or a dropped connection',
  description:
    'One action: --status (with --code, --retry-after), --delay-ms or --drop. --when after_commit runs the operation and commits it first: the case an Idempotency-Key retry must survive.',
  options: [
    { flags: '--path <path>', description: 'a route template or prefix, e.g. /v1/invoices or /v1/partner/invoices/{id} (default: every /v1 route)' },
    { flags: '--method <method>', description: 'only this method', choices: ['GET', 'POST', 'PUT', 'DELETE'] },
    { flags: '--environment <env>', description: 'only requests with a key of this environment', choices: ['test', 'live'] },
    { flags: '--status <status>', description: 'answer this error status (400–599)', parse: 'int' },
    { flags: '--code <code>', description: 'the error code to answer (default from the status, e.g. service_unavailable)' },
    { flags: '--retry-after <seconds>', description: 'send Retry-After', parse: 'int' },
    { flags: '--delay-ms <ms>', description: 'hold the answer back this long instead', parse: 'positive-int' },
    { flags: '--drop', description: 'close the connection without an answer instead' },
    { flags: '--when <when>', description: 'before the operation runs, or after it committed', choices: ['before', 'after_commit'], defaultValue: 'before' },
    { flags: '--times <n>', description: 'apply to this many requests, then end (default: until cleared)', parse: 'positive-int' },
  ],
  examples: [
    'svc faults add --path /v1/invoices --method POST --status 503 --retry-after 2 --times 1',
    'svc faults add --path /v1/invoices --method POST --drop --when after_commit --times 1',
  ],
});

export const listFaultsSpec = defineCommand({
  name: 'faults list',
  summary: 'the faults in force',
});

export const clearFaultsSpec = defineCommand({
  name: 'faults clear',
  summary: 'remove one fault, or all of them',
  args: [{ name: 'id', description: 'the fault to remove (default: every fault)', required: false }],
});

export const faultCommands = [
  withHandler(addFaultSpec, async () => (await import('./commands.js')).addFaultCommand),
  withHandler(listFaultsSpec, async () => (await import('./commands.js')).listFaultsCommand),
  withHandler(clearFaultsSpec, async () => (await import('./commands.js')).clearFaultsCommand),
];
