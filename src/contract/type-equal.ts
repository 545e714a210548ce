/**
 * `true` only when A and B are the same type (not merely assignable either way): the compile-time
 * check that a hand-written wire type (kept for its doc comments, see testing-types.ts) and the schema
 * the server validates with describe the same shape. Use: `const ok: Equal<z.output<typeof s>, T> = true;`.
 */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
