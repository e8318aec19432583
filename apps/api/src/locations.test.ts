import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { createLocationCatalogue, MAX_CHECK_LOCATIONS, PUBLIC_LOCATIONS } from './locations.ts';

describe('location catalogue', () => {
  const catalogue = createLocationCatalogue({ publicLocations: [...PUBLIC_LOCATIONS, 'local'] });

  it('takes known locations, none, and the runner location', async () => {
    await expect(catalogue.assertUsable('a', [])).resolves.toBeUndefined();
    await expect(catalogue.assertUsable('a', ['eu-west-1', 'local'])).resolves.toBeUndefined();
    await expect(catalogue.assertUsable('a', PUBLIC_LOCATIONS.slice(0, MAX_CHECK_LOCATIONS))).resolves.toBeUndefined();
  });

  it.each([
    [['eu-west-1', 'EU-WEST-1'], /^locations\[1\]: unknown location "EU-WEST-1"; known locations: us-east-1, /],
    [['moon'], /^locations\[0\]: unknown location "moon"/],
    [['eu-west-1', 'us-east-1', 'eu-west-1'], /^locations\[2\]: "eu-west-1" is listed twice/],
    [PUBLIC_LOCATIONS.slice(0, MAX_CHECK_LOCATIONS + 1), /^locations: at most 20 locations per check/],
  ])('refuses %j with a 400 naming the field', async (locations, message) => {
    const refused = catalogue.assertUsable('a', locations);
    await expect(refused).rejects.toThrow(ValidationError);
    await expect(catalogue.assertUsable('a', locations)).rejects.toThrow(message);
  });

  it('knows only what it is configured with', async () => {
    const mine = createLocationCatalogue({ publicLocations: ['dc-1', 'dc-2'] });
    expect(await mine.known('a')).toEqual(['dc-1', 'dc-2']);
    await expect(mine.assertUsable('a', ['eu-west-1'])).rejects.toThrow(/known locations: dc-1, dc-2$/);
  });
});
