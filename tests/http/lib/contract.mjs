// contract.mjs: the OpenAPI document as a test oracle.
//
// assertMatches(method, path, res, body) checks one real HTTP response against
// openapi/openapi.yaml: the path (a template like /games/{id} or a concrete
// path) and method must be described (else the response must be the
// documented 405 with Allow, or 404 for an undescribed path), the status must
// be declared (or `default`), required headers present and valid, the
// Content-Type media type declared, and the body valid against the schema.
import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ROOT, OPENAPI_PATH, loadOpenapi } from './openapi_doc.mjs';

export { ROOT, OPENAPI_PATH };
// The parse comes from tests/out/openapi.json when that is of this YAML
// (tests/run.sh writes it once a run: openapi_doc.mjs).
export const { text: OPENAPI_TEXT, doc } = await loadOpenapi();

const DOC_ID = 'urn:croupier:openapi';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema({ ...doc, $id: DOC_ID });

const validators = new Map();
function validatorAt(pointer) {
  let v = validators.get(pointer);
  if (!v) {
    v = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    validators.set(pointer, v);
  }
  return v;
}

const esc = (s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');

function get(pointer) {
  let node = doc;
  for (const part of pointer.split('/').slice(1)) {
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`no ${pointer} in openapi.yaml`);
  }
  return node;
}

// Follow a local $ref (e.g. to #/components/responses/X); returns
// [object, pointer of the object].
function deref(obj, pointer) {
  let seen = 0;
  while (obj && typeof obj === 'object' && typeof obj.$ref === 'string') {
    assert.ok(obj.$ref.startsWith('#/'), `only local $refs: ${obj.$ref}`);
    pointer = obj.$ref.slice(1);
    obj = get(pointer);
    if (++seen > 20) throw new Error('$ref loop');
  }
  return [obj, pointer];
}

function formatErrors(errors) {
  return (errors || [])
    .slice(0, 12)
    .map((e) => `  ${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)} [${e.schemaPath}]`)
    .join('\n');
}

/** Validate a value against #/components/schemas/<name>; throws on mismatch. */
export function assertSchema(name, value, what = name) {
  const v = validatorAt(`/components/schemas/${esc(name)}`);
  if (!v(value)) {
    assert.fail(`${what} does not match schema ${name}:\n${formatErrors(v.errors)}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`);
  }
}

/** True when value matches #/components/schemas/<name>. */
export function matchesSchema(name, value) {
  return validatorAt(`/components/schemas/${esc(name)}`)(value);
}

