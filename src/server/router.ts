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
  /** Entries by segment count and first segment: a lookup only tries routes of the same shape. */
  private readonly buckets = new Map<string, Entry<R>[]>();

  add(method: string, path: string, route: R): void {
    const segments = split(path);
    const key = bucketKey(segments);
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = []));
    bucket.push({ method, segments, route });
  }

  lookup(method: string, path: string): Lookup<R> {
    const segments = split(path);
    const allowed: string[] = [];
    for (const entry of this.buckets.get(bucketKey(segments)) ?? []) {
      const params = matchSegments(entry.segments, segments);
      if (!params) continue;
      if (entry.method === method) return { match: { route: entry.route, params } };
      allowed.push(entry.method);
    }
    return allowed.length ? { allowed } : null;
  }
}

// Every route's first segment is a literal (`v1`, `__emulator`, `checkout`, …), so it can index.
function bucketKey(segments: string[]): string {
  return `${segments.length}:${segments[0] ?? ''}`;
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
