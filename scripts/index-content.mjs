#!/usr/bin/env node
// What an index stores, as a fingerprint per table: `node scripts/index-content.mjs <curated.sqlite>
// [dump-folder]` prints the row count and SHA-256 of every table the indexer writes (every row and
// column in id order; file mtimes and run timestamps left out), of the FTS5 indexes' logical content
// (every term instance: fts5vocab 'instance', which does not depend on how the index was segmented)
// and of one ranked query list per FTS table. Two builds of the same repository store the same index
// when the outputs are equal (issue #25: performance work must not change what is stored). With a
// dump folder, each table is also written there as one JSON row per line, to diff what differs.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [file, dumpDir] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/index-content.mjs <curated.sqlite> [dump-folder]\n');
  process.exit(2);
}
const Database = createRequire(import.meta.url)('better-sqlite3');
const db = new Database(file, { readonly: true });
if (dumpDir) mkdirSync(dumpDir, { recursive: true });

/** Hash (and optionally dump) the rows of a query, one JSON line each. */
function fingerprint(name, sql, ...params) {
  const hash = createHash('sha256');
  const lines = dumpDir ? [] : null;
  let count = 0;
  for (const row of db.prepare(sql).raw().iterate(...params)) {
    const line = JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? String(value) : Buffer.isBuffer(value) ? value.toString('hex') : value));
    hash.update(line).update('\n');
    lines?.push(line);
    count++;
  }
  if (lines) writeFileSync(join(dumpDir, `${name}.jsonl`), `${lines.join('\n')}\n`);
  process.stdout.write(`${name.padEnd(36)} ${String(count).padStart(9)}  ${hash.digest('hex').slice(0, 16)}\n`);
}

const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '%fts%' order by name").pluck().all();
for (const table of tables) {
  const columns = db.pragma(`table_info("${table}")`).map((c) => c.name).filter((c) => c !== 'mtime_ms' && c !== 'indexed_at');
  const order = columns.map((c) => `"${c}"`).join(', ');
  const where = table === 'index_meta' ? " where key != 'indexed_at'" : '';
  fingerprint(table, `select ${order} from "${table}"${where} order by ${order}`);
}
for (const fts of ['chunks_fts', 'paths_fts']) {
  db.exec(`create virtual table if not exists temp.${fts}_instances using fts5vocab(main, '${fts}', 'instance')`);
  fingerprint(`${fts} (term instances)`, `select term, doc, col, offset from temp.${fts}_instances order by term, doc, col, offset`);
}
for (const term of ['decoder', 'json*', 'thread pool', 'parse url', 'socket timeout']) {
  fingerprint(`chunks_fts match "${term}"`, 'select rowid, round(rank, 6) from chunks_fts where chunks_fts match ? order by rank, rowid limit 200', term);
}
fingerprint('paths_fts match "test"', "select rowid from paths_fts where paths_fts match 'test' order by rank, rowid limit 200");
db.close();
