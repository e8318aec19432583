const KEY = 'vigil.theme';
export type ThemeChoice = 'system' | 'light' | 'dark';

export function themeChoice(): ThemeChoice {
  const stored = localStorage.getItem(KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/** Follows the system setting unless the user picked one; ?theme= overrides for screenshots and links. */
export function applyTheme(choice: ThemeChoice = themeChoice()): void {
  const forced = new URL(location.href).searchParams.get('theme');
  const system = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  const theme = forced === 'light' || forced === 'dark' ? forced : choice === 'system' ? system : choice;
  document.documentElement.dataset.theme = theme;
}

export function setTheme(choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  applyTheme(choice);
}

matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme());
