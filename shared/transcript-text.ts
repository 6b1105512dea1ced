/**
 * How a transcript line is shown: ANSI SGR styling kept as styled spans, every other escape or
 * control sequence neutralised into visible placeholder text, tabs expanded. One rule for the
 * renderer's transcript view and the CLI's `loopdeck log` (which uses `stripEscapes`).
 *
 * The scan is linear in the line's length whatever it holds: a sequence is read to its end once,
 * parameters past MAX_PARAMS are not interpreted, and a placeholder shows at most
 * MAX_PLACEHOLDER characters of what it replaced.
 */

/** A colour: one of the 256 palette entries (0–7 normal, 8–15 bright) or a 24-bit one. */
export type SpanColor = { readonly kind: 'palette'; readonly index: number } | { readonly kind: 'rgb'; readonly r: number; readonly g: number; readonly b: number };

/** The SGR attributes in force for a span; null colours are the theme's defaults. */
export interface SpanStyle {
  readonly fg: SpanColor | null;
  readonly bg: SpanColor | null;
  readonly bold: boolean;
  readonly dim: boolean;
  readonly italic: boolean;
  readonly underline: boolean;
}

/**
 * A run of text with one style. `placeholder` spans stand for a neutralised sequence or control
 * character (`␛[?25l`, `␀`): show them as text, set apart (dimmed), never interpret them.
 */
export interface TextSpan {
  readonly text: string;
  readonly style: SpanStyle;
  readonly placeholder: boolean;
}

/** The style of unstyled text. */
export const PLAIN_STYLE: SpanStyle = { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false };

/** Tab stops every this many columns. */
export const TAB_WIDTH = 8;
/** SGR parameters interpreted per sequence; the rest of a longer list is ignored. */
export const MAX_PARAMS = 32;
/** The most characters of a neutralised sequence a placeholder shows (then `…`). */
export const MAX_PLACEHOLDER = 64;

const ESC = 0x1b;
const BEL = 0x07;

/** The visible picture of a C0 control (U+2400 + code), DEL (U+2421), or a C1 control (`␛` + its 7-bit form). */
export function controlPicture(code: number): string {
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  if (code >= 0x80 && code <= 0x9f) return `\u241b${String.fromCharCode(code - 0x40)}`;
  return String.fromCharCode(code);
}

// Bidi marks, embeddings, overrides and isolates and the line/paragraph separators (as in
// shared/unsafe-text): shown as their code point, never applied.
function isInvisibleFormat(c: number): boolean {
  return c === 0x061c || c === 0x200e || c === 0x200f || c === 0x2028 || c === 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/** One lexical piece of a line: text, a control character, or an escape sequence. */
type Token =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'control'; readonly code: number }
  | { readonly kind: 'sgr'; readonly params: string }
  | { readonly kind: 'sequence'; readonly raw: string };

/** Where a control string (OSC, DCS, SOS, PM, APC) ends: at BEL (OSC only), ESC \ or U+009C; the line's end when unterminated. */
function stringEnd(s: string, from: number, belEnds: boolean): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x9c || (belEnds && c === BEL)) return i + 1;
    if (c === ESC && s.charCodeAt(i + 1) === 0x5c) return i + 2;
  }
  return s.length;
}

/** Where a CSI sequence whose parameters start at `from` ends (after its final byte); the line's end when unterminated. */
function csiEnd(s: string, from: number): { end: number; final: number } {
  let i = from;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c >= 0x40 && c <= 0x7e) return { end: i + 1, final: c };
    if (c < 0x20 || c > 0x3f) return { end: i, final: -1 };
    i++;
  }
  return { end: i, final: -1 };
}

function* tokens(s: string): Generator<Token> {
  let start = 0;
  let i = 0;
  const flush = function* (): Generator<Token> {
    if (i > start) yield { kind: 'text', text: s.slice(start, i) };
  };
  while (i < s.length) {
    const c = s.charCodeAt(i);
    const isControl = c < 0x20 || (c >= 0x7f && c <= 0x9f);
    if (!isControl && !isInvisibleFormat(c)) {
      i++;
      continue;
    }
    if (c === 0x09) {
      i++;
      continue;
    }
    yield* flush();
    let end = i + 1;
    if (c === ESC || c === 0x9b || c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) {
      // The introducer as a 7-bit escape or an 8-bit C1 control.
      const intro = c === ESC ? s.charCodeAt(i + 1) : c - 0x40;
      const body = c === ESC ? i + 2 : i + 1;
      if (c === ESC && Number.isNaN(intro)) {
        yield { kind: 'control', code: ESC };
      } else if (intro === 0x5b /* [ */) {
        const { end: e, final } = csiEnd(s, body);
        end = e;
        const params = s.slice(body, final === -1 ? e : e - 1);
        if (final === 0x6d /* m */ && /^[0-9;]*$/.test(params)) yield { kind: 'sgr', params };
        else yield { kind: 'sequence', raw: s.slice(i, end) };
      } else if (intro === 0x5d /* ] */ || intro === 0x50 || intro === 0x58 || intro === 0x5e || intro === 0x5f) {
        end = stringEnd(s, body, intro === 0x5d);
        yield { kind: 'sequence', raw: s.slice(i, end) };
      } else if (c === ESC) {
        // ESC, intermediates (0x20–0x2F), a final byte (0x30–0x7E): ESC ( B, ESC 7, ESC =.
        let j = body - 1;
        while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
        const f = s.charCodeAt(j);
        end = f >= 0x30 && f <= 0x7e ? j + 1 : j;
        yield end === i + 1 ? { kind: 'control', code: ESC } : { kind: 'sequence', raw: s.slice(i, end) };
      }
    } else if (isControl) {
      yield { kind: 'control', code: c };
    } else {
      yield { kind: 'sequence', raw: s[i] ?? '' };
    }
    i = end;
    start = end;
  }
  yield* flush();
}

