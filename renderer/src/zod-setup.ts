import * as z from 'zod';

// The CSP forbids eval. Without this, zod probes `new Function` (when schemas are built, so this
// module must be imported before any schema module) and the browser reports a CSP violation.
z.config({ jitless: true });
