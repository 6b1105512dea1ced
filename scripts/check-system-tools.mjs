#!/usr/bin/env node
// The first step of `npm test`: are the system tools the tests run there (system-tools.mjs)?
// When one is missing it stops at once with one message naming each and the apt-get line, rather
// than letting the suite fail minutes later in ENOENTs and skips. As root with apt-get (a fresh
// CI machine, `.ci/run`) it installs the missing packages first, unless LOOPDECK_NO_INSTALL is set.
import { spawnSync } from 'node:child_process';
import { missingMessage, missingTools, onPath, packagesFor } from './system-tools.mjs';

const env = process.env;
// Whether to act as root (install with apt-get, or say `sudo`): the account's uid, unless
// LOOPDECK_CHECK_AS_ROOT says 1 or 0 (its test runs both paths as any user, with a stand-in apt-get).
const asRoot = env.LOOPDECK_CHECK_AS_ROOT;
const root = asRoot === '1' || asRoot === '0' ? asRoot === '1' : process.getuid?.() === 0;

/** Run apt-get with `args`, its output on stderr; true when it exits 0. */
function aptGet(aptPath, args) {
  const run = spawnSync(aptPath, args, { stdio: ['ignore', 2, 2], env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (run.error) console.error(`npm test: ${aptPath} ${args.join(' ')}: ${run.error.message}`);
  return run.status === 0;
}

let missing = missingTools(env);
if (missing.length > 0) {
  const apt = onPath('apt-get', env.PATH);
  const noInstall = env.LOOPDECK_NO_INSTALL !== undefined && env.LOOPDECK_NO_INSTALL !== '' && env.LOOPDECK_NO_INSTALL !== '0';
  // A tool an override variable points at is not fixed by a package: only Debian's paths and PATH are.
  const installable = missing.filter((m) => !m.overridden);
  if (root && apt && !noInstall && installable.length > 0) {
    const packages = packagesFor(installable);
    console.error(`npm test: installing ${packages.join(' ')} (missing: ${installable.map((m) => m.name).join(', ')})`);
    if (aptGet(apt, ['update', '-qq']) && aptGet(apt, ['install', '-y', '-qq', '--no-install-recommends', ...packages])) missing = missingTools(env);
    else console.error(`npm test: apt-get could not install ${packages.join(' ')} (see its output above)`);
  }
}
if (missing.length > 0) {
  console.error(missingMessage(missing, { root }));
  process.exit(1);
}
