/**
 * Who holds a SQLite database, as a second emulator's refusal says it (CONTRACT §8 "One emulator per
 * database"; issue 40): two containers on one volume both run svc as pid 1, and the second was told
 * the file was "in use by svc dev in this process". The owner file now carries an instance id and
 * the host name, so the refusal says another container or host when the holder is not this process,
 * whatever its pid.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { testEngine } from '../helpers/postgres-database.js';
import { tempDir } from '../helpers/temp-dir.js';

const running: TestEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.stop()));
});

describe.skipIf(testEngine() === 'postgres')('the claim on a SQLite database', () => {
  it('records an instance id and the host name beside the pid', async () => {
    const file = path.join(tempDir(), 'emulator.sqlite');
    running.push(await startTestEmulator({ db: file, owner: 'svc dev' }));
    const owner = JSON.parse(fs.readFileSync(`${file}-lock.json`, 'utf8'));
    expect(owner).toMatchObject({ by: 'svc dev', pid: process.pid, host: os.hostname() });
    expect(owner.instance).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a holder with this pid in another container (another instance, another host name) is named as such', async () => {
    const file = path.join(tempDir(), 'emulator.sqlite');
    const first = await startTestEmulator({ db: file, owner: 'svc dev' });
    running.push(first);
    // What the first container's svc wrote, read from the second: pid 1 there, as here.
    const infoFile = `${file}-lock.json`;
    const theirs = { ...JSON.parse(fs.readFileSync(infoFile, 'utf8')), instance: 'another-container-instance', host: 'svc-container-a' };
    fs.writeFileSync(infoFile, JSON.stringify(theirs));
    await expect(startTestEmulator({ db: file, owner: 'svc dev' })).rejects.toThrow(
      `is in use by svc dev in another container or on another host (svc-container-a, its pid ${process.pid}, ${first.url})`,
    );
    // The same host name but another instance with our pid: a container sharing the host's name.
    fs.writeFileSync(infoFile, JSON.stringify({ ...theirs, host: os.hostname() }));
    await expect(startTestEmulator({ db: file, owner: 'svc dev' })).rejects.toThrow(/in another container or on another host/);
  });

  it('a holder in this very process is still named so', async () => {
    const file = path.join(tempDir(), 'emulator.sqlite');
    running.push(await startTestEmulator({ db: file, owner: 'svc dev' }));
    await expect(startTestEmulator({ db: file, owner: 'svc dev' })).rejects.toThrow('is in use by svc dev in this process');
  });
});
