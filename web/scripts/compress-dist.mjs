// Post-build step of `npm run build`: writes a brotli (.br) and a gzip (.gz)
// copy beside every compressible file of dist/, at maximum quality, once at
// build time; the server (internal/httpapi/assets.go) sends the one the
// browser accepts. The gzip copies are Zopfli's (standard gzip, about 3 %
// smaller than zlib's best: issue 32's JavaScript budget over gzip), made
// by one worker thread per core. Usage: node scripts/compress-dist.mjs [dir]
import { gzipAsync } from '@gfx/zopfli';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

// Text formats; images, fonts and archives are compressed already.
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|html|txt|xml|map|webmanifest|ico)$/;

/**
 * Compresses one file: brotli, and the smaller of Zopfli's and zlib's gzip.
 * @param {string} dir
 * @param {string} file
 * @returns {Promise<{ file: string; raw: number; br: number | null; gz: number | null }>}
 */
async function compressFile(dir, file) {
  const path = join(dir, file);
  const data = readFileSync(path);
  const br = brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
  const zlib = gzipSync(data, { level: constants.Z_BEST_COMPRESSION });
  // One iteration: nearly all of Zopfli's gain, in a fraction of its default time.
  const zopfli = Buffer.from(await gzipAsync(data, { numiterations: 1 }));
  const gz = zopfli.length < zlib.length ? zopfli : zlib;
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
  return row;
}

/**
 * Compresses every compressible file under dir (index.html and console.html
 * excepted: the server renders them per request) and returns what it wrote.
 * @param {string} dir
 * @returns {Promise<{ file: string; raw: number; br: number | null; gz: number | null }[]>}
 */
export async function compressDist(dir) {
  /** @type {string[]} */
  const files = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = relative(dir, join(entry.parentPath, entry.name));
    if (entry.isFile() && COMPRESSIBLE.test(entry.name) && file !== 'index.html' && file !== 'console.html') files.push(file);
  }
  // The largest first, dealt round the workers, so they finish together.
  files.sort((a, b) => readFileSync(join(dir, b)).length - readFileSync(join(dir, a)).length);
  const workers = Math.max(1, Math.min(availableParallelism(), files.length));
  const shares = Array.from({ length: workers }, (_, i) => files.filter((_, j) => j % workers === i));
  const parts = await Promise.all(
    shares.map(
      (share) =>
        /** @type {Promise<Awaited<ReturnType<typeof compressFile>>[]>} */ (
          new Promise((resolve, reject) => {
            const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { dir, files: share } });
            worker.once('message', resolve);
            worker.once('error', reject);
          })
        ),
    ),
  );
  return parts.flat();
}

if (!isMainThread && workerData) {
  const { dir, files } = /** @type {{ dir: string; files: string[] }} */ (workerData);
  /** @type {Awaited<ReturnType<typeof compressFile>>[]} */
  const rows = [];
  for (const file of files) rows.push(await compressFile(dir, file));
  parentPort?.postMessage(rows);
}

if (isMainThread && process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] || fileURLToPath(new URL('../dist', import.meta.url));
  const rows = await compressDist(dir);
  const sum = (/** @type {'raw' | 'br' | 'gz'} */ k) => rows.reduce((n, r) => n + (r[k] ?? r.raw), 0);
  const kb = (/** @type {number} */ n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`compressed ${rows.length} files of ${relative(process.cwd(), dir) || '.'}: ` +
    `${kb(sum('raw'))} → brotli ${kb(sum('br'))}, gzip ${kb(sum('gz'))}`);
}
