import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../platform/db/open';
import { roundScore } from './details';
import { searchRepository, searchWithMode } from './search';
import { makeIndexedRepo } from '../../testing/searchRepo';

const USERS = `"""User storage."""


class UserRepository:
    """Load and save user records in the database."""

    def get_user_by_id(self, user_id):
        """Return the user with this id, or None."""
        return self.rows.get(user_id)

    def save_user(self, user):
        self.rows[user.id] = user


__all__ = ["UserRepository"]
`;
const ORDERS = `from shop.users import UserRepository


def order_owner(order, repo: UserRepository):
    # get_user_by_id is called for every order; get_user_by_id caches nothing
    owner = repo.get_user_by_id(order.user_id)
    return repo.get_user_by_id(owner.id) if owner else None
`;
const INVOICES = `from shop.pdf_render import render_pdf


def invoice_total(invoice):
    """Sum the invoice lines and apply the invoice tax."""
    return sum(line.amount for line in invoice.lines) * (1 + invoice.tax)


def send_invoice(invoice):
    return render_pdf(invoice_total(invoice))
`;
const PDF = `def render_pdf(amount):
    """Lay out a page and write the PDF bytes."""
    return b"%PDF" + str(amount).encode()
`;
const TAX = `standard = 0.2
reduced = 0.05
`;
const TEST_USERS = `from shop.users import UserRepository


def test_get_user_by_id():
    repo = UserRepository()
    assert repo.get_user_by_id(1) is None
    assert repo.get_user_by_id(2) is None
`;

let db: Db;

beforeAll(async () => {
  const { curatedFile } = await makeIndexedRepo(
    {
      'shop/__init__.py': '',
      'shop/users.py': USERS,
      'shop/orders.py': ORDERS,
      'shop/invoices.py': INVOICES,
      'shop/pdf_render.py': PDF,
      'config/tax_rates.toml': TAX,
      'tests/test_users.py': TEST_USERS,
    },
    [
      ['shop/invoices.py', 'config/tax_rates.toml'],
      ['shop/invoices.py', 'config/tax_rates.toml'],
      ['shop/invoices.py', 'config/tax_rates.toml'],
    ],
  );
  db = openDatabase(curatedFile, { readOnly: true });
});

afterAll(() => db?.close());

describe('searchRepository (keyword)', () => {
  it('ranks the file that defines a symbol above files that only mention it', async () => {
    const results = await searchRepository(db, 'get_user_by_id', { mode: 'keyword' });
    expect(results[0]!.path).toBe('shop/users.py');
    expect(results[0]!.why).toContainEqual({ kind: 'definition', detail: { symbol: 'get_user_by_id' } });
    // Found as a definition and in the best chunk: listed once, qualified by its class.
    const defs = results[0]!.symbols.filter((s) => s.name.endsWith('get_user_by_id'));
    // A definition the query names is worth its whole file's score in the function ranking.
    expect(defs).toEqual([{ name: 'UserRepository.get_user_by_id', kind: 'method', startLine: 7, endLine: 9, score: results[0]!.score }]);
    // The module's __all__ names the class too, but says nothing about where to look.
    const repository = await searchRepository(db, 'user repository', { mode: 'keyword' });
    const users = repository.find((r) => r.path === 'shop/users.py')!;
    expect(users.symbols.map((s) => s.name)).toContain('UserRepository');
    expect(users.symbols.map((s) => s.name)).not.toContain('__all__');
    const paths = results.map((r) => r.path);
    expect(paths).toContain('shop/orders.py');
    expect(paths.indexOf('shop/orders.py')).toBeGreaterThan(0);
  });

  it('finds the definition from a camelCase spelling of a snake_case name', async () => {
    const results = await searchRepository(db, 'getUserById', { mode: 'keyword' });
    expect(results[0]!.path).toBe('shop/users.py');
    expect(results[0]!.why).toContainEqual({ kind: 'definition', detail: { symbol: 'get_user_by_id' } });
  });

  it('demotes test files for queries that are not about tests', async () => {
    const results = await searchRepository(db, 'get_user_by_id', { mode: 'keyword' });
    const paths = results.map((r) => r.path);
    expect(paths.indexOf('tests/test_users.py')).toBeGreaterThan(paths.indexOf('shop/users.py'));
  });

  it('surfaces import neighbours of strong hits, saying why, and leaves out weak co-change neighbours', async () => {
    const results = await searchRepository(db, 'invoice total', { mode: 'keyword' });
    expect(results[0]!.path).toBe('shop/invoices.py');
    const pdf = results.find((r) => r.path === 'shop/pdf_render.py');
    expect(pdf?.why).toContainEqual({ kind: 'imported-by', detail: { path: 'shop/invoices.py' } });
    // The tax table changes with invoices.py, but as a config file (prior × 0.5) its co-change boost
    // falls below the neighbour floor: it is left out (reasons.test.ts has a kept co-change neighbour).
    expect(results.find((r) => r.path === 'config/tax_rates.toml')).toBeUndefined();
    const all = await searchRepository(db, 'invoice total', { mode: 'keyword', limit: 200 });
    expect(all.map((r) => r.path)).not.toContain('config/tax_rates.toml');
  });

  it('returns matching lines with their line numbers', async () => {
    const [top] = await searchRepository(db, 'invoice tax', { mode: 'keyword' });
    expect(top!.lines.length).toBeGreaterThan(0);
    for (const line of top!.lines) expect(INVOICES.split('\n')[line.line - 1]!.trim()).toBe(line.text);
  });

  it('never throws on FTS5 syntax in user input', async () => {
    const nasty = ['"', '*', '(', ')', '-', ':', 'NEAR', 'NEAR(a b)', 'a AND OR NOT', 'path:users', '"unterminated', '^start', '{x y}: z', '', '   ', 'user*', '-user', "user's \"repo\"", '💥'];
    for (const q of nasty) {
      const results = await searchRepository(db, q, { mode: 'keyword' });
      expect(Array.isArray(results)).toBe(true);
    }
    expect((await searchRepository(db, 'path:users', { mode: 'keyword' }))[0]?.path).toBe('shop/users.py');
  });

  it('respects the limit and resolves auto to keyword without vectors', async () => {
    const outcome = await searchWithMode(db, 'user', { limit: 2 });
    expect(outcome.mode).toBe('keyword');
    expect(outcome.results).toHaveLength(2);
  });
});

