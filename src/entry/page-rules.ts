/**
 * The rules the dashboard shares with the server and the CLI, built as one plain ES module
 * (dist/page-rules.js, served at /assets/page-rules.js): which test actions an invoice's state allows
 * and with what amounts (the checkout page's test panel renders the same rule), and durations and
 * the clock's offset written as `svc time` writes them (`+1h1m ahead of real time`).
 */
export { formatClockOffset, formatDuration, parseDuration } from '../domain/duration.js';
export { TEST_ACTION_LABELS, TEST_ACTIONS, testAmount, unavailableActions } from '../domain/test-actions.js';
