/**
 * A small router: exact segments and `:name` parameters. Knowing every method of a path lets it
 * tell a wrong method (405, with `Allow`) from an unknown route (404), as CONTRACT §2 asks.
 */
export interface Match<R> {
  route: R;
  params: Record<string, string>;
}

export type Lookup<R> = { match: Match<R> } | { allowed: string[] } | null;

interface Entry<R> {
  method: string;
  segments: string[];
  route: R;
}

export class Router<R> {
  private readonly entries: Entry<R>[] = [];

  add(method: string, path: string, route: R): void {
    this.entries.push({ method, segments: split(path), route });
  }

  lookup(method: string, path: string): Lookup<R> {
    const segments = split(path);
    const allowed: string[] = [];
    for (const entry of this.entries) {
      const params = matchSegments(entry.segments, segments);
      if (!params) continue;
      if (entry.method === method) return { match: { route: entry.route, params } };
      allowed.push(entry.method);
    }
    return allowed.length ? { allowed } : null;
  }
}

function split(path: string): string[] {
  return path.split('/').filter(Boolean);
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | null {
  if (pattern.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const a = actual[i]!;
    if (p.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(a);
      } catch {
        return null;
      }
      params[p.slice(1)] = value;
    } else if (p !== a) return null;
  }
  return params;
}
