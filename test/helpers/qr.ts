import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Locator } from 'playwright-core';

/** Decodes the QR code shown in `locator` from a real screenshot of it. */
export async function readQr(locator: Locator): Promise<string> {
  const png = PNG.sync.read(await locator.screenshot());
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  if (!code) throw new Error('no QR code could be decoded from the screenshot');
  return code.data;
}