/** The path template of `p` (a template or a concrete path, query ignored), or null. */
export function findPathTemplate(p) {
  p = p.split('?')[0];
  if (doc.paths[p]) return p;
  let best = null;
  let bestParams = Infinity;
  for (const tmpl of Object.keys(doc.paths)) {
    const re = new RegExp('^' + tmpl.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+') + '$');
    if (re.test(p)) {
      const n = (tmpl.match(/\{/g) || []).length;
      if (n < bestParams) { best = tmpl; bestParams = n; }
    }
  }
  return best;
}

export function documentedMethods(tmpl) {
  return METHODS.filter((m) => doc.paths[tmpl][m]).map((m) => m.toUpperCase());
}

function mediaType(ct) {
  return (ct || '').split(';')[0].trim().toLowerCase();
}

function headerOf(res, name) {
  return typeof res.headers?.get === 'function' ? res.headers.get(name) : res.headers?.[name.toLowerCase()];
}

function checkResponseObject(respObj, respPtr, res, body, where) {
  // Headers.
  for (const [name, h0] of Object.entries(respObj.headers || {})) {
    const [h, hPtr] = deref(h0, `${respPtr}/headers/${esc(name)}`);
    const value = headerOf(res, name);
    if (value === null || value === undefined) {
      assert.ok(!h.required, `${where}: required header ${name} missing`);
      continue;
    }
    if (h.schema) {
      const v = validatorAt(`${hPtr}/schema`);
      assert.ok(v(value), `${where}: header ${name}: ${JSON.stringify(value)} does not match its schema:\n${formatErrors(v.errors)}`);
    }
  }
  // Body.
  const content = respObj.content;
  const text = body ?? '';
  if (!content) {
    assert.equal(text, '', `${where}: no body is declared, got ${JSON.stringify(text.slice(0, 200))}`);
    return;
  }
  const ct = headerOf(res, 'content-type');
  const mt = mediaType(ct);
  assert.ok(ct, `${where}: no Content-Type (declared: ${Object.keys(content).join(', ')})`);
  assert.ok(Object.hasOwn(content, mt),
    `${where}: Content-Type ${ct} not declared (declared: ${Object.keys(content).join(', ')}); body: ${text.slice(0, 300)}`);
  let value = text;
  if (mt === 'application/json' || mt.endsWith('+json')) {
    const cs = /charset=([^;]+)/i.exec(ct);
    if (cs) assert.equal(cs[1].trim().toLowerCase().replace(/"/g, ''), 'utf-8', `${where}: charset ${cs[1]}`);
    try {
      value = JSON.parse(text);
    } catch (e) {
      assert.fail(`${where}: body is not JSON (${e.message}): ${text.slice(0, 300)}`);
    }
  }
  if (content[mt].schema) {
    const v = validatorAt(`${respPtr}/content/${esc(mt)}/schema`);
    if (!v(value)) {
      assert.fail(`${where}: body does not match the declared schema:\n${formatErrors(v.errors)}\nbody: ${text.slice(0, 1500)}`);
    }
  }
}

/**
 * Check a real response against the contract.
 * res: a fetch Response (or {status, headers}); body: the response text.
 */
export function assertMatches(method, p, res, body) {
  method = method.toUpperCase();
  const status = res.status;
  const where = `${method} ${p} -> ${status}`;
  const tmpl = findPathTemplate(p);
  if (!tmpl) {
    assert.equal(status, 404, `${where}: the path is not in openapi.yaml, so it must be a 404; body: ${String(body).slice(0, 300)}`);
    const [r, ptr] = deref({ $ref: '#/components/responses/NotFound' }, '');
    checkResponseObject(r, ptr, res, body, where);
    return;
  }
  const item = doc.paths[tmpl];
  const op = item[method.toLowerCase()];
  if (!op) {
    if (method === 'HEAD' && item.get) return; // HEAD mirrors GET; nothing more to check
    assert.equal(status, 405, `${where}: ${method} is not described for ${tmpl}, so it must be a 405; body: ${String(body).slice(0, 300)}`);
    const [r, ptr] = deref({ $ref: '#/components/responses/MethodNotAllowed' }, '');
    checkResponseObject(r, ptr, res, body, where);
    const allow = (headerOf(res, 'allow') || '').split(',').map((s) => s.trim().toUpperCase()).filter((s) => s && s !== 'HEAD' && s !== 'OPTIONS');
    const want = documentedMethods(tmpl).filter((s) => s !== 'HEAD' && s !== 'OPTIONS');
    assert.deepEqual([...allow].sort(), [...want].sort(), `${where}: Allow must list the methods of ${tmpl}`);
    return;
  }
  const opPtr = `/paths/${esc(tmpl)}/${method.toLowerCase()}`;
  const key = op.responses[String(status)] ? String(status) : (op.responses[`${String(status)[0]}XX`] ? `${String(status)[0]}XX` : 'default');
  assert.ok(op.responses[key], `${where}: status ${status} is not declared (declared: ${Object.keys(op.responses).join(', ')}); body: ${String(body).slice(0, 300)}`);
  const [r, ptr] = deref(op.responses[key], `${opPtr}/responses/${esc(key)}`);
  checkResponseObject(r, ptr, res, body, where);
}
