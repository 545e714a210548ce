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

  /**
   * The route of the most specific pattern that matches: a literal segment beats a parameter at the
   * first place they differ (`/requests/stream` beats `/requests/:requestId` whatever the order they
   * were added in). `allowed` lists the methods of that pattern only.
   */
  lookup(method: string, path: string): Lookup<R> {
    const segments = split(path);
    let best: { entry: Entry<R>; params: Record<string, string> }[] = [];
    for (const entry of this.buckets.get(bucketKey(segments)) ?? []) {
      const params = matchSegments(entry.segments, segments);
      if (!params) continue;
      const order = best[0] ? specificity(entry.segments, best[0].entry.segments) : 1;
      if (order > 0) best = [{ entry, params }];
      else if (order === 0) best.push({ entry, params });
    }
    const hit = best.find((b) => b.entry.method === method);
    if (hit) return { match: { route: hit.entry.route, params: hit.params } };
    return best.length ? { allowed: best.map((b) => b.entry.method) } : null;
  }
}

/** > 0 when `a` is the more specific pattern of two that match one path, < 0 when `b` is, 0 when alike. */
function specificity(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    const literalA = !a[i]!.startsWith(':');
    const literalB = !b[i]!.startsWith(':');
    if (literalA !== literalB) return literalA ? 1 : -1;
  }
  return 0;
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
