// The console's colour theme: the operator's choice, kept in localStorage (it survives restarts
// both in a browser on serve mode and in Electron's own profile), applied as `data-theme` on <html>
// where the CSS custom properties pick the palette.

/** The operator's choice: follow the operating system, or force one palette. */
export type ThemeChoice = 'system' | 'light' | 'dark';

/** The choices in the order the toggle shows them. */
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

/** The localStorage key; one per origin, so every serve URL of the same host:port shares it. */
export const THEME_KEY = 'loopdeck.theme';

/** Parse a stored value; anything unknown (or nothing) follows the system. */
export function parseTheme(raw: string | null | undefined): ThemeChoice {
  return raw === 'light' || raw === 'dark' ? raw : 'system';
}

/** The stored choice; storage that throws (disabled, sandboxed) means the system's. */
export function readTheme(): ThemeChoice {
  try {
    return parseTheme(window.localStorage.getItem(THEME_KEY));
  } catch {
    return 'system';
  }
}

/** Apply a choice to the document and remember it. */
export function applyTheme(choice: ThemeChoice, remember = true): void {
  document.documentElement.dataset.theme = choice;
  if (!remember) return;
  try {
    window.localStorage.setItem(THEME_KEY, choice);
  } catch {
    // Not stored: the choice still holds until the window closes.
  }
}

/** Apply the stored choice before the first render, so the console does not flash the wrong palette. */
export function applyStoredTheme(): ThemeChoice {
  const choice = readTheme();
  applyTheme(choice, false);
  return choice;
}
