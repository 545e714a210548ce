import { isNode, LineCounter, parseDocument } from 'yaml';
import type * as z from 'zod';
import { ConfigError } from '../errors.js';
import { errorMessage } from '../domain/caught.js';

/** One thing wrong in a config file: where (file, line, field) and what. */
export interface ConfigProblem {
  file: string;
  /** 1-based; null when the file is code (svc.config.mjs) or the field is not written in it. */
  line: number | null;
  /** Dotted, with list indexes (`chains.test[0]`); empty for the file as a whole. */
  field: string;
  message: string;
}

/** `svc.config.json:4: chains.test[0]: …`: how a problem reads, alone or in a list. */
export function describeConfigProblem(p: ConfigProblem): string {
  return `${p.file}${p.line ? `:${p.line}` : ''}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

/**
 * A config file with every problem found in it (the way fixtures files report theirs), so that a
 * fix-run-fix loop does not go one mistake at a time. `field` is the first problem's, as before;
 * `--json` prints `problems` as a list.
 */
export class ConfigFileError extends ConfigError {
  constructor(
    file: string,
    readonly problems: ConfigProblem[],
  ) {
    const first = problems[0]!;
    super(file, first.field, first.message);
    this.message =
      problems.length === 1
        ? describeConfigProblem(first)
        : `${file}: ${problems.length} problems\n${problems.map((p) => `  ${describeConfigProblem(p)}`).join('\n')}`;
  }
}

/** Every issue zod found, with a union's issues replaced by those of the branch the value was meant for. */
export function flattenIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): { path: PropertyKey[]; message: string }[] {
  const out: { path: PropertyKey[]; message: string }[] = [];
  for (const issue of issues) {
    const at = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length) {
      // The branch that got furthest into the value ([5] is meant as a list, not as "all").
      const depth = (branch: readonly z.core.$ZodIssue[]) => Math.max(...branch.map((i) => i.path.length + (i.code === 'custom' ? 0.5 : 0)));
      const best = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0]!;
      // No branch got in ("foo" for "all" or a list): the union's own message says what it takes.
      if (depth(best) > 0) {
        out.push(...flattenIssues(best, at));
        continue;
      }
    }
    out.push({ path: at, message: issue.message });
  }
  return out;
}

export function formatPath(segments: readonly PropertyKey[]): string {
  return segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : `${i === 0 ? '' : '.'}${String(s)}`)).join('');
}

/**
 * Line numbers of fields in a JSON or YAML file (YAML's parser reads JSON too), parsed only when a
 * problem needs one. A field that is not written (a missing one) is placed at its nearest parent.
 */
export function lineFinder(source: string | undefined, prefix: readonly (string | number)[] = []): (at: readonly PropertyKey[]) => number | null {
  if (source === undefined) return () => null;
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter });
  return (at) => {
    const path = [...prefix, ...at.map((s) => (typeof s === 'number' ? s : String(s)))];
    for (let n = path.length; n >= 0; n -= 1) {
      const node = doc.getIn(path.slice(0, n), true);
      if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
    }
    return null;
  };
}

/**
 * Why a JSON or YAML config file does not parse, once, with its line and column: cosmiconfig's own
 * message repeats the file's path and quotes the text around the mistake, and YAML's adds a code
 * frame. Null when the file is neither (a module that throws): its own message is the best there is.
 */
export function syntaxProblem(file: string, source: string): { at: string; reason: string } | null {
  const looksJson = /\.json$/i.test(file) || (/(^|[\\/])\.svcrc$/.test(file) && /^\s*[[{]/.test(source)) || /package\.json$/i.test(file);
  if (looksJson) {
    try {
      JSON.parse(source);
      return null;
    } catch (error) {
      const message = errorMessage(error);
      const at = /at position (\d+)/.exec(message);
      const where = at ? position(source, Number(at[1])) : position(source, source.length);
      const reason = message.replace(/ in JSON at position \d+.*$/s, '').replace(/,? ".*" is not valid JSON$/s, '');
      return { at: where, reason: `not valid JSON: ${reason}` };
    }
  }
  if (/\.ya?ml$/i.test(file) || /(^|[\\/])\.svcrc$/.test(file)) {
    const errors = parseDocument(source).errors;
    if (!errors.length) return null;
    const pos = errors[0]!.linePos?.[0];
    const reason = errors[0]!.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return { at: pos ? `${pos.line}:${pos.col}` : '', reason: `not valid YAML: ${reason}` };
  }
  return null;
}

function position(source: string, offset: number): string {
  const before = source.slice(0, offset).split('\n');
  return `${before.length}:${before.at(-1)!.length + 1}`;
}
