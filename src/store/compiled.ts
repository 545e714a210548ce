/**
 * The SQL of the store, compiled at build time: `npm run build` (scripts/build.mjs) replaces this
 * module in dist/ with the statements of src/store/repos/ and the frozen migrations, compiled by
 * `compile.ts`, so that the package never loads kysely. Here, in the sources (tests, `tsc`), it is
 * null: statements are compiled on first use and migrations run through kysely.
 */
export const COMPILED: CompiledSql | null = null;

export interface CompiledSql {
  /** By the key the build gives each statement (`query.ts`, `prepared`). */
  statements: Record<string, CompiledStatement>;
  /** Each migration's statements, in order, by migration name. */
  migrations: Record<string, string[]>;
}

export interface CompiledStatement {
  sql: string;
  /** One per `?`: the name of an argument, or a value the builder wrote into the statement. */
  slots: Slot[];
}

export type Slot = string | { value: unknown };
