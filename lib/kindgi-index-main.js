// `@kindgi/handler-runtime-native/kindgi-index-main`: runs `kindgi-index` with the process's
// arguments on import and sets the exit code (it never calls process.exit).
import { main } from './indexer/cli.js';

process.exitCode = await main(process.argv.slice(2));
