import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResult } from '../../../shared/contract/search';
import { openDatabase, type Db } from '../../platform/db/open';
import { makeIndexedRepo } from '../../testing/searchRepo';
import { overrideRanking } from './rankingConstants';
import { searchRepository } from './search';

/** A rule file as eslint writes them: one long `create` whose inner functions the chunker cuts into parts. */
function ruleFile(): string {
  const filler = (name: string, n: number) => [`  function ${name}(node) {`, ...Array.from({ length: n }, (_, i) => `    const step${i} = node.body[${i}];`), '    return node;', '  }', ''];
  return [
    'function create(context) {',
    ...filler('isConstructor', 30),
    ...filler('canHaveShorthand', 30),
    ...filler('checkConsistency', 30),
    '  function makeFunctionShorthand(node) {',
    '    const typeParameters = node.value.typeParameters;',
    '    return context.getSourceCode().getText(typeParameters);',
    '  }',
    '',
    ...filler('makeFunctionLongform', 30),
    ...filler('enterFunction', 30),
    ...filler('exitFunction', 30),
    '  return { Property: makeFunctionShorthand };',
    '}',
    '',
    'module.exports = { create };',
    '',
  ].join('\n');
}

/** A session whose public bulk methods hand their rows to one private helper that shares no word with them. */
const SESSION = `class Session:
    def bulk_insert_mappings(self, mapper, mappings):
        """Insert the mappings in bulk."""
        self._persist(mapper, mappings, False)

    def bulk_update_mappings(self, mapper, mappings):
        """Update the mappings in bulk."""
        self._persist(mapper, mappings, True)

    def _persist(self, target, rows, is_update):
        for row in rows:
            self.flushing = True
            target.write(row, is_update)

    def close(self):
        self.flushing = False
`;

/** A long module: one function named by the query, one that matches it weakly, many that do not. */
const HEADERS = [
  'def parse_options_header(value):',
  '    """Parse a header with options: the charset, the boundary."""',
  '    return value.split(";")',
  '',
  ...Array.from({ length: 12 }, (_, i) => [`def unrelated_${i}(value):`, `    return value * ${i}`, '']).flat(),
  'def parse_dict_header(value):',
  '    """Parse a dict header; an empty key raises IndexError."""',
  '    return dict(item.split("=") for item in value.split(","))',
  '',
].join('\n');

/** A response object whose getter and setter of `body` share one name, far apart. */
const RESPONSE = [
  'module.exports = {',
  '  get body() {',
  '    return this._body;',
  '  },',
  '',
  ...Array.from({ length: 40 }, (_, i) => [`  get header${i}() {`, `    return this.headers[${i}];`, '  },', '']).flat(),
  '  set body(val) {',
  '    if (isStream(val)) destroyOriginalStream(this._body);',
  '    this._body = val;',
  '  },',
  '};',
  '',
].join('\n');

/**
 * A dialect whose reflection method parses the table's SQL in a function defined inside it and
 * handed to \`map\` (no call by name): the chunk names the method and its class, not the function.
 */
const DIALECT = `class SQLiteDialect:
    def get_unique_constraints(self, connection, table_name):
        table_sql = self._get_table_sql(connection, table_name)

        def parse_uqs(line):
            match = UNIQUE_PATTERN.match(line.strip())
            return match.group("name") if match else None

        return [name for name in map(parse_uqs, table_sql.splitlines()) if name]

    def _get_table_sql(self, connection, table_name):
        return connection.execute(table_name)

    def get_indexes(self, connection, table_name):
        return connection.execute("pragma index_list")
`;

/** A rule whose handler is named by a selector with spaces, as eslint's are. */
const SELECTOR_RULE = [
  'function create(context) {',
  '  let superCalledInConstructor = false;',
  '  function report(node) {',
  "    context.report({ node, messageId: 'unexpected' });",
  '  }',
  '  return {',
  '    "CallExpression > Super.callee"(node) {',
  '      superCalledInConstructor = true;',
  '      reportSuperOutsideConstructor(node);',
  '    },',
  '    Program(node) {',
  '      report(node);',
  '    },',
  '  };',
  '}',
  '',
  'module.exports = { create };',
  '',
].join('\n');

let db: Db;

