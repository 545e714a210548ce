/**
 * Local mode adds a listener beside the partner's webhook. When both point at the same URL, the app
 * gets every event twice, signed once with the webhook's secret and once with the listener's, and
 * whichever copy its secret does not match fails verification: a confusing first hour. listen says
 * so when it starts.
 */
import type { ThrowingClient } from '../client/throwing.js';
import { readWebhook } from './restore.js';

/** The warning for an enabled webhook at the same URL as `forwardTo`, or null (also when it cannot be read). */
export async function sameTargetWarning(client: ThrowingClient, forwardTo: string): Promise<string | null> {
  let webhook: Awaited<ReturnType<typeof readWebhook>>;
  try {
    webhook = await readWebhook(client);
  } catch {
    return null; // Best effort: listen works without knowing.
  }
  if (!webhook?.enabled || !sameUrl(webhook.url, forwardTo)) return null;
  return (
    `your webhook (svc webhook get) also delivers to ${forwardTo}: every event arrives there twice, signed with two different secrets, ` +
    "and the copy your app's secret does not match fails verification. Pause the webhook while you listen (`svc webhook set --disable`), " +
    'or forward to another URL.'
  );
}

/** Equal as URLs, with localhost, 127.0.0.1 and [::1] taken as one host. */
export function sameUrl(a: string, b: string): boolean {
  const norm = (s: string) => {
    try {
      const u = new URL(s);
      if (u.hostname === 'localhost' || u.hostname === '[::1]' || /^127\./.test(u.hostname)) u.hostname = '127.0.0.1';
      return u.href;
    } catch {
      return s;
    }
  };
  return norm(a) === norm(b);
}
