#!/usr/bin/env node
// The WebAssembly module of src/domain/keccak.ts: Keccak-f[1600], the permutation under keccak-256,
// written out instruction by instruction (no toolchain: the module is ~1.5 KB, its format simple).
// `node scripts/keccak-wasm.mjs` prints it in base64, as src/domain/keccak.ts holds it;
// test/unit/keccak.test.ts checks that the two agree and that the hash is @noble/hashes' keccak_256.
//
// The module exports its memory and `f()`, which permutes the 25 lanes (little-endian 64-bit words)
// at bytes 0–199 of it in place; the 24 round constants are a data segment at byte 200. The
// rotation offsets and round constants are computed here from their definitions (FIPS 202, 3.2.2
// and 3.2.5), not copied from a table.
import { pathToFileURL } from 'node:url';

/** Unsigned LEB128. */
function uleb(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a BigInt (i64.const). */
function sleb64(value) {
  const out = [];
  let v = BigInt.asIntN(64, value);
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

/** ρ's rotation of lane (x, y): (t + 1)(t + 2) / 2 mod 64 along the walk (x, y) → (y, 2x + 3y). */
function rotations() {
  const r = Array.from({ length: 25 }, () => 0);
  let x = 1;
  let y = 0;
  for (let t = 0; t < 24; t++) {
    r[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64;
    [x, y] = [y, (2 * x + 3 * y) % 5];
  }
  return r;
}

/** ι's round constants, from the linear feedback shift register rc(t). */
function roundConstants() {
  let state = 1;
  const rc = () => {
    const bit = state & 1;
    state = (state << 1) ^ (state & 0x80 ? 0x71 : 0);
    state &= 0xff;
    return bit;
  };
  const constants = [];
  for (let round = 0; round < 24; round++) {
    let c = 0n;
    for (let j = 0; j < 7; j++) if (rc()) c |= 1n << BigInt(2 ** j - 1);
    constants.push(c);
  }
  return constants;
}

const OP = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  brIf: 0x0d,
  get: 0x20,
  set: 0x21,
  tee: 0x22,
  i64Load: 0x29,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Ne: 0x47,
  i32Add: 0x6a,
  i64And: 0x83,
  i64Xor: 0x85,
  i64Rotl: 0x89,
};

/** The module's bytes. */
export function keccakModule() {
  // Locals: a0–a24 (the state), b0–b24 (after ρ and π), c0–c4 (θ's column parities), d, then the
  // i32 round offset (bytes into the constants).
  const A = (i) => i;
  const B = (i) => 25 + i;
  const C = (x) => 50 + x;
  const D = 55;
  const ROUND = 56;
  const code = [];
  const get = (i) => code.push(OP.get, ...uleb(i));
  const set = (i) => code.push(OP.set, ...uleb(i));
  const rotl = (n) => code.push(OP.i64Const, ...sleb64(BigInt(n)), OP.i64Rotl);
  const lane = (i) => i * 8;
  // i64 accesses: alignment 2^3, then the offset.
  const memarg = (offset) => [3, ...uleb(offset)];

  for (let i = 0; i < 25; i++) code.push(OP.i32Const, 0, OP.i64Load, ...memarg(lane(i)), OP.set, ...uleb(A(i)));
  code.push(OP.i32Const, 0, OP.set, ...uleb(ROUND));
  code.push(OP.loop, 0x40);
  // θ
  for (let x = 0; x < 5; x++) {
    get(A(x));
    for (let y = 1; y < 5; y++) {
      get(A(x + 5 * y));
      code.push(OP.i64Xor);
    }
    set(C(x));
  }
  for (let x = 0; x < 5; x++) {
    get(C((x + 4) % 5));
    get(C((x + 1) % 5));
    rotl(1);
    code.push(OP.i64Xor);
    set(D);
    for (let y = 0; y < 5; y++) {
      get(A(x + 5 * y));
      get(D);
      code.push(OP.i64Xor);
      set(A(x + 5 * y));
    }
  }
  // ρ and π: B[y, 2x + 3y] = rotl(A[x, y], r[x, y])
  const r = rotations();
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) {
      get(A(x + 5 * y));
      if (r[x + 5 * y] !== 0) rotl(r[x + 5 * y]);
      set(B(y + 5 * ((2 * x + 3 * y) % 5)));
    }
  }
  // χ: A[x, y] = B[x, y] ^ (~B[x + 1, y] & B[x + 2, y])
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      get(B(x + 5 * y));
      get(B(((x + 1) % 5) + 5 * y));
      code.push(OP.i64Const, ...sleb64(-1n), OP.i64Xor);
      get(B(((x + 2) % 5) + 5 * y));
      code.push(OP.i64And, OP.i64Xor);
      set(A(x + 5 * y));
    }
  }
  // ι: A[0, 0] ^= the round's constant (at 200 + round offset)
  get(A(0));
  get(ROUND);
  code.push(OP.i64Load, ...memarg(200), OP.i64Xor);
  set(A(0));
  // The next round, until 24 (192 bytes of constants).
  get(ROUND);
  code.push(OP.i32Const, 8, OP.i32Add, OP.tee, ...uleb(ROUND), OP.i32Const, ...[0xc0, 0x01], OP.i32Ne, OP.brIf, 0);
  code.push(OP.end);
  for (let i = 0; i < 25; i++) code.push(OP.i32Const, 0, OP.get, ...uleb(A(i)), OP.i64Store, ...memarg(lane(i)));
  code.push(OP.end);

  const locals = [2, ...uleb(56), 0x7e, 1, 0x7f];
  const body = [...locals, ...code];
  const constants = roundConstants().flatMap((c) => Array.from({ length: 8 }, (_, i) => Number((c >> BigInt(8 * i)) & 0xffn)));
  const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
  const name = (s) => [...uleb(s.length), ...Buffer.from(s, 'utf8')];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 0, 0]), // one type: () -> ()
    ...section(3, [1, 0]), // one function, of that type
    ...section(5, [1, 0x00, 1]), // one memory, one page
    ...section(7, [2, ...name('memory'), 0x02, 0, ...name('f'), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
    ...section(11, [1, 0x00, OP.i32Const, ...[0xc8, 0x01], OP.end, ...uleb(constants.length), ...constants]), // at byte 200
  ]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(`${Buffer.from(keccakModule()).toString('base64')}\n`);
