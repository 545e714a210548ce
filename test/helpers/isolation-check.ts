import fs from 'node:fs';
import path from 'node:path';

/** The first `.svc/dev.json` in `dir` or a folder above it (the CLI finds a running `svc dev` there), or null. */
export function devStateAbove(dir: string): string | null {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const file = path.join(d, '.svc', 'dev.json');
    if (fs.existsSync(file)) return file;
    if (path.dirname(d) === d) return null;
  }
}

/**
 * What svc writes in a home folder (a dev.json, a profile), with each file's size and time: a change
 * there is a write to that HOME. `.cache/svc` is left out: every svc on this machine, not only the
 * tests', writes its compile cache there, and a guard must not fail on what others do.
 */
export function homeFootprint(home: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of ['.svc', '.config/svc']) {
    const p = path.join(home, rel);
    const entries = fs.existsSync(p) ? fs.readdirSync(p, { recursive: true, withFileTypes: true }) : null;
    out[rel] =
      entries === null
        ? 'absent'
        : entries
            .map((e) => {
              const f = path.join(e.parentPath, e.name);
              const st = fs.statSync(f, { throwIfNoEntry: false });
              return `${path.relative(p, f)}:${st?.size}:${st?.mtimeMs}`;
            })
            .sort()
            .join('|');
  }
  return out;
}
