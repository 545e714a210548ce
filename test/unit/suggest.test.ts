import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../src/domain/suggest.js';
import { INVOICE_EVENT_TYPES } from '../../src/webhooks/envelope.js';

describe('did you mean (closest choice)', () => {
  it('edit distance counts insertions, deletions, substitutions and adjacent transpositions', () => {
    expect(editDistance('paid', 'paid')).toBe(0);
    expect(editDistance('payed', 'paid')).toBe(2);
    expect(editDistance('fials', 'fails')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the closest event type for a typo, nothing for another word', () => {
    expect(closest('invoice.payed', INVOICE_EVENT_TYPES)).toBe('invoice.paid');
    expect(closest('invoice.expird', INVOICE_EVENT_TYPES)).toBe('invoice.expired');
    expect(closest('invoice.overpayed', INVOICE_EVENT_TYPES)).toBe('invoice.overpaid');
    expect(closest('invoice.refunded', INVOICE_EVENT_TYPES)).toBeUndefined();
    expect(closest('foo', ['bar', 'baz'])).toBeUndefined();
  });

  it('ignores case and breaks ties on the common prefix', () => {
    expect(closest('payed', ['CREATED', 'PAID', 'EXPIRED'])).toBe('PAID');
    expect(closest('fsh', ['bash', 'zsh', 'fish'])).toBe('fish');
  });
});
