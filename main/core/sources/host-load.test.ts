import { execFileSync, spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExecResult, SshConnection } from '../ssh/connection';
import { LOAD_SCRIPT, localLoad, parseLoad, takeLoad, type LoadSample } from './host-load';
import { SshSource } from './ssh-source';

// The host's load read ahead of a request's own script (Linux and macOS, stock tools), and taken
// off the head of its stderr so the request's caller sees only what its script wrote.

/** A real `vm_stat` of a Mac (16 KiB pages). */
const VM_STAT = [
  'Mach Virtual Memory Statistics: (page size of 16384 bytes)',
  'Pages free:                               12345.',
  'Pages active:                            400000.',
  'Pages inactive:                          100000.',
  'Pages speculative:                         2000.',
  'Pages throttled:                              0.',
  'Pages wired down:                         90000.',
  'Pages purgeable:                           3000.',
];

describe('parseLoad', () => {
  it.each([
    ['Linux: /proc/loadavg and MemAvailable', ['load 5.20', 'avail_kb 1258291', 'cores 6'], { load1: 5.2, cores: 6, freeBytes: 1258291 * 1024 }],
    ['macOS: sysctl vm.loadavg and vm_stat', ['load { 2.61 1.90 1.42 }', ...VM_STAT, 'cores 10'], { load1: 2.61, cores: 10, freeBytes: (12345 + 100000 + 2000) * 16384 }],
    ['no free memory said: null, the rest kept', ['load 0.00', 'cores 1'], { load1: 0, cores: 1, freeBytes: null }],
  ])('%s', (_name, lines, want) => {
    expect(parseLoad(lines)).toEqual(want);
  });

  it('says nothing without a load or cores it can believe', () => {
    expect(parseLoad(['cores 4'])).toBeNull();
    expect(parseLoad(['load 1.0', 'cores '])).toBeNull();
    expect(parseLoad(['load 1.0', 'cores 0'])).toBeNull();
    expect(parseLoad(['load ', 'cores 4'])).toBeNull();
  });
});

describe('takeLoad', () => {
  it('takes the block off the head of stderr and leaves what the script wrote', () => {
    expect(takeLoad('LDLOAD\nload 1.5\ncores 2\nLDLOAD.\ncannot stat x\n')).toEqual({ sample: { load1: 1.5, cores: 2, freeBytes: null }, rest: 'cannot stat x\n' });
    expect(takeLoad('LDLOAD\nload 1.5\ncores 2\nLDLOAD.\n')).toEqual({ sample: { load1: 1.5, cores: 2, freeBytes: null }, rest: '' });
  });

  it('leaves stderr alone when it does not start with the block (a script’s own line cannot pose as one later)', () => {
    expect(takeLoad('oops\nLDLOAD\nload 9\ncores 1\nLDLOAD.\n')).toEqual({ sample: null, rest: 'oops\nLDLOAD\nload 9\ncores 1\nLDLOAD.\n' });
    expect(takeLoad('LDLOAD\nload 1\n')).toEqual({ sample: null, rest: 'LDLOAD\nload 1\n' });
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string()), (head, lines) => {
        takeLoad(`LDLOAD\n${lines.join('\n')}\nLDLOAD.\n${head}`);
        takeLoad(head);
      }),
    );
  });
});

describe('LOAD_SCRIPT', () => {
  it.each(['/bin/sh', '/bin/bash'])('runs ahead of a script in %s without touching its stdout or exit code, and reads this host', (shell) => {
    const got = spawnSync(shell, ['-c', `${LOAD_SCRIPT}\nprintf 'bytes'; echo own >&2; exit 3`], { encoding: 'utf8' });
    expect([got.stdout, got.status]).toEqual(['bytes', 3]);
    const { sample, rest } = takeLoad(got.stderr);
    expect(rest).toBe('own\n');
    expect(sample?.cores).toBe(Number(execFileSync('nproc', { encoding: 'utf8' }).trim()));
    expect(sample?.load1).toBeGreaterThanOrEqual(0);
    expect(sample?.freeBytes).toBeGreaterThan(0);
  });

  it('rides on an SSH source’s next request; one that fails leaves the question to the one after', async () => {
    const scripts: string[] = [];
    let fail = true;
    const connection = {
      run: async (script: string): Promise<ExecResult> => {
        scripts.push(script);
        if (fail) throw new Error('link dropped');
        const got = spawnSync('/bin/sh', ['-c', script], { encoding: 'buffer' });
        return { code: got.status, stdout: got.stdout, stderr: got.stderr.toString('utf8') };
      },
    } as unknown as SshConnection;
    const source = new SshSource('runner', connection);
    const heard: (LoadSample | null)[] = [];
    source.loadWith((s) => heard.push(s));
    await expect(source.stat('/')).rejects.toThrow('link dropped');
    fail = false;
    expect((await source.stat('/'))?.isDirectory).toBe(true);
    expect((await source.stat('/'))?.isDirectory).toBe(true);
    expect(scripts.map((s) => s.startsWith(LOAD_SCRIPT))).toEqual([true, true, false]);
    expect(heard).toHaveLength(1);
    expect(heard[0]?.cores).toBeGreaterThanOrEqual(1);
  });

  it('reads this machine from the OS for a local host', () => {
    const s = localLoad();
    expect(s.cores).toBeGreaterThanOrEqual(1);
    expect(s.freeBytes).toBeGreaterThan(0);
  });
});
