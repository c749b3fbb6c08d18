import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { compressDist } from './compress-dist.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dist(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'guichet-dist-'));
  dirs.push(dir);
  for (const [name, data] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), data);
  }
  return dir;
}

describe('compressDist', () => {
  it('writes brotli and gzip copies that decode to each text asset', async () => {
    const js = 'export const greeting = "Bonjour";\n'.repeat(100);
    const css = 'body { margin: 0; color: #222; }\n'.repeat(50);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg">${'<rect width="1" height="1"/>'.repeat(40)}</svg>`;
    const dir = dist({ 'assets/app-abc.js': js, 'assets/app-abc.css': css, 'brands/x/logo.svg': svg });
    await compressDist(dir);
    for (const [name, text] of [['assets/app-abc.js', js], ['assets/app-abc.css', css], ['brands/x/logo.svg', svg]]) {
      const br = readFileSync(join(dir, `${name}.br`));
      const gz = readFileSync(join(dir, `${name}.gz`));
      expect(brotliDecompressSync(br).toString()).toBe(text);
      expect(gunzipSync(gz).toString()).toBe(text);
      expect(br.length).toBeLessThan(gz.length);
    }
  });

  it('leaves images, index.html and files compression would grow alone', async () => {
    const dir = dist({
      'index.html': `<!doctype html>${'<p>page</p>'.repeat(50)}`,
      'assets/photo-abc.webp': Buffer.from('RIFF0000WEBPVP8 '.repeat(20)),
      'assets/tiny-abc.js': 'x',
    });
    await compressDist(dir);
    for (const name of ['index.html', 'assets/photo-abc.webp', 'assets/tiny-abc.js']) {
      expect(existsSync(join(dir, `${name}.br`)), `${name}.br`).toBe(false);
      expect(existsSync(join(dir, `${name}.gz`)), `${name}.gz`).toBe(false);
    }
  });
});
