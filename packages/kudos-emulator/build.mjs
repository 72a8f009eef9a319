// Builds kudos-emulator (scripts/build-package.mjs): the package's module and the `kudos-emulator`
// command, on kudos-core's build (its declarations import kudos-core's).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPackage } from '../../scripts/build-package.mjs';

await buildPackage(dirname(fileURLToPath(import.meta.url)), { index: 'src/index.ts', cli: 'src/cli.ts' });
