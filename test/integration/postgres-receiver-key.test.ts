/**
 * A delivery's receiver (src/domain/receiver.ts; issue 40: the cap on attempts in flight is per
 * receiver, not per exact URL) is one rule written three times: in JavaScript for the dispatcher's
 * counts, and as SQL in each engine's claims. The three must agree on every URL, odd ones included
 * (a listener's forwardTo need not be a URL at all), or the cap would count one receiver twice.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { RECEIVER_SQL_POSTGRES, RECEIVER_SQL_SQLITE, receiverOf } from '../../src/domain/receiver.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres.js';

const server: PostgresServer = await startPostgres();
const client = new pg.Client({ connectionString: await server.createDatabase() });
await client.connect();
afterAll(() => client.end());

const URLS = [
  'http://host:8080/hooks?n=1#x',
  'http://host:8080/hooks?n=2',
  'HTTP://Host:8080',
  'https://a.B.example.com/x/y',
  'http://h?q=1',
  'http://h#frag',
  'http://user:pw@H:1/p',
  'http://[::1]:3000/hooks',
  'http://hÄ.example/x',
  'ws://h:1',
  'http://',
  'http:/x',
  'a:b://x/y',
  'listener',
  '',
  'http://h//double',
  `http://long.example/${'p'.repeat(2000)}`,
];

describe('the receiver of a webhook URL', () => {
  it('is its scheme and authority, ASCII lower-cased, the same in JavaScript, SQLite and PostgreSQL', async () => {
    expect(receiverOf('HTTP://Host:8080/hooks?n=1#x')).toBe('http://host:8080');
    expect(receiverOf('http://host:8080/a')).toBe(receiverOf('http://HOST:8080?n=2'));
    const lite = new Database(':memory:');
    const inSqlite = lite.prepare(`SELECT ${RECEIVER_SQL_SQLITE} AS r FROM (SELECT ? AS url)`).pluck();
    const differ: string[] = [];
    for (const url of URLS) {
      const js = receiverOf(url);
      const sqlite = inSqlite.get(url);
      const postgres = (await client.query(`SELECT ${RECEIVER_SQL_POSTGRES} AS r FROM (SELECT $1::text AS url) AS s`, [url])).rows[0].r;
      if (sqlite !== js || postgres !== js) differ.push(`${JSON.stringify(url).slice(0, 60)}: js ${js.slice(0, 40)}, sqlite ${sqlite}, postgres ${postgres}`);
    }
    lite.close();
    expect(differ).toEqual([]);
  });
});
