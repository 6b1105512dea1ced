#!/usr/bin/env node
// `npm run bench`: the performance figures (bench/run.ts), run through tsx like the CLI.
// `npm run bench -- --json` also writes bench/results.json; `--only 1,3` runs some figures;
// `--quick` shortens the timed runs (for trying the harness, not for the figures).
import { register } from 'tsx/esm/api';

register();
await import('../bench/run.ts');
