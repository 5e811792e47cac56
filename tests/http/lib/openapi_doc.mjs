// openapi_doc.mjs: openapi/openapi.yaml parsed once per test run.
//
// Parsing the 3,600-line document takes 0.5-1 s, and every HTTP test file
// needs it (tests/http/lib/contract.mjs). tests/run.sh runs this file once
// (`node tests/http/lib/openapi_doc.mjs`), which writes the parse as JSON to
// tests/out/openapi.json beside the SHA-256 of the YAML it came from;
// loadOpenapi() reads that cache when its hash is the YAML's, and otherwise
// parses the YAML (and writes the cache, so a file run alone still works and
// the next one is quick). The hash, not the file times, says whether the
// cache is stale: a checkout or an edit of the YAML always changes it.
import { readFileSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..', '..', '..');
export const OPENAPI_PATH = path.join(ROOT, 'openapi', 'openapi.yaml');
export const CACHE_PATH = path.join(ROOT, 'tests', 'out', 'openapi.json');

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** Parse the YAML (no cache); returns the document. */
export async function parseOpenapi(text) {
  const YAML = (await import('yaml')).default;
  return YAML.parse(text);
}

/**
 * { text, doc, cached }: the YAML's text and its parse, from the cache when
 * the cache is of this text (cached true), else parsed and the cache written.
 */
export async function loadOpenapi({ cachePath = CACHE_PATH, yamlPath = OPENAPI_PATH } = {}) {
  const text = readFileSync(yamlPath, 'utf8');
  const hash = sha256(text);
  try {
    const c = JSON.parse(readFileSync(cachePath, 'utf8'));
    if (c && c.sha256 === hash && c.doc && typeof c.doc === 'object') return { text, doc: c.doc, cached: true };
  } catch {
    // missing or unreadable: parse below
  }
  const doc = await parseOpenapi(text);
  try {
    // Written whole under another name, then renamed: a reader running at
    // the same time sees the old cache or the new one, never half of one.
    mkdirSync(path.dirname(cachePath), { recursive: true });
    const tmp = `${cachePath}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ sha256: hash, doc }));
    renameSync(tmp, cachePath);
  } catch {
    // a read-only tree: the parse is still good
  }
  return { text, doc, cached: false };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { cached } = await loadOpenapi();
  console.log(`${path.relative(ROOT, CACHE_PATH)}: ${cached ? 'up to date' : 'written'}`);
}
