import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message the server took: its envelope, who signed in, and the raw RFC 5322 text. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly user: string | null;
  readonly raw: string;
  /** The Subject header, unfolded and decoded (RFC 2047). */
  readonly subject: string;
  /** The body, decoded (quoted-printable or base64) as UTF-8, line ends as LF. */
  readonly text: string;
}

/** RFC 2047 encoded words (B or Q) in a header value, decoded; whitespace between two of them dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_all, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'),
    );
}

/** The subject and the decoded body of a single-part message as nodemailer writes one. */
export function decodeMail(raw: string): { subject: string; text: string } {
  const cut = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, cut).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(cut + 4);
  const header = (name: string): string => new RegExp(`^${name}: (.*)$`, 'mi').exec(head)?.[1] ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const bytes =
    encoding === 'quoted-printable'
      ? Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1')
      : encoding === 'base64'
        ? Buffer.from(body, 'base64')
        : Buffer.from(body, 'utf8');
  return { subject: decodeWords(header('Subject')), text: bytes.toString('utf8').replace(/\r\n/g, '\n') };
}

/** A real SMTP server (the smtp-server package) on loopback that keeps what it is sent. */
export interface SmtpTestServer {
  readonly url: string;
  readonly messages: readonly ReceivedMail[];
  /** Refuse the next `n` messages with a 451 (a relay that is briefly unavailable). */
  refuse(n: number): void;
  /**
   * Keep the reply to the next message (it is in `messages` at once) until the returned function
   * is called: a relay slow to answer, for a send still in flight.
   */
  hold(): () => void;
  close(): Promise<void>;
}

/**
 * Start it on 127.0.0.1: plain SMTP (no STARTTLS offered, as a loopback relay), AUTH PLAIN/LOGIN
 * allowed without TLS there, and required when `auth` is given.
 */
export async function startSmtpTestServer(auth?: { user: string; pass: string }): Promise<SmtpTestServer> {
  const messages: ReceivedMail[] = [];
  let refusals = 0;
  let held: Promise<void> | null = null;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: auth === undefined,
    logger: false,
    onAuth(a, _session, callback) {
      if (auth && a.username === auth.user && a.password === auth.pass) return callback(null, { user: a.username });
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusals > 0) {
          refusals--;
          const err = Object.assign(new Error('Try again later'), { responseCode: 451 });
          return callback(err);
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({ from, to: session.envelope.rcptTo.map((r) => r.address), user: typeof session.user === 'string' ? session.user : null, raw, ...decodeMail(raw) });
        const wait = held;
        held = null;
        if (wait) void wait.then(() => callback());
        else callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuse: (n) => {
      refusals = n;
    },
    hold: () => {
      let release = (): void => undefined;
      held = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
