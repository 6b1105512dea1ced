import { spawn } from 'node:child_process';
import { capacityFixture } from './capacity';
const fx = await capacityFixture();
for (const bin of ['bin/loopdeck.mjs', 'out/cli/loopdeck.mjs']) {
  for (let i = 0; i < 2; i++) {
    const t0 = Date.now();
    const args = [...(process.env.PROF && i === 1 ? ['--cpu-prof', '--cpu-prof-dir=/tmp/ld-prof'] : []), bin, 'serve', '--port', '0', '--config', fx.configPath, '--data', fx.dataDir];
    const child = spawn(process.execPath, args, { env: { ...process.env, HOME: fx.home }, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((ok) => child.stdout.on('data', (c: Buffer) => { if (c.toString().includes('serving at')) ok(); }));
    console.log(bin, Date.now() - t0, 'ms to URL');
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
  }
}
process.exit(0);
