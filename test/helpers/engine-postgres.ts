// Setup file of the *-postgres projects (vitest.config.ts): this worker's test emulators, and the
// `svc` processes its tests spawn, use PostgreSQL (test/helpers/postgres-database.ts).
process.env.TEST_STORE_ENGINE = 'postgres';
