// The APIs of the index (GET /v1/apis), fetched once per page load and per token.

import { get } from './api.js';

let cached = null;

export function catalog() {
  if (!cached) cached = get('/v1/apis', [['markup', 'html']]).catch((err) => { cached = null; throw err; });
  return cached;
}

export function forgetCatalog() {
  cached = null;
}
