import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll } from 'vitest';
import { startTestEmulator, type TestEmulator } from './emulator.js';

/** This machine's first non-internal IPv4 address: where a control plane requires its token. */
const address = Object.values(os.networkInterfaces())
  .flat()
  .find((info) => info?.family === 'IPv4' && !info.internal)?.address;

export interface RemoteControlPlane {
  /** The emulator, its control plane requiring the token off loopback. */
  readonly emu: TestEmulator;
  /** Its base URL through the non-loopback address. */
  readonly remote: string;
  /** A server that records each request's path and control-token header and answers `body`. */
  readonly recorderUrl: string;
  /** What the recorder saw, in order (empty it between tests as needed). */
  readonly seen: { path: string; token: string | undefined }[];
}

/**
 * The setup the control-token tests share (CONTRACT §12, issue 28): a real emulator requiring
 * `token` on its control plane, reached through this machine's non-loopback address, and a
 * recording server on loopback. Registers its own beforeAll and afterAll; read the fields in tests
 * or in a later beforeAll.
 */
export function remoteControlPlane(token: string, body: string): RemoteControlPlane {
  let emu: TestEmulator | undefined;
  let remote = '';
  let recorderUrl = '';
  const seen: RemoteControlPlane['seen'] = [];
  const recorder = http.createServer((req, res) => {
    const sent = req.headers['svc-control-token'];
    seen.push({ path: req.url ?? '', token: typeof sent === 'string' ? sent : undefined });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  beforeAll(async () => {
    if (!address) throw new Error('no non-internal IPv4 address on this machine (os.networkInterfaces())');
    emu = await startTestEmulator({ host: '0.0.0.0', allowedHosts: [address], config: { controlToken: token } });
    remote = `http://${address}:${emu.port}`;
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await emu?.stop();
    await new Promise((resolve) => recorder.close(resolve));
  });
  return {
    get emu() {
      if (!emu) throw new Error('remoteControlPlane: read before its beforeAll ran');
      return emu;
    },
    get remote() {
      return remote;
    },
    get recorderUrl() {
      return recorderUrl;
    },
    seen,
  };
}
