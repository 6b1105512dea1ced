import { useState } from 'react';
import { applyTheme, readTheme, THEME_CHOICES, type ThemeChoice } from '../ui/theme';

const LABEL: Readonly<Record<ThemeChoice, string>> = { system: 'System', light: 'Light', dark: 'Dark' };
const HINT: Readonly<Record<ThemeChoice, string>> = {
  system: 'Follow the operating system’s light or dark setting',
  light: 'Always light',
  dark: 'Always dark',
};

/** System / light / dark, in the header; the choice is kept across restarts. */
export function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice>(readTheme);
  const pick = (next: ThemeChoice) => {
    applyTheme(next);
    setChoice(next);
  };
  return (
    <div className="theme-toggle" role="group" aria-label="Theme" data-testid="theme-toggle">
      {THEME_CHOICES.map((c) => (
        <button
          key={c}
          type="button"
          className={c === choice ? 'on' : undefined}
          aria-pressed={c === choice}
          title={HINT[c]}
          data-testid={`theme-${c}`}
          onClick={() => pick(c)}
        >
          {LABEL[c]}
        </button>
      ))}
    </div>
  );
}
