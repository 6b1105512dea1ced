// The page's first script, an entry of its own (renderer/vite.config.ts puts it before the main
// bundle): it opens the serve-mode socket and asks for the first paint's data while the browser
// still fetches and evaluates the rest. Keep it tiny: everything it imports loads before it runs.
import { openEarlySocket } from './client/early-socket';

openEarlySocket();
