import type { CommandModule } from '../context';
import { registerServe } from './serve';

/** Every command of the CLI, in the order `cra --help` lists them. */
export const commandModules: CommandModule[] = [registerServe];
