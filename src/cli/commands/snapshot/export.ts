import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../../errors.js';
import { connect, controlPlane } from '../../service.js';
import type { Handler } from '../../spec.js';
import { formatBytes } from '../../views/snapshot.js';
import type { exportSnapshotSpec } from './index.js';
import { errorCode, errorMessage } from '../../../domain/caught.js';

/**
 * `svc snapshot export <name> <file>`: the snapshot as an SQLite file, written mode 0600 (it holds
 * keys and webhook secrets) and whole or not at all: a partial download never takes the file's name.
 */
export const exportSnapshotCommand: Handler<typeof exportSnapshotSpec> = async ({ args }, ctx) => {
  const file = path.resolve(ctx.cwd, args.file);
  const { client, target } = await connect(ctx);
  const res = await controlPlane(ctx, target, `Exporting snapshot ${args.name}`, client.exportSnapshot({ params: { name: args.name }, timeoutMs: 120_000 }));
  const partial = `${file}.partial-${process.pid}`;
  try {
    fs.writeFileSync(partial, res.data, { mode: 0o600 });
    fs.renameSync(partial, file);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw new UserError(`cannot write ${file}: ${errorCode(error) ?? errorMessage(error)}`, 'file_not_writable');
  }
  const data = { name: args.name, file, bytes: res.data.length };
  return {
    data,
    human: (c) => `${c.green('exported')} ${args.name} to ${file} ${c.dim(`(${formatBytes(data.bytes)})`)}; start from it with svc dev --snapshot ${file}`,
  };
};
