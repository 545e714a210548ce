// The emulator under test, in its own process (so the load generator never shares its event loop).
// Talks to the harness over IPC: {cmd:'rss'} → {rss}, {cmd:'stop'}.
import { startEmulator } from '../../dist/index.js';

const options = JSON.parse(process.argv[2] ?? '{}');
const emulator = await startEmulator({ port: 0, db: options.db ?? ':memory:', config: options.config ?? {} });
process.on('message', async (msg) => {
  if (msg.cmd === 'rss') process.send({ cmd: 'rss', rss: process.memoryUsage().rss });
  if (msg.cmd === 'stop') {
    await emulator.stop();
    process.exit(0);
  }
});
process.send({ cmd: 'ready', url: emulator.url, keys: emulator.keys });
