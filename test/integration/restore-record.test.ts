/**
 * `svc webhook listen` reads its restore file back to put the webhook configuration back. The file
 * is checked field by field (issue 26: no casts on JSON.parse results): one of another shape is
 * ignored like a torn one, rather than read as a record with holes in it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRestoreRecord, type RestoreRecord, writeRestoreRecord } from '../../src/listen/restore.js';
import { tempDir } from '../helpers/temp-dir.js';

const record: RestoreRecord = {
  version: 1,
  baseUrl: 'http://127.0.0.1:4747',
  keyHash: '0123456789abcdef',
  pid: 12345,
  createdAt: '2026-01-01T00:00:00.000Z',
  listenUrl: 'https://example.trycloudflare.com/webhooks',
  previous: { url: 'https://example.com/hooks', enabled: true, customHeaders: { 'X-Team': 'payments' } },
};

describe('restore records', () => {
  it('read back what listen wrote, with or without a previous configuration', () => {
    const dir = tempDir();
    const file = path.join(dir, 'listen-restore-a.json');
    writeRestoreRecord(file, record);
    expect(readRestoreRecord(file)).toEqual(record);
    writeRestoreRecord(file, { ...record, previous: null });
    expect(readRestoreRecord(file)).toEqual({ ...record, previous: null });
  });

  it('ignore a file of another shape', () => {
    const dir = tempDir();
    const file = path.join(dir, 'listen-restore-b.json');
    const shapes: unknown[] = [
      { ...record, version: 2 },
      { ...record, pid: '12345' },
      { ...record, listenUrl: undefined },
      { ...record, previous: { url: 'https://example.com/hooks', enabled: 'yes', customHeaders: {} } },
      { ...record, previous: { ...record.previous, customHeaders: { 'X-Team': 7 } } },
      [record],
      'listen',
    ];
    for (const shape of shapes) {
      fs.writeFileSync(file, JSON.stringify(shape));
      expect(readRestoreRecord(file), JSON.stringify(shape)).toBeNull();
    }
  });
});
