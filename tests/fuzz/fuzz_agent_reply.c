/* Fuzz target for LLM replies as the client parses them: a chat completion body or (first
 * byte odd) a server-sent event stream. Whatever a server sends, parsing ends in a reply or
 * an error, and a reply's tool calls always have an id, a name and arguments. */
#include "agent/agent_int.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static agent_chat *chat;
    if (!chat) {
        chat = agent_chat_new();
        if (!chat || agent_chat_add(chat, "user", "Find the endpoints of a task")) abort();
    }
    agent_reply r;
    apidex_error err;
    if (agent_reply_parse((const char *)data + 1, size - 1, data[0] & 1, chat, &r, &err) == 0) {
        for (size_t i = 0; i < r.n_tool_calls; i++)
            if (!r.tool_calls[i].id || !r.tool_calls[i].name || !r.tool_calls[i].arguments) abort();
        if (r.usage.total != r.usage.prompt + r.usage.completion && r.usage.estimated) abort();
        agent_reply_free(&r);
    } else if (r.content || r.tool_calls) {
        abort(); /* an error leaves nothing behind */
    }
    return 0;
}