beforeAll(async () => {
  const { curatedFile } = await makeIndexedRepo({
    'lib/rules/shorthand.js': ruleFile(),
    'lib/other.js': 'function other(node) {\n  return node;\n}\n',
    'orm/session.py': SESSION,
    'web/http.py': HEADERS,
    'lib/response.js': RESPONSE,
    'dialects/sqlite.py': DIALECT,
    'lib/rules/no-super.js': SELECTOR_RULE,
  });
  db = openDatabase(curatedFile, { readOnly: true });
});

afterAll(() => db?.close());

const symbolsOf = (results: SearchResult[], path: string) => results.find((r) => r.path === path)?.symbols ?? [];

describe('the symbols a result lists (function level, issue #27 item 7)', () => {
  it('takes from a chunk cut out of a long function the inner functions on its lines, the one with the query words first', async () => {
    const results = await searchRepository(db, 'shorthand autofix loses the typeParameters', { mode: 'keyword' });
    const inner = symbolsOf(results, 'lib/rules/shorthand.js').filter((s) => s.name.startsWith('create.'));
    expect(inner[0]?.name).toBe('create.makeFunctionShorthand');
    // Before, every inner function the chunk listed had the chunk's whole score, in reverse order of declaration.
    for (const other of inner.slice(1)) expect(other.score!).toBeLessThan(inner[0]!.score!);
  });

  it('finds the symbol of a name on the chunk\'s lines: the setter, not the getter of the same name', async () => {
    const results = await searchRepository(db, 'destroyOriginalStream when the new value isStream', { mode: 'keyword' });
    const body = symbolsOf(results, 'lib/response.js').filter((s) => s.name === 'body');
    expect(body.map((s) => s.startLine)).toContain(RESPONSE.split('\n').indexOf('  set body(val) {') + 1);
  });

  it("ranks all of one of the best files' chunks, not only those in the search's pool", async () => {
    // A pool of one chunk stands for a large repository, whose pool the other files' chunks fill.
    const restore = overrideRanking({ KEYWORD: { chunkPool: 1 } });
    try {
      const results = await searchRepository(db, 'parse the options header: an empty dict key raises IndexError', { mode: 'keyword' });
      expect(results[0]!.path).toBe('web/http.py');
      expect(symbolsOf(results, 'web/http.py').map((s) => s.name)).toEqual(expect.arrayContaining(['parse_options_header', 'parse_dict_header']));
    } finally {
      restore();
    }
  });

  it('lists a function defined inside a matching method, which its chunk does not name, at 0.9 of the method\'s share', async () => {
    const results = await searchRepository(db, 'sqlite get_unique_constraints misses a UNIQUE constraint when the DDL has tabs', { mode: 'keyword' });
    const symbols = symbolsOf(results, 'dialects/sqlite.py');
    const score = (name: string) => symbols.find((s) => s.name === name)?.score;
    // Before, the nested function was listed only as a callee (here it is not called by name): not at all.
    expect(score('SQLiteDialect.get_unique_constraints.parse_uqs')).toBeCloseTo(0.9 * score('SQLiteDialect.get_unique_constraints')!, 3);
    expect(score('SQLiteDialect.get_indexes') ?? 0).toBeLessThan(score('SQLiteDialect.get_unique_constraints.parse_uqs')!);
  });

  it('finds a chunk\'s symbols whose names hold spaces: the selector handler, not the function around it, takes the chunk', async () => {
    const results = await searchRepository(db, 'superCalledInConstructor stays false after reportSuperOutsideConstructor', { mode: 'keyword' });
    const symbols = symbolsOf(results, 'lib/rules/no-super.js');
    const score = (name: string) => symbols.find((s) => s.name === name)?.score;
    // Before, the list was split at spaces, the handler's name was never found and \`create\` was the innermost.
    expect(score('create."CallExpression > Super.callee"')).toBeGreaterThan(score('create')!);
  });

  it('lists the helper a best unit calls, below its callers, summed over them', async () => {
    const results = await searchRepository(db, 'bulk_insert_mappings and bulk_update_mappings iterate twice', { mode: 'keyword' });
    const symbols = symbolsOf(results, 'orm/session.py');
    const score = (name: string) => symbols.find((s) => s.name === name)?.score;
    expect(score('Session._persist')).toBeGreaterThan(0);
    expect(score('Session._persist')).toBeLessThanOrEqual(score('Session.bulk_insert_mappings')!);
    // A method no best unit calls stays below the helper.
    expect(score('Session.close') ?? 0).toBeLessThan(score('Session._persist')!);
  });
});
