// What the lane charts draw, from what the API answers: an event, a payment, a delivery's attempts and
// the retry it has scheduled. Each mark says in words (its title) what its shape and colour show.
import { clockTime, toneOf } from './dom.js';

const ok = (a) => !a.error && a.responseStatus !== null && a.responseStatus >= 200 && a.responseStatus < 300;

export function eventMark(e) {
  return {
    t: Date.parse(e.createdAt),
    kind: 'event',
    shape: 'circle',
    tone: toneOf(e.data.status),
    title: `Event #${e.data.sequence} ${e.type} → ${e.data.status} at ${clockTime(Date.parse(e.createdAt))}`,
    text: `Event #${e.data.sequence} ${e.type} → ${e.data.status}`,
  };
}

export function paymentMark(p, chainName) {
  const what = `${p.amount} ${p.token} on ${chainName}${p.confirmed ? '' : ' (not confirmed)'}`;
  return {
    t: Date.parse(p.createdAt),
    kind: 'payment',
    shape: 'diamond',
    tone: p.confirmed ? 'ok' : 'warn',
    title: `Payment ${what}, tx ${p.txHash}`,
    text: `Payment ${what}`,
    txHash: p.txHash,
  };
}

/** One mark per attempt, and a ring where a retry is scheduled. */
export function attemptMarks(d) {
  const marks = d.attempts.map((a) => {
    const result = a.error ? a.error : `${a.responseStatus}`;
    const text = `Attempt #${a.number} (${a.trigger}) of ${d.eventType} → ${d.target}: ${result} in ${a.durationMs} ms`;
    return {
      t: Date.parse(a.startedAt),
      kind: 'attempt',
      shape: a.trigger === 'manual' ? 'square' : 'circle',
      glyph: ok(a) ? 'check' : 'cross',
      tone: ok(a) ? 'ok' : 'bad',
      title: `${text}, at ${clockTime(Date.parse(a.startedAt))}${a.chaos ? `, chaos: ${a.chaos}` : ''}`,
      text,
    };
  });
  if (d.nextAttemptAt && (d.status === 'retrying' || d.status === 'pending')) {
    const t = Date.parse(d.nextAttemptAt);
    marks.push({
      t,
      kind: 'retry',
      shape: 'ring',
      tone: 'warn',
      title: `Retry of ${d.eventType} scheduled for ${clockTime(t)}`,
      text: `Retry of ${d.eventType} → ${d.target} scheduled`,
    });
  }
  return marks;
}

/** A lane's label for a delivery: its event and where it goes. */
export const deliveryLane = (d) => `${d.eventType.replace(/^invoice\./, '')} → ${d.target}`;
