/**
 * `cra logs | head`: once the reader of stdout (or stderr) has gone, a write fails with EPIPE, and
 * Node turns that into an unhandled 'error' event and a stack trace. The reader wanted no more
 * output, so the command ends there, quietly and successfully, as command-line tools do. Any
 * other stream error still surfaces.
 */
export function exitQuietlyOnClosedPipe(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(0);
    });
  }
}
