import type { OptionSpec } from '../spec.js';

export const idempotencyOption: OptionSpec = {
  flags: '--idempotency-key <key>',
  description: 'Idempotency-Key header (default: a fresh UUID, printed with --verbose)',
};

export const listOptions: OptionSpec[] = [
  { flags: '--limit <n>', description: 'how many (1–100, default 20)', parse: 'positive-int' },
  { flags: '--starting-after <id>', description: 'the last id of the previous page' },
];
