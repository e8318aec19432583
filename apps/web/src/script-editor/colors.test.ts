import { describe, expect, it } from 'vitest';
import { contrast, readable } from './colors.ts';

// CodeMirror's default syntax palette and the console's two backgrounds (styles.css).
const PALETTE = ['#404740', '#708', '#219', '#164', '#a11', '#e40', '#00f', '#30a', '#085', '#167', '#256', '#00c'];
const PALETTE_MORE = ['#940', '#f00'];
const BACKGROUNDS = { light: ['#ffffff', '#f6f8fa'], dark: ['#0d1117', '#151b23'] } as const;

describe('readable syntax colours', () => {
  it('every colour reaches AA contrast (4.5) on both backgrounds of each theme', () => {
    for (const theme of ['light', 'dark'] as const)
      for (const color of [...PALETTE, ...PALETTE_MORE])
        for (const bg of BACKGROUNDS[theme])
          expect(contrast(readable(color, theme), bg), `${color} in ${theme} on ${bg}`).toBeGreaterThanOrEqual(4.5);
  });

  it('keeps the hue: red stays red, blue stays blue', () => {
    expect(readable('#a11', 'dark')).toMatch(/^#(?:[c-f][0-9a-f])(?:[0-9a-f]{2})(?:[0-9a-f]{2})$/);
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(readable('#00f', 'dark').slice(i, i + 2), 16)) as number[];
    expect(b).toBeGreaterThan(r!);
    expect(b).toBeGreaterThan(g!);
  });

  it('leaves anything that is not a hex colour alone', () => {
    expect(readable('var(--fg)', 'dark')).toBe('var(--fg)');
  });
});