describe('generated files', () => {
  // A generated table of 80 lines: the head says what it is and who made it.
  const rows = Array.from({ length: 80 }, (_, i) => `    "code${i}": ${i},`);
  const GENERATED = `# Generated by scripts/gen_country_codes.py. DO NOT EDIT.\nCOUNTRY_CODES = {\n${rows.join('\n')}\n}\n`;
  let generated: Db;

  beforeAll(async () => {
    const { curatedFile } = await makeIndexedRepo({
      'shop/__init__.py': '',
      'shop/_country_codes.py': GENERATED,
      'shop/addresses.py': 'from shop._country_codes import COUNTRY_CODES\n\n\ndef postal_label(address):\n    return f"{address.street}\\n{address.city}"\n',
      'scripts/gen_country_codes.py': '"""Write shop/_country_codes.py from the ISO table."""\n\n\ndef main():\n    pass\n',
    });
    generated = openDatabase(curatedFile, { readOnly: true });
  });

  afterAll(() => generated?.close());

  it('are found by the words of their head (name, generator), though not parsed', async () => {
    const file = generated.prepare("select id, skip_reason as skipReason from files where path = 'shop/_country_codes.py'").get() as { id: number; skipReason: string };
    expect(file.skipReason).toBe('generated');
    expect(generated.prepare('select count(*) from symbols where file_id = ?').pluck().get(file.id)).toBe(0);
    const results = await searchRepository(generated, 'update the country codes table', { mode: 'keyword' });
    const hit = results.find((r) => r.path === 'shop/_country_codes.py');
    expect(hit?.why.map((w) => w.kind)).toContain('text-match');
    expect(results.slice(0, 2).map((r) => r.path)).toContain('shop/_country_codes.py');
    // What search holds of it is the head: rows past its first lines are not searchable.
    expect((await searchRepository(generated, 'code10', { mode: 'keyword' })).map((r) => r.path)).toEqual(['shop/_country_codes.py']);
    expect(await searchRepository(generated, 'code79', { mode: 'keyword' })).toEqual([]);
  });
});

describe('roundScore', () => {
  it('rounds to its places, but a positive score below the last place keeps two significant digits instead of reading 0', () => {
    expect(roundScore(0.31850081904919125)).toBe(0.3185);
    expect(roundScore(0.31850081904919125, 3)).toBe(0.319);
    expect(roundScore(0.0000012023298538098824)).toBe(0.0000012);
    expect(roundScore(5.951373340485724e-7, 3)).toBe(6e-7);
    expect(roundScore(0)).toBe(0);
  });
});
