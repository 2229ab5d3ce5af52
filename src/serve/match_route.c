/*
 * apidex match over the server: the MCP tool match_spec (its definition here, its call in
 * mcp_tools.c) and POST /v1/match (http.c routes it here). Both hand the document (text,
 * or a JSON object for MCP) to src/search/match.c on the snapshot's engine.
 */
#include "serve/serve_int.h"

#include "search/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char serve_match_tool_description[] =
    "Match an OpenAPI document against the index (spec-as-query). Give the OpenAPI 3 or "
    "Swagger 2 document you wrote for the service you need (as an object, or as JSON or YAML "
    "text). For each of its operations it returns the indexed operations that do the same, "
    "with a score in [0, 1] and why (method, path shape, names, parameter and response "
    "fields), or match=false when none reaches the threshold: then generate the service "
    "yourself. `apis` lists the indexed APIs that cover the document best, with how many of "
    "its operations they match. Read-only.";

const char serve_match_tool_input[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"document\":{\"type\":[\"object\",\"string\"],\"description\":\"the OpenAPI or Swagger "
    "document: an object, or its JSON or YAML text\"},"
    "\"threshold\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1,\"description\":\"below it "
    "an operation has no match (default: the index's match.threshold)\"},"
    "\"k\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":20,\"default\":5,"
    "\"description\":\"candidates per operation\"}},"
    "\"required\":[\"document\"],\"additionalProperties\":false}";

const char serve_match_tool_output[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"threshold\":{\"type\":\"number\"},"
    "\"operations\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"method\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
    "\"match\":{\"type\":\"boolean\"},\"best\":{\"type\":\"number\"},"
    "\"candidates\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"id\":{\"type\":\"string\"},\"api\":{\"type\":\"string\"},\"method\":{\"type\":"
    "\"string\"},\"path\":{\"type\":\"string\"},\"score\":{\"type\":\"number\"},"
    "\"why\":{\"type\":\"object\"},\"words\":{\"type\":\"array\"}},"
    "\"required\":[\"id\",\"api\",\"method\",\"path\",\"score\",\"why\"]}}},"
    "\"required\":[\"method\",\"path\",\"match\",\"candidates\"]}},"
    "\"matched\":{\"type\":\"integer\"},\"unmatched\":{\"type\":\"integer\"},"
    "\"apis\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"api\":{\"type\":\"string\"},\"covered\":{\"type\":\"integer\"},"
    "\"operations\":{\"type\":\"integer\"},\"coverage\":{\"type\":\"number\"},"
    "\"score\":{\"type\":\"number\"}},\"required\":[\"api\",\"covered\",\"operations\"]}}},"
    "\"required\":[\"threshold\",\"operations\",\"matched\",\"unmatched\",\"apis\"]}";

/* A loader error as one line a caller can act on: "document:12:3: message (at /paths)". */
static int document_error(apidex_error *err)
{
    char msg[sizeof err->message];
    if (err->line)
        snprintf(msg, sizeof msg, "%.60s:%u:%u: %.300s%s%.100s%s",
                 err->file[0] ? err->file : "document", err->line, err->col, err->message,
                 err->pointer[0] ? " (at " : "", err->pointer, err->pointer[0] ? ")" : "");
    else
        snprintf(msg, sizeof msg, "document: %.360s%s%.100s%s", err->message,
                 err->pointer[0] ? " (at " : "", err->pointer, err->pointer[0] ? ")" : "");
    int code = err->code == APIDEX_ENOMEM ? APIDEX_ENOMEM : APIDEX_EINVAL;
    core_error_clear(err);
    core_error_set(err, code, "%s", msg);
    return code;
}

int serve_query_match(serve_snapshot *snap, const char *text, size_t len, double threshold,
                      size_t k, struct json_object **out, apidex_error *err)
{
    *out = NULL;
    if (!text || !len) return core_error_set(err, APIDEX_EINVAL, "the document is empty");
    if (!serve_text_ok(text, len))
        return core_error_set(err, APIDEX_EINVAL, "the document must be UTF-8 text without NUL");
    if (k > 20) return core_error_set(err, APIDEX_EINVAL, "k must be between 1 and 20");
    if (threshold > 1) return core_error_set(err, APIDEX_EINVAL, "threshold must be in [0, 1]");
    spec_registry *reg = NULL;
    int rc = match_load_text(text, len, &reg, err);
    if (rc) return document_error(err);
    match_query q = {.k = k, .threshold = threshold};
    rc = match_run(snap->eng, reg, &q, out, err);
    spec_registry_free(reg);
    return rc;
}

int serve_query_match_args(serve_snapshot *snap, const char *threshold_arg, const char *k_arg,
                           const char *text, size_t len, struct json_object **out,
                           apidex_error *err)
{
    double threshold = -1;
    size_t k = 0;
    if (threshold_arg) {
        char *end = NULL;
        threshold = strtod(threshold_arg, &end);
        if (!*threshold_arg || *end || !(threshold >= 0 && threshold <= 1))
            return core_error_set(err, APIDEX_EINVAL, "threshold must be a number in [0, 1]");
    }
    if (k_arg) {
        char *end = NULL;
        long v = strtol(k_arg, &end, 10);
        if (!*k_arg || *end || v < 1 || v > 20)
            return core_error_set(err, APIDEX_EINVAL, "k must be between 1 and 20");
        k = (size_t)v;
    }
    return serve_query_match(snap, text, len, threshold, k, out, err);
}
