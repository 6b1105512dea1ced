/**
 * A stand-in for the app that only keeps an SSH link with the folder watcher on it, for tests
 * that kill "the app" many times (starting it takes a fraction of `loopdeck serve`'s time).
 * Usage: node --import tsx testing/watch-driver.ts '{"port":…,"user":…,"key":…,"knownHosts":…,"dirs":[…]}'
 * It prints `connected` once the link is up and the watcher was asked for, then runs until killed.
 */
import { SshSource } from '../main/core/sources/ssh-source';
import { SshHost } from '../main/core/ssh/ssh-host';
import { Store } from '../main/core/store/store';
import '../main/core/engine/migrations'; // installs the database schema Store.open uses
import { isolatedSshEnv } from './ssh-fixture';

interface DriverArgs {
  readonly port: number;
  readonly user: string;
  readonly key: string;
  readonly knownHosts: string;
  readonly dirs: readonly string[];
}

const args = JSON.parse(process.argv[2] ?? '{}') as DriverArgs;
const host = new SshHost(
  'runner',
  { ssh: `${args.user}@127.0.0.1:${args.port}`, identityFile: args.key, knownHosts: args.knownHosts },
  { store: Store.open(':memory:'), ...isolatedSshEnv() },
);
host.connection.start();
await host.connection.ready(30_000);
const source = new SshSource('runner', host.connection);
source.watch(args.dirs, () => undefined);
// As the engine's polls do: a watcher that could not start, or ended, is started again (watch()
// does nothing while one runs for these folders).
const again = setInterval(() => source.watch(args.dirs, () => undefined), 1000);
console.log('connected');
const stop = (): void => {
  clearInterval(again);
  source.unwatch();
  host.connection.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