/** A neutralised sequence as visible text: every control in it pictured, cut to MAX_PLACEHOLDER characters. */
function placeholderText(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length && out.length < MAX_PLACEHOLDER; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) out += controlPicture(c);
    else if (isInvisibleFormat(c)) out += `<U+${c.toString(16).toUpperCase().padStart(4, '0')}>`;
    else out += raw[i];
  }
  return raw.length > MAX_PLACEHOLDER ? `${out.slice(0, MAX_PLACEHOLDER)}…` : out;
}

function paletteColor(n: number | undefined): SpanColor | null {
  return n !== undefined && Number.isInteger(n) && n >= 0 && n <= 255 ? { kind: 'palette', index: n } : null;
}

function byte(n: number | undefined): number | null {
  return n !== undefined && Number.isInteger(n) && n >= 0 && n <= 255 ? n : null;
}

/** The style after an SGR sequence's parameters (`1;31`, `38;5;208`, `48;2;10;20;30`, empty = reset). */
export function applySgr(style: SpanStyle, params: string): SpanStyle {
  const list = params === '' ? [0] : params.split(';', MAX_PARAMS).map((p) => (p === '' ? 0 : Number(p)));
  let s = { ...style };
  for (let k = 0; k < list.length; k++) {
    const p = list[k] ?? 0;
    if (p === 0) s = { ...PLAIN_STYLE };
    else if (p === 1) s.bold = true;
    else if (p === 2) s.dim = true;
    else if (p === 3) s.italic = true;
    else if (p === 4) s.underline = true;
    else if (p === 22) [s.bold, s.dim] = [false, false];
    else if (p === 23) s.italic = false;
    else if (p === 24) s.underline = false;
    else if (p >= 30 && p <= 37) s.fg = paletteColor(p - 30);
    else if (p >= 90 && p <= 97) s.fg = paletteColor(p - 90 + 8);
    else if (p >= 40 && p <= 47) s.bg = paletteColor(p - 40);
    else if (p >= 100 && p <= 107) s.bg = paletteColor(p - 100 + 8);
    else if (p === 39) s.fg = null;
    else if (p === 49) s.bg = null;
    else if (p === 38 || p === 48) {
      const mode = list[k + 1];
      let color: SpanColor | null = null;
      if (mode === 5) {
        color = paletteColor(list[k + 2]);
        k += 2;
      } else if (mode === 2) {
        const [r, g, b] = [byte(list[k + 2]), byte(list[k + 3]), byte(list[k + 4])];
        color = r !== null && g !== null && b !== null ? { kind: 'rgb', r, g, b } : null;
        k += 4;
      } else k += 1;
      if (color) {
        if (p === 38) s.fg = color;
        else s.bg = color;
      }
    }
    // Anything else (blink, reverse, fonts) is not shown, and not an error either.
  }
  return s;
}

function sameStyle(a: SpanStyle, b: SpanStyle): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A transcript line as styled spans: SGR applied, every other escape sequence and control
 * character a placeholder span, tabs expanded to TAB_WIDTH-column stops (columns counted in
 * characters of what is shown). `style` is the style in force at the line's start (SGR carries
 * across lines in a terminal; the view passes the previous line's `endStyle`, or PLAIN_STYLE).
 */
export function parseAnsi(line: string, style: SpanStyle = PLAIN_STYLE): { spans: TextSpan[]; endStyle: SpanStyle } {
  const spans: TextSpan[] = [];
  let column = 0;
  let current = style;
  const push = (text: string, placeholder: boolean): void => {
    if (text === '') return;
    column += [...text].length;
    const last = spans[spans.length - 1];
    if (last && last.placeholder === placeholder && sameStyle(last.style, current)) spans[spans.length - 1] = { ...last, text: last.text + text };
    else spans.push({ text, style: current, placeholder });
  };
  for (const t of tokens(line)) {
    if (t.kind === 'sgr') current = applySgr(current, t.params);
    else if (t.kind === 'sequence') push(placeholderText(t.raw), true);
    else if (t.kind === 'control') push(controlPicture(t.code), true);
    else {
      const parts = t.text.split('\t');
      parts.forEach((part, k) => {
        if (k > 0) push(' '.repeat(TAB_WIDTH - (column % TAB_WIDTH)), false);
        push(part, false);
      });
    }
  }
  return { spans, endStyle: current };
}

/**
 * A transcript line for a terminal (`loopdeck log` without --raw): every escape sequence removed,
 * every other control character shown as its picture (a stray one must not reach the terminal),
 * tabs kept.
 */
export function stripEscapes(line: string): string {
  let out = '';
  for (const t of tokens(line)) {
    if (t.kind === 'text') out += t.text;
    else if (t.kind === 'control') out += controlPicture(t.code);
    else if (t.kind === 'sequence' && t.raw.length === 1) out += placeholderText(t.raw);
  }
  return out;
}
