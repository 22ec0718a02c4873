/** Test support: plans for the retrieval fixture (src/core/testing/retrievalFixture.ts). */
import type { Plan } from '../../shared/contract/plans';

/** A valid plan for the fixture: a new lexer, the tokenizer built on it, the parser last. */
export const GOOD_PLAN: Plan = {
  task_summary: 'Keep newline tokens by moving lexing into a new lexer module.',
  affected_files: [
    { path: 'calc/lexer.py', role: 'create', changes: [{ symbol: 'lex', action: 'add', description: 'A lexer that yields number, operator and newline tokens.', depends_on: [], depended_by: ['calc/tokenizer.py:tokenize'] }] },
    { path: 'calc/tokenizer.py', role: 'modify', changes: [{ symbol: 'tokenize', action: 'modify', description: 'Delegate to lex so newlines are kept.', depends_on: ['calc/lexer.py:lex'], depended_by: [] }] },
    { path: 'calc/parser.py', role: 'modify', changes: [{ symbol: 'Parser.expression', action: 'modify', description: 'Skip newline tokens between expressions.', depends_on: ['calc/tokenizer.py:tokenize'], depended_by: [] }] },
  ],
  execution_order: ['calc/lexer.py', 'calc/tokenizer.py', 'calc/parser.py'],
  rationale: 'A separate lexer keeps tokenize small; the parser must then tolerate the new token.',
};
