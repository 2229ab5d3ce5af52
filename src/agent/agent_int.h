/* Private to the agent stage: limits and helpers shared by its files. */
#ifndef APIDEX_AGENT_INT_H
#define APIDEX_AGENT_INT_H

#include "agent/agent.h"

#include <stdint.h>

#define AGENT_MAX_TOOL_CALLS 64 /* per reply; more is a broken model or server */

/* ---- replies (llm.c) */

/**
 * Parses a chat completion body (sse: a server-sent event stream of chunks)
 * exactly as agent_llm_chat does after a 200, into out (agent_reply_free).
 * chat is the conversation it answers (for the cl100k fallback counts). For
 * tests and the fuzz target. APIDEX_EPARSE on a malformed reply.
 */
int agent_reply_parse(const char *data, size_t n, bool sse, const agent_chat *chat,
                      agent_reply *out, apidex_error *err);

/* ---- disk cache (cache.c) */

/** <dir>/<kind>/<16 hex of key>.json into out; dir NULL = agent_cache_dir(). */
int agent_cache_entry_path(const char *dir, const char *kind, uint64_t key, core_buf *out,
                           apidex_error *err);
/** The entry's text (malloc'd), or NULL when absent or unreadable. */
char *agent_cache_read(const char *path);
/** Writes an entry atomically (temp file + rename), creating folders. 0 or APIDEX_EIO. */
int agent_cache_write(const char *path, const char *text, size_t n);

#endif
