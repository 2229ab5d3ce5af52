// The page's one door to the server: GET requests to the JSON API with the bearer token
// when the server wants one (apidex serve --token). The token is asked for once, on the
// first 401, and kept in sessionStorage (this tab only).

const KEY = 'apidex-token';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function token() {
  return sessionStorage.getItem(KEY) || '';
}

// The token button shows once the server has asked for a token (a 401) or one is kept:
// a server without a token never shows it.
export function showTokenButton() {
  const b = document.getElementById('token-button');
  if (b) b.hidden = false;
}

export function setToken(value) {
  if (value) sessionStorage.setItem(KEY, value);
  else sessionStorage.removeItem(KEY);
}

// Shows the token dialog; resolves true when a token was entered.
export function askToken(why) {
  const dialog = document.getElementById('token-dialog');
  const input = document.getElementById('token-input');
  const text = document.getElementById('token-why');
  if (why) text.textContent = why;
  input.value = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      const ok = dialog.returnValue === 'save' && input.value.trim() !== '';
      if (ok) setToken(input.value.trim());
      resolve(ok);
    }, { once: true });
    dialog.showModal();
    input.focus();
  });
}

let asking = null; // one dialog at a time, however many requests got 401

// GET path (with query) as JSON; throws ApiError with the server's message.
export async function get(path, params) {
  const url = new URL(path, location.origin);
  for (const [k, v] of params || []) url.searchParams.append(k, v);
  for (let attempt = 0; attempt < 3; attempt++) {
    const headers = { Accept: 'application/json' };
    const t = token();
    if (t) headers.Authorization = `Bearer ${t}`;
    const res = await fetch(url, { headers });
    if (res.status === 401) {
      showTokenButton();
      if (!asking) {
        asking = askToken(t ? 'That token was refused. Enter the server\'s token again.'
          : 'This server asks for a bearer token (apidex serve --token). It is kept for this tab only.');
        asking.finally(() => { asking = null; });
      }
      if (!(await asking)) throw new ApiError(401, 'the server needs a token');
      continue;
    }
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const msg = body && body.error && body.error.message ? body.error.message : res.statusText;
      throw new ApiError(res.status, msg);
    }
    return body;
  }
  throw new ApiError(401, 'the server needs a token');
}
