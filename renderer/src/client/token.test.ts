import { describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY, isRemembered, resolveToken, urlWithoutToken, wsUrl, type TokenStorage } from './token';

function memory(initial: Record<string, string> = {}): TokenStorage & { data: Record<string, string> } {
  const data = { ...initial };
  return { data, getItem: (k) => data[k] ?? null, setItem: (k, v) => void (data[k] = v) };
}

describe('resolveToken', () => {
  it('takes the token from the query and remembers it', () => {
    const s = memory();
    expect(resolveToken('?token=abc&x=1', s)).toBe('abc');
    expect(s.data[TOKEN_STORAGE_KEY]).toBe('abc');
  });

  it('falls back to the remembered token after a reload without the query', () => {
    expect(resolveToken('', memory({ [TOKEN_STORAGE_KEY]: 'kept' }))).toBe('kept');
  });

  it('prefers a new query token over the remembered one', () => {
    const s = memory({ [TOKEN_STORAGE_KEY]: 'old' });
    expect(resolveToken('?token=new', s)).toBe('new');
    expect(s.data[TOKEN_STORAGE_KEY]).toBe('new');
  });

  it('survives storage that throws, and no storage at all', () => {
    const broken: TokenStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
    };
    expect(resolveToken('?token=t', broken)).toBe('t');
    expect(resolveToken('', broken)).toBeNull();
    expect(resolveToken('', null)).toBeNull();
  });
});

describe('wsUrl', () => {
  it('uses ws for http and wss for https, on the page host, with the token encoded', () => {
    expect(wsUrl({ protocol: 'http:', host: '127.0.0.1:4173' }, 'a b')).toBe('ws://127.0.0.1:4173/ws?token=a%20b');
    expect(wsUrl({ protocol: 'https:', host: 'deck.lan' }, 't')).toBe('wss://deck.lan/ws?token=t');
  });
});

describe('urlWithoutToken', () => {
  const at = (search: string, hash = '', pathname = '/') => urlWithoutToken({ pathname, search, hash });

  it('removes the token and keeps the path', () => {
    expect(at('?token=abc', '', '/deck/')).toBe('/deck/');
  });

  it('keeps other parameters verbatim and in order, and the hash', () => {
    expect(at('?a=1&token=abc&b=x%20y+z', '#loops')).toBe('/?a=1&b=x%20y+z#loops');
    expect(at('?token=abc&view=loops')).toBe('/?view=loops');
  });

  it('removes every token parameter, including an encoded name and an empty value', () => {
    expect(at('?token=a&x=1&%74oken=b&token')).toBe('/?x=1');
    expect(at('?token=', '#h')).toBe('/#h');
  });

  it('returns null when there is no token to remove', () => {
    expect(at('')).toBeNull();
    expect(at('?')).toBeNull();
    expect(at('?tokens=1&mytoken=2', '#token=3')).toBeNull();
  });

  it('does not trip over malformed escapes', () => {
    expect(at('?%E0%A4%A=1&token=t')).toBe('/?%E0%A4%A=1');
  });
});

describe('isRemembered', () => {
  it('is true only when storage holds exactly that token', () => {
    expect(isRemembered(memory({ [TOKEN_STORAGE_KEY]: 't' }), 't')).toBe(true);
    expect(isRemembered(memory({ [TOKEN_STORAGE_KEY]: 'old' }), 't')).toBe(false);
    expect(isRemembered(null, 't')).toBe(false);
    const broken: TokenStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {},
    };
    expect(isRemembered(broken, 't')).toBe(false);
  });
});
