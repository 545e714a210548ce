import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * Every relative link between the README, CONTRIBUTING.md and docs/ resolves: the file exists, and
 * the #anchor (if any) is a heading of that file, slugged as GitHub slugs it. Links to other sites
 * are not followed (no network here).
 */
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('links in the README, CONTRIBUTING.md and docs/', () => {
  for (const file of DOCS) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      expect(brokenLinks(file, text, readDoc)).toEqual([]);
    });
  }

  it('the checker finds a missing file, a missing anchor, and an anchor in another file', () => {
    const files: Record<string, string> = {
      'docs/a.md': '# A\n\n## Where commands send requests\n\n```sh\n# not a heading\n```\n',
    };
    const read = (p: string) => files[p];
    const doc = [
      '[ok](#b) [ok](a.md#where-commands-send-requests) [ok](../README.md)',
      '[gone](nope.md) [bad anchor](a.md#not-a-heading) [bad here](#missing)',
      '`[in code](nowhere.md)` [web](https://example.com/x.md)',
    ].join('\n');
    files['docs/b.md'] = `# B\n\n${doc}\n`;
    expect(brokenLinks('docs/b.md', files['docs/b.md'], (p) => (p === 'README.md' ? '# svc\n' : read(p)))).toEqual([
      'nope.md (no such file)',
      'a.md#not-a-heading (no such heading)',
      '#missing (no such heading)',
    ]);
  });

  it('slugs headings as GitHub does', () => {
    expect(anchors('## The API, with curl\n### Setting up a project (`svc init`)\n#### `svc webhook deliveries list`\n## Errors\n## Errors\n')).toEqual(
      new Set(['the-api-with-curl', 'setting-up-a-project-svc-init', 'svc-webhook-deliveries-list', 'errors', 'errors-1']),
    );
  });
});

/** A file's text by its path from the repository root, or undefined when it is not a file. */
function readDoc(relative: string): string | undefined {
  const full = path.join(ROOT, relative);
  if (!fs.existsSync(full)) return undefined;
  return fs.statSync(full).isFile() ? fs.readFileSync(full, 'utf8') : '';
}

/** The text outside fenced code blocks and inline code, where links and headings live. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, (code) => (code.includes('](') ? '' : code));
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id] of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) ids.add(id!);
  return ids;
}

/** The relative links of `file` (a path from the root) that do not resolve, each with the reason. */
function brokenLinks(file: string, text: string, read: (relative: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto:, …
    const [pathPart, anchor] = target!.split('#') as [string, string | undefined];
    const relative = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
    const content = read(relative);
    if (content === undefined) broken.push(`${target} (no such file)`);
    else if (anchor !== undefined && relative.endsWith('.md') && !anchors(content).has(anchor)) broken.push(`${target} (no such heading)`);
  }
  return broken;
}
