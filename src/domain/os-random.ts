/**
 * The operating system's randomness, without node:crypto where the system has a random device
 * (Linux, macOS, the BSDs): /dev/urandom is the kernel's cryptographically secure generator, the one
 * OpenSSL itself seeds from. Loading node:crypto is ~4 ms of CPU (20 modules), which `svc dev` and
 * `svc exec` paid before they were ready only to draw the default keys and ids (bench #12, #16).
 * Elsewhere (Windows), or when the device cannot be read, node:crypto's randomFillSync.
 */
import fs from 'node:fs';
import { randomFillSync } from 'node:crypto';

let device = process.platform !== 'win32';

/** Fills `buf` with random bytes from the operating system, and returns it. */
export function fillFromOs(buf: Buffer): Buffer {
  if (device) {
    try {
      const fd = fs.openSync('/dev/urandom', 'r');
      try {
        for (let at = 0; at < buf.length; ) {
          const read = fs.readSync(fd, buf, at, buf.length - at, null);
          if (read <= 0) throw new Error('/dev/urandom gave no bytes');
          at += read;
        }
        return buf;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      device = false; // no device here (a sandbox, a chroot): node:crypto from now on
    }
  }
  return randomFillSync(buf);
}

/** A version 4 UUID from the operating system's randomness (as node:crypto's randomUUID, without it). */
export function osUuid(): string {
  const b = fillFromOs(Buffer.alloc(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
