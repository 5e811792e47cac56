// The HTTP API client: every call goes through api(); the seat token only ever
// travels in the Authorization header.

// HTTP

export class ApiError extends Error {
  constructor(status, problem, fallback) {
    const p = problem && typeof problem === 'object' ? problem : {};
    super(p.detail || p.title || fallback || `HTTP ${status}`);
    this.status = status;
    this.problem = p;
  }
}

export async function api(method, path, { body, token, headers } = {}) {
  const init = { method, cache: 'no-store', headers: { Accept: 'application/json', ...(headers || {}) } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, null, 'Could not reach the server. Check your connection and try again.');
  }
  let data = null;
  if (res.status !== 204 && res.status !== 304) {
    const text = await res.text();
    if (text) {
      try { data = JSON.parse(text); } catch { data = null; }
    }
  }
  if (!res.ok && res.status !== 304) throw new ApiError(res.status, data, res.statusText);
  return { status: res.status, data, headers: res.headers };
}
