import { describe, expect, it } from 'vitest';
import { addressAfterChoice } from './address';

describe('addressAfterChoice', () => {
  const qcFr = { province: 'qc', language: 'fr' } as const;
  it.each([
    { href: 'https://belair.example/?lang=en&province=on', want: '/?lang=fr&province=qc' },
    { href: 'https://belair.example/forgot?x=1&LANG=en&lang=EN#top', want: '/forgot?x=1&LANG=en&lang=fr#top' },
    { href: 'https://belair.example/verify?province=ON&utm=a%20b', want: '/verify?province=qc&utm=a+b' },
    { href: 'https://belair.example/?lang=en&lang=fr&province=qc', want: '/?lang=fr&province=qc' },
  ])('$href -> $want', ({ href, want }) => {
    expect(addressAfterChoice(href, qcFr)).toBe(want);
  });
  it.each(['https://belair.example/', 'https://belair.example/?x=1', 'https://belair.example/?lang=fr&province=qc'])(
    'leaves %s as it is',
    (href) => expect(addressAfterChoice(href, qcFr)).toBeNull(),
  );
});
