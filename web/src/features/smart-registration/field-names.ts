// The identification step's fields this app can show and check (fields.tsx
// draws them): a module of its own, so the steps that ask for the fields
// before identification opens (arrival.ts, in every smart page's chunk)
// carry the names, not the form components.

export const FIELD_NAMES = ['policyNumber', 'firstName', 'lastName', 'dateOfBirth', 'postalCode', 'driverLicence', 'email', 'phone'] as const;
export type FieldName = (typeof FIELD_NAMES)[number];

export const isFieldName = (name: string): name is FieldName => (FIELD_NAMES as readonly string[]).includes(name);
