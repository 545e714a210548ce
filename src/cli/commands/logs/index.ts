import { defineCommand, withHandler } from '../../spec.js';

export const tailLogsSpec = defineCommand({
  name: 'logs tail',
  summary: 'show each API request the emulator answers, as it happens (the request journal)',
  description: 'Like `stripe logs tail`: what your app sent and what it got back. --json prints one entry per line (NDJSON), bodies included.',
  options: [
    { flags: '--method <method>', description: 'only requests with this method (GET, POST, …)' },
    { flags: '--path <prefix>', description: 'only requests whose path starts with this, e.g. /v1/invoices' },
    { flags: '--status <status>', description: 'only answers with this status', parse: 'int' },
    { flags: '--invoice <id>', description: 'only requests whose path or answer names this invoice' },
    { flags: '--all', description: "also the dashboard's own requests (left out by default)" },
  ],
  examples: ['svc logs tail', 'svc logs tail --path /v1/invoices --status 400', 'svc logs tail --json > requests.ndjson'],
  stopsOnSignal: true,
});

export const getLogSpec = defineCommand({
  name: 'logs get',
  summary: 'show one API request the emulator answered, with both bodies (a request-journal entry)',
  description:
    'The request id is the Request-Id header of its answer (also in `svc logs tail` lines and --verbose errors). Exit 1 with request_not_found when the journal no longer holds it (rotated out of the journalSize ring, or cleared).',
  args: [{ name: 'requestId', description: 'the Request-Id of the answer, e.g. req_3f9c1a2b4d5e0000000001' }],
  examples: ['svc logs get req_3f9c1a2b4d5e0000000001', 'svc logs get req_3f9c1a2b4d5e0000000001 --json'],
});

export const logsCommands = [
  withHandler(tailLogsSpec, async () => (await import('./tail.js')).tailLogsCommand),
  withHandler(getLogSpec, async () => (await import('./get.js')).getLogCommand),
];
