export {
  PACK_SERVICE_DRAIN_MS,
  readPackServiceConfig,
  startPackService,
  PackServiceConfig,
  RunningPackService,
} from './pack-service.js';

/**
 * The process: reads the configuration, removes `KINDGI_PACK_SERVICE_TOKEN` from the process
 * environment, boots, serves until SIGTERM (then drains for up to 8 s). Resolves with the exit
 * code: 1 after a `config-invalid` or `boot-failed` line on stderr, 0 after `stopped`. With
 * `KINDGI_PACK_SERVICE_HOLD` set (a supervisor's spare) it first boots what it can without
 * listening and waits for a line on stdin (0 if stdin closes first).
 */
export declare function main(
  argv?: readonly string[],
  env?: Readonly<Record<string, string | undefined>>,
): Promise<number>;
