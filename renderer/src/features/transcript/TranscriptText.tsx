import { memo, type CSSProperties } from 'react';
import { parseAnsi, type SpanColor, type SpanStyle } from '../../../../shared/transcript-text';

// A transcript line drawn from its styled spans (shared/transcript-text.ts parses it): SGR colours
// as the theme's 16-colour palette (CSS variables, so both themes stay readable) or as given for
// 256-colour and 24-bit ones; neutralised sequences and controls as dimmed placeholder text. Only
// text nodes are made: nothing in a transcript can become markup, a link or a script.

const CUBE = [0, 95, 135, 175, 215, 255];

/** The CSS colour of an SGR colour. */
export function cssColor(c: SpanColor): string {
  if (c.kind === 'rgb') return `rgb(${c.r}, ${c.g}, ${c.b})`;
  if (c.index < 16) return `var(--ansi-${c.index})`;
  if (c.index >= 232) {
    const v = 8 + (c.index - 232) * 10;
    return `rgb(${v}, ${v}, ${v})`;
  }
  const i = c.index - 16;
  return `rgb(${CUBE[Math.floor(i / 36)]}, ${CUBE[Math.floor(i / 6) % 6]}, ${CUBE[i % 6]})`;
}

function styleOf(s: SpanStyle): CSSProperties | undefined {
  if (!s.fg && !s.bg && !s.bold && !s.dim && !s.italic && !s.underline) return undefined;
  return {
    ...(s.fg ? { color: cssColor(s.fg) } : {}),
    ...(s.bg ? { backgroundColor: cssColor(s.bg) } : {}),
    ...(s.bold ? { fontWeight: 700 } : {}),
    ...(s.dim ? { opacity: 0.65 } : {}),
    ...(s.italic ? { fontStyle: 'italic' } : {}),
    ...(s.underline ? { textDecoration: 'underline' } : {}),
  };
}

/** Characters of a line drawn at most: a 1 MiB line would cost the page a megabyte-wide layout per row; Copy takes it whole. */
export const MAX_DRAWN_CHARS = 10_000;

/** One line's text, styled. */
export const TranscriptText = memo(function TranscriptText({ text, cut }: { text: string; cut: boolean }) {
  const { spans } = parseAnsi(text.length > MAX_DRAWN_CHARS ? text.slice(0, MAX_DRAWN_CHARS) : text);
  const more = text.length - MAX_DRAWN_CHARS;
  return (
    <>
      {spans.map((s, i) =>
        s.placeholder ? (
          <span key={i} className="tx-ph" title="A control or escape sequence, shown instead of run">
            {s.text}
          </span>
        ) : (
          <span key={i} style={styleOf(s.style)}>
            {s.text}
          </span>
        ),
      )}
      {more > 0 ? (
        <span className="tx-cut" data-testid="transcript-long">
          {' '}
          [+{more.toLocaleString('en')} characters not drawn; Copy takes the whole line]
        </span>
      ) : null}
      {cut ? (
        <span className="tx-cut" data-testid="transcript-cut">
          {' '}
          [line cut at 1 MiB]
        </span>
      ) : null}
    </>
  );
});
