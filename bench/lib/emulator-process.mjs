// The emulator under test, in its own process (so the load generator never shares its event loop).
// Talks to the harness over IPC: {cmd:'rss'} → {rss}, {cmd:'cpu'} → {cpu: process.cpuUsage(), sent:
// attempts this process started}, {cmd:'in-flight'} → {running, most, sent} per receiver URL (with countSent),
// {cmd:'stop'}.
import { manualClock, startEmulator } from '../../dist/index.js';

const options = JSON.parse(process.argv[2] ?? '{}');
// A manual clock stands still between advances: invoices created during a load then share one
// expiry instant, so one advance releases all their events at once (#5).
const clock = options.manualClock ? manualClock(Date.now()) : undefined;
// `database`: a PostgreSQL URL instead of the SQLite file (the PostgreSQL rows, bench/cases/postgres.mjs).
const storage = options.database ? { database: options.database } : { db: options.db ?? ':memory:' };
// Attempts this process sent: which replica did the delivery work (the replica rows, bench/cases/replicas.mjs).
let sent = 0;
// Per receiver URL: attempts this process has running (sent, result not yet stored) and the most at once (#24).
const running = new Map();
const most = new Map();
const sentTo = new Map();
const onEvent = (event) => {
  if (event.type === 'delivery.sent') {
    sent++;
    sentTo.set(event.url, (sentTo.get(event.url) ?? 0) + 1);
    const n = (running.get(event.url) ?? 0) + 1;
    running.set(event.url, n);
    most.set(event.url, Math.max(most.get(event.url) ?? 0, n));
  }
  if (event.type === 'delivery.result') running.set(event.url, (running.get(event.url) ?? 1) - 1);
};
const emulator = await startEmulator({
  port: 0,
  ...storage,
  config: options.config ?? {},
  ...(clock ? { clock } : {}),
  ...(options.countSent ? { onEvent } : {}),
});
process.on('message', async (msg) => {
  if (msg.cmd === 'rss') process.send({ cmd: 'rss', rss: process.memoryUsage().rss });
  if (msg.cmd === 'cpu') process.send({ cmd: 'cpu', cpu: process.cpuUsage(), sent });
  if (msg.cmd === 'in-flight')
    process.send({ cmd: 'in-flight', running: Object.fromEntries(running), most: Object.fromEntries(most), sent: Object.fromEntries(sentTo) });
  if (msg.cmd === 'stop') {
    await emulator.stop();
    process.exit(0);
  }
});
process.send({ cmd: 'ready', url: emulator.url, keys: emulator.keys });
