/**
 * Syntax colours readable on the console's backgrounds: CodeMirror's default palette is made for
 * white, so each colour keeps its hue and saturation and has its lightness moved (darker in the
 * light theme, lighter in the dark one) until it has the WCAG AA contrast axe asks for against the
 * theme's panel colour, the closer of its two backgrounds (styles.css).
 */
const PANEL = { light: '#f6f8fa', dark: '#151b23' } as const;
const AA = 4.6;

function parseHex(color: string): [number, number, number] | null {
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(color);
  const long = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  const parts = short ? short.slice(1).map((d) => d + d) : long?.slice(1);
  return parts ? (parts.map((h) => parseInt(h, 16) / 255) as [number, number, number]) : null;
}

function toHsl([r, g, b]: [number, number, number]): [number, number, number] {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return [h / 6, s, l];
}

function fromHsl([h, s, l]: [number, number, number]): string {
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    const v = x < 1 / 6 ? p + (q - p) * 6 * x : x < 1 / 2 ? q : x < 2 / 3 ? p + (q - p) * (2 / 3 - x) * 6 : p;
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(h + 1 / 3)}${channel(h)}${channel(h - 1 / 3)}`;
}

/** The colour moved into the readable band for the theme; anything that is not a hex colour is kept. */
export function readable(color: string, theme: 'light' | 'dark'): string {
  const rgb = parseHex(color);
  if (!rgb) return color;
  const [h, s, l] = toHsl(rgb);
  const step = theme === 'dark' ? 0.02 : -0.02;
  let lightness = l;
  let result = color;
  while (contrast(result, PANEL[theme]) < AA && lightness >= 0 && lightness <= 1) {
    lightness += step;
    result = fromHsl([h, s, Math.min(1, Math.max(0, lightness))]);
  }
  return result;
}

/** WCAG relative luminance contrast of two hex colours (for the tests). */
export function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = parseHex(hex)!.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [
      number,
      number,
      number,
    ];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}
