import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { searchRepository } from './search';
import { makeIndexedRepo } from '../../testing/searchRepo';

// The words (port, connect, server, host) fill the connector; the dialect file the issue
// links to and the module it names say little in words.
const CONNECTOR = `class Connector:
    """Connect to a server: host and port, the port of the server, connect timeouts."""

    def connect(self, host, port):
        return (host, port)

    def server_port(self, server):
        return server.port
`;
const PYMSSQL = `def create_args(url):
    return {"dsn": url.host}
`;
const HEADERS = `def parse_options(value):
    return dict(item.split("=") for item in value.split(";"))
`;
const OPTIONS = `class Options:
    """Options of a header: empty options, header options, parse the options of a value."""

    def parse(self, header, value):
        return {header: value}
`;

let db: Db;

beforeAll(async () => {
  const { curatedFile } = await makeIndexedRepo({
    'lib/shop/engine/connector.py': CONNECTOR,
    'lib/shop/dialects/mssql/pymssql.py': PYMSSQL,
    'lib/shop/headers.py': HEADERS,
    'lib/shop/options.py': OPTIONS,
  });
  db = openDatabase(curatedFile, { readOnly: true });
}, 60_000);

afterAll(() => db?.close());

const top = async (query: string) => (await searchRepository(db, query, { limit: 5 }))[0];

describe('files an issue names by a link or a module name (issue #27)', () => {
  it('ranks the file a source-host link points at first', async () => {
    // sqlalchemy #5557: the linked dialect file ranked 18th.
    const result = await top('The port is ignored when I connect to the server: https://github.com/shop/shop/blob/8c9537d3/lib/shop/dialects/mssql/pymssql.py#L96 drops the port of the host.');
    expect(result?.path).toBe('lib/shop/dialects/mssql/pymssql.py');
    expect(result?.why).toContainEqual({ kind: 'named-in-task', detail: { text: 'lib/shop/dialects/mssql/pymssql.py' } });
  });

  it('ranks the module a dotted name starts with first', async () => {
    const result = await top('`shop.headers.parse_options` loses empty options of a header value');
    expect(result?.path).toBe('lib/shop/headers.py');
    expect(result?.why).toContainEqual({ kind: 'named-in-task', detail: { text: 'shop.headers' } });
  });
});
