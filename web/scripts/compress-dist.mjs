// Post-build step of `npm run build`: writes a brotli (.br) and a gzip (.gz)
// copy beside every compressible file of dist/, at maximum quality, once at
// build time; the server (internal/httpapi/assets.go) sends the one the
// browser accepts. Usage: node scripts/compress-dist.mjs [dir]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

// Text formats; images, fonts and archives are compressed already.
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|html|txt|xml|map|webmanifest|ico)$/;

/**
 * Compresses every compressible file under dir (index.html and console.html
 * excepted: the server renders them per request) and returns what it wrote.
 * @param {string} dir
 * @returns {{ file: string; raw: number; br: number | null; gz: number | null }[]}
 */
export function compressDist(dir) {
  const report = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const file = relative(dir, path);
    if (!entry.isFile() || !COMPRESSIBLE.test(entry.name) || file === 'index.html' || file === 'console.html') continue;
    const data = readFileSync(path);
    const br = brotliCompressSync(data, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      },
    });
    const gz = gzipSync(data, { level: constants.Z_BEST_COMPRESSION });
    // A copy no smaller than the original is not worth a second representation.
    /** @type {{ file: string; raw: number; br: number | null; gz: number | null }} */
    const row = { file, raw: data.length, br: null, gz: null };
    if (br.length < data.length) {
      writeFileSync(`${path}.br`, br);
      row.br = br.length;
    }
    if (gz.length < data.length) {
      writeFileSync(`${path}.gz`, gz);
      row.gz = gz.length;
    }
    report.push(row);
  }
  return report;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] || fileURLToPath(new URL('../dist', import.meta.url));
  const rows = compressDist(dir);
  const sum = (/** @type {'raw' | 'br' | 'gz'} */ k) => rows.reduce((n, r) => n + (r[k] ?? r.raw), 0);
  const kb = (/** @type {number} */ n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`compressed ${rows.length} files of ${relative(process.cwd(), dir) || '.'}: ` +
    `${kb(sum('raw'))} → brotli ${kb(sum('br'))}, gzip ${kb(sum('gz'))}`);
}
