import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Style } from '../output/style.js';
import { DEFAULT_DATABASE, DEFAULT_PORT } from '../../config/defaults.js';
import { SEARCH_PLACES } from '../../config/load.js';
import { parseDuration } from '../../domain/duration.js';
import { UserError } from '../../errors.js';
import { packageRoot } from '../../package-root.js';
import type { Context } from '../context.js';
import type { Handler, Input } from '../spec.js';
import type { initSpec } from './top.js';

/**
 * templates/ sits next to src/ and dist/ alike (both are one level below the package root, and this
 * file is at the same depth in each), so the same relative URL works from the sources and the build.
 */
export const TEMPLATES_DIR = path.join(packageRoot(), 'templates');

export const CONFIG_FILE = 'svc.config.json';
export const FIXTURES_FILE = 'svc.fixtures.yaml';
export const RECEIVER_FILE = 'webhook-receiver.mjs';

interface Answers {
  port: number;
  database: string;
  invoiceLifetime: string;
  fixtures: boolean;
  receiver: boolean;
}

/**
 * `svc init`: asks on a terminal (port, database, invoice lifetime, which examples), then writes the
 * files. `--yes`, or no terminal (or --json), takes the defaults without asking; without --yes it says
 * so. Files that exist are left alone unless --force: nothing is written if any would be overwritten.
 */
export const initCommand: Handler<typeof initSpec> = async ({ options }, ctx) => {
  const answers: Answers = {
    port: DEFAULT_PORT,
    database: DEFAULT_DATABASE,
    invoiceLifetime: '60m',
    fixtures: options.fixtures === true,
    receiver: options.receiver === true,
  };
  const notes: string[] = [];
  if (options.yes !== true) {
    if (ctx.interactive) Object.assign(answers, await ask(answers, options));
    else notes.push('Not a terminal: took the defaults without asking (pass --yes to say so).');
  }

  const files = plan(answers);
  const clashing = files.filter((f) => fs.existsSync(path.join(ctx.cwd, f.name))).map((f) => f.name);
  if (clashing.length && options.force !== true) {
    throw new UserError(
      `${clashing.join(', ')} already ${clashing.length === 1 ? 'exists' : 'exist'}; nothing was written`,
      'file_exists',
      'Pass --force to overwrite.',
    );
  }
  for (const f of files) fs.writeFileSync(path.join(ctx.cwd, f.name), f.content, { mode: f.mode ?? 0o644 });
  notes.push(...competingConfigs(ctx));

  const names = files.map((f) => f.name);
  return { data: { files: names }, human: (c) => summary(names, answers, c), notes };
};

async function ask(defaults: Answers, options: Input<typeof initSpec>['options']): Promise<Partial<Answers>> {
  const { input, confirm } = await import('@inquirer/prompts');
  const port = await input({
    message: 'Port for svc dev:',
    default: String(defaults.port),
    validate: (v) => (/^\d+$/.test(v) && Number(v) <= 65535) || 'a port number, 0–65535 (0 picks a free one)',
  });
  const database = await input({ message: 'SQLite database file:', default: defaults.database, validate: (v) => v.trim() !== '' || 'a file path' });
  const invoiceLifetime = await input({
    message: 'Invoice lifetime:',
    default: defaults.invoiceLifetime,
    validate: (v) => (parseDuration(v) ?? 0) >= 1000 || 'a duration of at least 1s: 90s, 15m, 2h, 1d',
  });
  const fixtures = options.fixtures === true || (await confirm({ message: `Write an example fixtures file (${FIXTURES_FILE})?`, default: defaults.fixtures }));
  const receiver =
    options.receiver === true || (await confirm({ message: `Write an example webhook receiver (${RECEIVER_FILE})?`, default: defaults.receiver }));
  return { port: Number(port), database: database.trim(), invoiceLifetime: invoiceLifetime.trim(), fixtures, receiver };
}

function plan(answers: Answers): { name: string; content: string; mode?: number }[] {
  const template: unknown = JSON.parse(readTemplate(CONFIG_FILE));
  // svc's own template: not an object means a broken install, not a user's mistake.
  if (typeof template !== 'object' || template === null || Array.isArray(template)) throw new Error(`templates/${CONFIG_FILE} is not a JSON object`);
  const config = { ...template, port: answers.port, database: answers.database, invoiceLifetime: answers.invoiceLifetime };
  return [
    { name: CONFIG_FILE, content: `${prettyJson(config)}\n` },
    ...(answers.fixtures ? [{ name: FIXTURES_FILE, content: readTemplate(FIXTURES_FILE) }] : []),
    ...(answers.receiver ? [{ name: RECEIVER_FILE, content: readTemplate(RECEIVER_FILE), mode: 0o755 }] : []),
  ];
}

/** Indented JSON, with lists of plain values on one line (`["5s", "5m"]`), as people write it. */
function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/\[\s+([^[\]{}]*?)\s+\]/g, (_, inner: string) => `[${inner.split(/,\s+/).join(', ')}]`);
}

function readTemplate(name: string): string {
  return fs.readFileSync(path.join(TEMPLATES_DIR, name), 'utf8');
}

/** cosmiconfig takes the first config it finds in a folder; svc.config.json comes after these. */
function competingConfigs(ctx: Context): string[] {
  const before = SEARCH_PLACES.slice(0, SEARCH_PLACES.indexOf(CONFIG_FILE));
  const found = before.filter((name) => {
    const file = path.join(ctx.cwd, name);
    if (!fs.existsSync(file)) return false;
    if (name !== 'package.json') return true;
    try {
      const pkg: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      return typeof pkg === 'object' && pkg !== null && 'svc' in pkg && pkg.svc !== undefined;
    } catch {
      return false;
    }
  });
  return found.map(
    (name) => `note: ${name === 'package.json' ? 'the "svc" key of package.json' : name} is read before ${CONFIG_FILE}; remove it or merge the two.`,
  );
}

/**
 * What to run next, as lines a shell takes as they are: each step's purpose as a comment, then its
 * commands, none wider than 80 columns (the webhook command continues on a second line).
 */
function summary(files: string[], answers: Answers, c: Style): string {
  const secret = `whsec_${randomBytes(12).toString('hex')}`;
  const steps: [string, string[]][] = [[`start the emulator on port ${answers.port} (reads ${CONFIG_FILE})`, ['svc dev']]];
  if (answers.fixtures) steps.push(['or start it and seed the example data', [`svc dev --fixtures ${FIXTURES_FILE}`]]);
  if (answers.receiver) {
    steps.push(['in a second terminal: run the receiver on port 3000', [`WEBHOOK_SECRET=${secret} node ${RECEIVER_FILE}`]]);
    steps.push([
      'in a third: point the webhook at it, and watch it fulfil',
      ['svc webhook set --url http://localhost:3000/hooks \\', `  --secret ${secret}`, 'svc trigger invoice.paid'],
    ]);
  }
  return [
    `Wrote ${files.join(', ')}`,
    '',
    c.bold('Next:'),
    ...steps.flatMap(([what, commands]) => [c.dim(`  # ${what}`), ...commands.map((line) => `  ${line}`)]),
    '',
    c.dim('Add .svc/ to .gitignore: it holds the local database and keys.'),
  ].join('\n');
}
