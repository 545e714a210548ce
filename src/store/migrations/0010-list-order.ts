import type { Kysely } from 'kysely';

// Frozen. Newest-first lists order by (created_at, id), both descending, and page after the cursor
// row's (created_at, id) (CONTRACT §12: equal createdAt by id, on both engines), no longer by `seq`.
// Each list's index ends in (created_at, id) after the columns its WHERE fixes, so a page is still
// one index range read backwards, never a sort: these replace the (…, seq) ones, which nothing else
// reads (a merchant's invoices are still found by merchant_id for the foreign key). Ascending
// columns: both engines scan them backwards, and new rows land at the right edge of each index.
// The same module runs on both engines (registered in postgres/migrations/index.ts too).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('invoices_merchant').execute();
  await db.schema.dropIndex('invoices_partner').execute();
  await db.schema.dropIndex('deliveries_partner').execute();
  await db.schema.createIndex('invoices_merchant_list').on('invoices').columns(['merchant_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('invoices_partner_list').on('invoices').columns(['partner_id', 'environment', 'created_at', 'id']).execute();
  await db.schema.createIndex('deliveries_partner_list').on('deliveries').columns(['partner_id', 'environment', 'created_at', 'id']).execute();
  await db.schema.createIndex('merchants_partner_list').on('merchants').columns(['partner_id', 'environment', 'created_at', 'id']).execute();
}
