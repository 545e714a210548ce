import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, wholeProcess } from './startup.mjs';

const lib = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib');

/** #17: `emulator.restore()` of a snapshot holding 1,000 invoices (CONTRACT §9: well under 100 ms). */
export async function snapshotSpeed(report, { invoices = 1000, rounds = 9 } = {}) {
  const memory = JSON.parse((await wholeProcess([path.join(lib, 'snapshot-probe.mjs'), JSON.stringify({ invoices, rounds })])).stdout);
  const file = JSON.parse((await wholeProcess([path.join(lib, 'snapshot-probe.mjs'), JSON.stringify({ invoices, rounds, db: 'file' })])).stdout);
  report({
    id: 17,
    what: `snapshot restore with ${invoices.toLocaleString('en')} invoices stored (in-memory database, in-process \`restore()\`)`,
    value: median(memory.restore),
    target: 50,
    better: 'lower',
    unit: 'ms',
    detail: `median of ${rounds}; save ${median(memory.save).toFixed(1)} ms; with a file database: restore ${median(file.restore).toFixed(1)} ms, save ${median(file.save).toFixed(1)} ms`,
  });
}
