/**
 * Server-rendered HTML with escaping by default: every value interpolated into `html\`…\`` is escaped
 * unless it is already SafeHtml. Anything from a request or the database goes through here.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Markup we generated ourselves (an SVG from the QR library). */
export const trusted = (markup: string) => new SafeHtml(markup);

/** JSON for a `<script type="application/json">` block: `<` escaped so `</script>` cannot close it. */
export function jsonForScript(value: unknown): SafeHtml {
  return new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
}

export interface PageShell {
  title: string;
  body: SafeHtml;
  script?: string;
}

/** The shared shell: neutral, white-label, readable on a phone, on svc's one design (theme.css); no third-party anything. */
export function page({ title, body, script }: PageShell): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${title}</title>
<link rel="stylesheet" href="/assets/theme.css">
<link rel="stylesheet" href="/assets/pages.css">
</head>
<body>
<main class="card">
${body}
</main>
${script ? html`<script src="/assets/${script}" defer></script>` : ''}
</body>
</html>
`.value;
}
