import type { JournalEntry } from '../../contract/testing-types.js';
import type { Violation } from '../contract/exchange.js';
import { DEFAULT_JOURNAL_SIZE, Journal, type JournalQuery, type JournalRecord } from '../../server/journal/journal.js';

/** A journal entry of the proxy: the emulator's entry, and what the contract checker found. */
export type ProxyJournalEntry = JournalEntry & { violations: Violation[] };

/**
 * The proxy's request journal: the emulator's own ring (src/server/journal/, its filters, pages and
 * masking), each entry with the violations of its exchange beside it, kept as long as the entry is.
 */
export class ProxyJournal {
  private readonly journal: Journal;
  private readonly violations = new Map<string, Violation[]>();

  constructor(readonly capacity = DEFAULT_JOURNAL_SIZE) {
    this.journal = new Journal(capacity);
  }

  add(record: JournalRecord, violations: Violation[]): void {
    this.journal.add(record);
    this.violations.delete(record.id);
    this.violations.set(record.id, violations);
    // The ring forgets its oldest entry; so does this map (insertion order is arrival order).
    while (this.violations.size > this.capacity) this.violations.delete(this.violations.keys().next().value!);
  }

  page(query: JournalQuery): { data: ProxyJournalEntry[]; hasMore: boolean } | null {
    const page = this.journal.page(query);
    return page && { data: page.data.map((e) => this.with(e)), hasMore: page.hasMore };
  }

  get(id: string): ProxyJournalEntry | null {
    const entry = this.journal.get(id);
    return entry && this.with(entry);
  }

  clear(): number {
    this.violations.clear();
    return this.journal.clear();
  }

  private with(entry: JournalEntry): ProxyJournalEntry {
    return { ...entry, violations: this.violations.get(entry.id) ?? [] };
  }
}
