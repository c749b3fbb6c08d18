import { expect, it } from 'vitest';
import { ssoAction } from './sso-form';

it("adds staff's maintenance bypass to a post to Guichet's own SSO only", () => {
  expect(ssoAction('/pkmslogin.form', null)).toBe('/pkmslogin.form');
  expect(ssoAction('/pkmslogin.form', 'staff s3cret&x')).toBe('/pkmslogin.form?maintenancePageBypass=staff%20s3cret%26x');
  expect(ssoAction('/pkmslogin.form?lang=fr', 'k')).toBe('/pkmslogin.form?lang=fr&maintenancePageBypass=k');
  // An external SSO (another origin) never receives the secret.
  expect(ssoAction('https://sso.example.com/pkmslogin.form', 'k')).toBe('https://sso.example.com/pkmslogin.form');
  expect(ssoAction('//sso.example.com/pkmslogin.form', 'k')).toBe('//sso.example.com/pkmslogin.form');
});
