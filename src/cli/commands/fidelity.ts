import { defineCommand, withHandler } from '../spec.js';

export const verifySpec = defineCommand({
  name: 'verify',
  summary: "run the contract's portable checks against a deployment (test keys): each passed, failed or skipped",
  description:
    'Measures a deployment against CONTRACT §13: svc itself (every check passes), a shared sandbox, or the real service’s test environment. Keys and URL are found as for other commands (--partner-key/--merchant-key win); live keys are refused, since the checks create resources, all marked svc-verify-. The test webhook is pointed at a local receiver while deliveries are checked (through a cloudflared tunnel with --tunnel), then put back, except its secret. Exit 0 when no check failed, 1 otherwise.',
  options: [
    { flags: '--partner-key <key>', description: 'a test partner key (pt_test_…)' },
    { flags: '--merchant-key <key>', description: 'a test merchant key (test_…); without one the merchant-side checks are skipped' },
    { flags: '--only <groups>', description: 'only these groups or check ids, comma-separated (e.g. idempotency,webhook)' },
    { flags: '--tunnel', description: 'reach the webhook receiver through a cloudflared quick tunnel (a deployment not on this machine)' },
  ],
  examples: [
    'svc verify',
    'svc verify --only idempotency,amounts --json',
    'svc verify --base-url https://sandbox.example.com --partner-key $PT_TEST_KEY --merchant-key $TEST_KEY --tunnel',
  ],
  stopsOnSignal: true,
});

export const proxySpec = defineCommand({
  name: 'proxy',
  summary: 'forward the API to a deployment unchanged, checking every request and answer against the OpenAPI document',
  description:
    'Serves the API on 127.0.0.1 and forwards every /v1/… request to --upstream as it is, answers included. Each violation of the OpenAPI document is a line on stderr and counted in the answer’s Svc-Contract-Violations header; the proxy’s request journal (GET /__emulator/requests on the proxy, as svc logs reads it) lists each exchange with its violations. --record appends every exchange to a file, keys and secrets masked (mode 0600): svc fixtures from-recording turns it into fixtures.',
  options: [
    { flags: '--upstream <url>', description: 'the deployment to forward to (http or https)' },
    { flags: '-p, --port <port>', description: 'port to listen on (0 picks a free one; default 4748)', parse: 'int' },
    { flags: '--record <file>', description: 'append one JSON line per exchange to this file (keys and secrets masked)' },
  ],
  examples: ['svc proxy --upstream https://sandbox.example.com', 'svc proxy --upstream http://127.0.0.1:4747 --port 0 --json --record traffic.ndjson'],
  stopsOnSignal: true,
});

export const fidelityCommands = [
  withHandler(verifySpec, async () => (await import('./verify.js')).verifyCommand),
  withHandler(proxySpec, async () => (await import('./proxy.js')).proxyCommand),
];
