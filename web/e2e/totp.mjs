// TOTP codes for the browser tests that sign staff in (the console's second
// factor): RFC 6238 computed here from the secret, each time step used once.
import { createHmac } from 'node:crypto';
import { keepSecret } from './harness.mjs';

/**
 * RFC 4648 base32 (no padding) to bytes.
 * @param {string} text
 */
function base32(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of text.replace(/[\s=]/g, '').toUpperCase()) {
    const i = alphabet.indexOf(c);
    if (i < 0) throw new Error(`not base32: ${c}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/**
 * RFC 6238 TOTP (SHA-1, 30 s, 6 digits) of a base32 secret at a time step.
 * @param {string} secret
 * @param {number} step
 */
export function totp(secret, step) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const number = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(number).padStart(6, '0');
}

/** The last time step used per secret in this file (the server takes each step once). */
const lastStep = new Map();

/**
 * Code sources for a secret: each code is of a step after the last one used
 * with that secret, the current step or the next (the server accepts ±1), so
 * a code stays valid at least 30 s after it is made however slow the page
 * is to send it (a code of the step before could expire in flight on a busy
 * machine); it waits for the clock when both steps are spent.
 * @param {string} secret
 * @param {() => number} [clock] the time in ms (TOTP codes are of the real time, even under GUICHET_DEV_NOW)
 * @returns {() => Promise<string>}
 */
export function codes(secret, clock = Date.now) {
  return async () => {
    for (;;) {
      const now = Math.floor(clock() / 30_000);
      const step = Math.max((lastStep.get(secret) ?? -Infinity) + 1, now);
      if (step <= now + 1) {
        lastStep.set(secret, step);
        return keepSecret(totp(secret, step));
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
}
