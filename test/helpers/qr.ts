import jsQRImport from 'jsqr';
import { PNG } from 'pngjs';
import type { Locator } from 'playwright-core';

// jsqr is CommonJS with `exports.default`; depending on the loader the function sits one level down.
type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = ((jsQRImport as unknown as { default?: Decode }).default ?? jsQRImport) as unknown as Decode;

/** Decodes the QR code shown in `locator` from a real screenshot of it. */
export async function readQr(locator: Locator): Promise<string> {
  const png = PNG.sync.read(await locator.screenshot());
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  if (!code) throw new Error('no QR code could be decoded from the screenshot');
  return code.data;
}
