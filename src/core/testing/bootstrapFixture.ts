import { createTestRepo } from './gitRepo';

/**
 * Test support: a small Python shop with a known history for `cra bootstrap`. Two commits change a
 * file whose diff uses a name another module defines (a needed neighbour), one does not; two
 * commits are set aside by mining (a typo fix and a release). Dates are fixed, so the history is
 * the same on every run.
 */

const BASE: Record<string, string> = {
  'shop/models.py': `"""Data models of the shop."""\n\nMAX_NAME = 40\n\nclass Customer:\n    def __init__(self, name):\n        self.name = name\n\ndef make_customer(name):\n    return Customer(name)\n`,
  'shop/validate.py': `"""Input validation for customers."""\n\nfrom shop.models import MAX_NAME, make_customer\n\ndef clean_name(name):\n    return name.strip()\n\ndef new_customer(name):\n    return make_customer(clean_name(name))\n`,
  'shop/pricing.py': `"""Prices, taxes and discounts."""\n\nTAX_RATE = 0.2\n\ndef with_tax(amount):\n    return amount * (1 + TAX_RATE)\n\ndef discount(amount, percent):\n    return amount * (1 - percent / 100)\n`,
  'shop/orders.py': `"""Orders and their totals."""\n\nfrom shop.models import Customer\nfrom shop.pricing import with_tax, discount\n\nclass Order:\n    def __init__(self, customer, lines):\n        self.customer = customer\n        self.lines = lines\n\n    def total(self):\n        subtotal = sum(price * qty for price, qty in self.lines)\n        return with_tax(subtotal)\n`,
  'shop/report.py': `"""Sales reports printed for the shop owner."""\n\ndef summary_line(order_count, revenue):\n    return f"{order_count} orders, {revenue:.2f} revenue"\n`,
  'tests/test_orders.py': `from shop.orders import Order\n\ndef test_total():\n    assert Order(None, [(10, 1)]).total() == 12\n`,
  'README.md': '# shop\n\nA tiny shop.\n',
};

/** The commits `cra bootstrap` turns into pairs, oldest first: subject line → changed files. */
export const SHOP_TASKS = {
  limit: 'Reject customer names longer than the limit',
  discount: 'Apply the order discount when computing the order total',
  report: 'Show the average order value in the sales summary line',
} as const;

/** Create the shop repository in `dir` (emptied first). Returns `dir`. */
export function buildShopRepo(dir: string): string {
  const repo = createTestRepo({ dir, author: { name: 'Shop', email: 'shop@example.com' } });
  const steps: Array<[string, Record<string, string>]> = [
    ['Initial import', BASE],
    // Uses MAX_NAME, which shop/models.py (imported by validate.py) defines: models.py is needed.
    [
      `${SHOP_TASKS.limit}\n\nNames over MAX_NAME characters raise ValueError.`,
      { 'shop/validate.py': BASE['shop/validate.py']!.replace('    return name.strip()\n', '    name = name.strip()\n    if len(name) > MAX_NAME:\n        raise ValueError("name too long")\n    return name\n') },
    ],
    ['Fix typo in the README', { 'README.md': '# shop\n\nA tiny shop!\n' }],
    // Calls discount(), which shop/pricing.py defines; shop/models.py is imported too, but the diff uses none of its names.
    [
      `${SHOP_TASKS.discount}`,
      {
        'shop/orders.py': BASE['shop/orders.py']!.replace('    def __init__(self, customer, lines):\n        self.customer = customer\n        self.lines = lines\n', '    def __init__(self, customer, lines, percent=0):\n        self.customer = customer\n        self.lines = lines\n        self.percent = percent\n').replace('        return with_tax(subtotal)\n', '        return with_tax(discount(subtotal, self.percent))\n'),
      },
    ],
    ['Release 1.1.0', { 'README.md': '# shop\n\nA tiny shop! Version 1.1.0.\n' }],
    // Touches only its own file's names: no neighbour is needed.
    [`${SHOP_TASKS.report}`, { 'shop/report.py': BASE['shop/report.py']!.replace('    return f"{order_count} orders, {revenue:.2f} revenue"\n', '    average = revenue / order_count if order_count else 0\n    return f"{order_count} orders, {revenue:.2f} revenue, {average:.2f} average"\n') }],
  ];
  steps.forEach(([message, files], i) => {
    repo.writeFiles(files);
    repo.commit(message, `2024-02-01T10:${String(i * 3).padStart(2, '0')}:00Z`);
  });
  return dir;
}
