import { localCaller } from '../../rpc/local-caller';
import { TokenCheck } from '../http-guard';
import type { Access } from './access';

/** Serve's default: the per-run token (query, then its cookie) admits the account's own user, an admin. */
export function tokenAccess(token: string): Access {
  const tokens = new TokenCheck(token);
  const caller = localCaller('token');
  return {
    kind: 'token',
    check(req, url) {
      const v = tokens.check(req, url);
      if ('status' in v) return v;
      return v.via === 'query' ? { caller, ambient: false, setCookie: tokens.cookie() } : { caller, ambient: true };
    },
    route: () => false,
  };
}
