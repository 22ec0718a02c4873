import { c, cpp } from './cfamily';
import { go, rust } from './goRust';
import { csharp, java } from './javaCSharp';
import { python } from './python';
import type { LanguageSpec } from './spec';
import type { ParsedLanguage } from './types';
import { javascript, tsx, typescript } from './typescript';

/** The extraction spec of every parsed language. */
export const SPECS: Record<ParsedLanguage, LanguageSpec> = { python, typescript, tsx, javascript, go, java, csharp, rust, c, cpp };
