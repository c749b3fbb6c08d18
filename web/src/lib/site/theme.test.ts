import { expect, it } from 'vitest';
import { belair } from '@/test/site-fixture';
import { applyTheme } from './theme';

it('sets the brand colours as CSS custom properties on <html>', () => {
  applyTheme(belair.theme);
  const style = document.documentElement.style;
  expect(style.getPropertyValue('--brand-primary')).toBe('#C8102E');
  expect(style.getPropertyValue('--brand-primary-text')).toBe('#FFFFFF');
  expect(style.getPropertyValue('--brand-accent')).toBe('#0B6A88');
  expect(style.getPropertyValue('--brand-background')).toBe('#FFFFFF');
  expect(style.getPropertyValue('--brand-text')).toBe('#1C1C1C');
});
