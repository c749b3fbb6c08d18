// Spec §2.5 /confirmation: the page opens only while the credentials of the
// account just created are held, in memory only (never in storage: a reload
// forgets them and the page goes to /); go-to-profile signs in with them.

export interface Credentials {
  username: string;
  password: string;
}

let held: Credentials | null = null;

export function holdCredentials(credentials: Credentials | null): void {
  held = credentials;
}

export function heldCredentials(): Credentials | null {
  return held;
}
