import { defineOptions } from '../spec.js';

export const idempotencyOptions = defineOptions([
  {
    flags: '--idempotency-key <key>',
    description: 'Idempotency-Key header (default: a fresh UUID, printed with --verbose)',
  },
]);

export const listOptions = defineOptions([
  { flags: '--limit <n>', description: 'how many (1–100, default 20)', parse: 'positive-int' },
  { flags: '--starting-after <id>', description: 'the last id of the previous page' },
]);
