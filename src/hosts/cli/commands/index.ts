import type { CommandModule } from '../context';
import { registerInit } from './init';
import { registerSetup } from './setupCommand';
import { registerLogs } from './logs';
import { registerModels } from './models';
import { registerEval } from './evalCommand';
import { registerIndex } from './indexCommand';
import { registerSearch } from './searchCommand';
import { registerChat } from './chatCommand';
import { registerPlan } from './planCommand';
import { registerRetrieve } from './retrieveCommand';
import { registerServe } from './serve';
import { registerBootstrap } from './bootstrapCommand';
import { registerReview } from './reviewCommand';
import { registerSummarize } from './summarizeCommand';
import { registerEnrich } from './enrichCommand';
import { registerSolve } from './solveCommand';
import { registerTraining } from './trainingCommands';
import { registerPipelines } from './pipelinesCommand';
import { registerMcp } from './mcpCommand';
import { registerInstallCli } from './installCli';

/** Every command of the CLI, in the order `cra --help` lists them (one per line, so additions merge). */
export const commandModules: CommandModule[] = [
  registerInit,
  registerSetup,
  registerServe,
  registerMcp,
  registerIndex,
  registerEval,
  registerSearch,
  registerChat,
  registerRetrieve,
  registerSummarize,
  registerPlan,
  registerSolve,
  registerReview,
  registerModels,
  registerLogs,
  registerBootstrap,
  registerEnrich,
  registerTraining,
  registerPipelines,
  registerInstallCli,
];
