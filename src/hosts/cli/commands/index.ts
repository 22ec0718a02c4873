import type { CommandModule } from '../context';
import { registerEval } from './evalCommand';
import { registerIndex } from './indexCommand';
import { registerSearch } from './searchCommand';
import { registerServe } from './serve';

/** Every command of the CLI, in the order `cra --help` lists them. */
export const commandModules: CommandModule[] = [registerServe, registerIndex, registerEval, registerSearch];
