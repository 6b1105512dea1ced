/** Resolve once `cond` holds (checked every `everyMs`); reject after `timeoutMs`, naming `what`. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 25): Promise<void> {
  if (!(await holdsWithin(cond, timeoutMs, everyMs))) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Whether `cond` comes to hold within `timeoutMs` (checked every `everyMs`). */
export async function holdsWithin(cond: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return true;
}
