import { hostPath, ORIGIN_BOUND_S, runnerScript, type RunnerAsk } from './runner-probe';

// What a pre-flight asks of one host, in ONE script run over the host's one shell, however many
// loops are on it: for each loop, whether its runs folder and clone exist and are writable, and
// their free room from one `df -Pk` for both paths (stock on GNU and BSD: POSIX output, 1024-byte
// blocks, one line an operand, in order); then, in the same script, whether its scheduler entry is
// installed and its clone's origin answers (runner-probe.ts).

/** What the host said about one folder. */
export interface PathAnswer {
  readonly path: string;
  readonly exists: boolean;
  readonly writable: boolean;
  /** From `df -Pk`; null when the folder does not exist or df said nothing for it. */
  readonly df: { readonly totalBytes: number; readonly availableBytes: number; readonly mount: string } | null;
}

/**
 * The script for groups of folders (a loop's runs folder and clone): one `df` a group; with the
 * loops' runner asks (by the same index), their scheduler and origin checks, origin bounded to
 * `boundS` seconds.
 */
export function probeScript(groups: readonly (readonly string[])[], asks: readonly (RunnerAsk | undefined)[] = [], boundS: number = ORIGIN_BOUND_S): string {
  const lines = ['LC_ALL=C; export LC_ALL', "d() { if [ -d \"$1\" ]; then if [ -w \"$1\" ]; then echo 'D w'; else echo 'D r'; fi; else echo 'D -'; fi; }"];
  groups.forEach((paths, i) => {
    const words = paths.map(hostPath);
    lines.push(`printf '@G %s\\n' ${i}`);
    for (const w of words) lines.push(`d ${w}`);
    lines.push(['set --', ...words.map((w) => `[ -d ${w} ] && set -- "$@" ${w}`), `[ $# -gt 0 ] && df -Pk -- "$@" 2>/dev/null | sed '1d;s/^/F /'`].join('; '));
  });
  lines.push(...runnerScript(asks, boundS), 'exit 0');
  return lines.join('\n');
}

const DF_LINE = /^F (.*?)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)%\s+(.*)$/;

/** Parse the script's output: each group's answers, in the order of its paths. */
export function parseProbe(stdout: string, groups: readonly (readonly string[])[]): PathAnswer[][] {
  const sections = new Map<number, string[]>();
  let current: string[] | null = null;
  for (const line of stdout.split('\n')) {
    const g = /^@G (\d+)$/.exec(line);
    if (g) {
      current = [];
      sections.set(Number(g[1]), current);
    } else if (current && line !== '') current.push(line);
  }
  return groups.map((paths, i) => {
    const out = sections.get(i) ?? [];
    const kinds = out.filter((l) => l.startsWith('D ')).map((l) => l.slice(2));
    const dfs = out.map((l) => DF_LINE.exec(l)).filter((m): m is RegExpExecArray => m !== null);
    let next = 0;
    return paths.map((path, j): PathAnswer => {
      const kind = kinds[j];
      const exists = kind === 'w' || kind === 'r';
      // df prints one line per existing folder, in the order they were given.
      const m = exists ? dfs[next++] : undefined;
      return {
        path,
        exists,
        writable: kind === 'w',
        df: m ? { totalBytes: Number(m[2]) * 1024, availableBytes: Number(m[4]) * 1024, mount: m[6] ?? '' } : null,
      };
    });
  });
}
