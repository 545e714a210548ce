/**
 * Request schemas are built on first use, not when the module loads: building every zod schema of
 * the contract took ~30 ms of a fresh process's start, and a process that serves one create needs
 * one of them (bench #12, #13, #16; docs/performance.md).
 */

/** A value made by `make` the first time it is asked for, then kept. */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

export type Built<T extends Record<string, () => unknown>> = { readonly [K in keyof T]: ReturnType<T[K]> };

/**
 * An object whose properties are built by their thunk when first read, then kept. They are
 * enumerable, so `Object.entries` (the OpenAPI document) builds and lists them all.
 */
export function lazyRecord<T extends Record<string, () => unknown>>(thunks: T): Built<T> {
  const record = {} as Record<string, unknown>;
  for (const [name, make] of Object.entries(thunks)) {
    Object.defineProperty(record, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value = make();
        Object.defineProperty(record, name, { value, enumerable: true, writable: false, configurable: false });
        return value;
      },
    });
  }
  return record as Built<T>;
}
