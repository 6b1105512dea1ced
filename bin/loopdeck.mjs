#!/usr/bin/env node
// The `loopdeck` command: runs the TypeScript CLI straight from the checkout through tsx, so
// `npx loopdeck ...` works right after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../main/cli.ts');
