// npm normalize-url over every line of a file (bench/compare.sh).
// usage: NORMALIZE_URL_DIR=<node_modules/normalize-url> node normalize_url.mjs FILE > OUT
// Reads the file as UTF-8 (a leading BOM removed), skips blank lines as urlkey does, and
// writes one normalized URL per line (an empty line when normalize-url throws).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.NORMALIZE_URL_DIR;
const { default: normalizeUrl } = await import(pathToFileURL(join(dir, 'index.js')).href);
let text = readFileSync(process.argv[2], 'utf8');
if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
const out = [];
for (let line of text.split('\n')) {
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.trim() === '') continue;
  try {
    out.push(normalizeUrl(line));
  } catch {
    out.push('');
  }
}
process.stdout.write(out.join('\n') + '\n');
