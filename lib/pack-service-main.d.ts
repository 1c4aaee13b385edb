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
 * code: 1 after a `config-invalid` or `boot-failed` line on stderr, 0 after `stopped`.
 */
export declare function main(
  argv?: readonly string[],
  env?: Readonly<Record<string, string | undefined>>,
): Promise<number>;
