/* Errors: status strings, filling apidex_error with a message and a location. */
#include "core/core.h"

#include <stdio.h>
#include <string.h>

const char *apidex_version(void)
{
    return APIDEX_VERSION_STRING;
}

const char *apidex_strerror(int code)
{
    switch (code) {
    case APIDEX_OK:
        return "ok";
    case APIDEX_EINVAL:
        return "invalid argument";
    case APIDEX_ENOMEM:
        return "out of memory";
    case APIDEX_EIO:
        return "I/O error";
    case APIDEX_EPARSE:
        return "parse error";
    case APIDEX_ELIMIT:
        return "limit exceeded";
    case APIDEX_EREF:
        return "unresolved reference";
    case APIDEX_ESPEC:
        return "not an OpenAPI document";
    case APIDEX_ENOTFOUND:
        return "not found";
    case APIDEX_EVERSION:
        return "version mismatch";
    case APIDEX_EDB:
        return "database error";
    case APIDEX_ENET:
        return "network error";
    case APIDEX_EUNSUPPORTED:
        return "unsupported";
    case APIDEX_EBUSY:
        return "busy";
    case APIDEX_EREFUSED:
        return "refused";
    default:
        return "unknown error";
    }
}

void core_error_clear(apidex_error *err)
{
    if (!err) return;
    err->code = 0;
    err->message[0] = '\0';
    err->file[0] = '\0';
    err->line = err->col = 0;
    err->pointer[0] = '\0';
}

int core_error_set(apidex_error *err, int code, const char *fmt, ...)
{
    if (!err) return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

void core_error_at(apidex_error *err, const char *file, unsigned line, unsigned col,
                   const char *pointer)
{
    if (!err) return;
    if (file) snprintf(err->file, sizeof err->file, "%s", file);
    err->line = line;
    err->col = col;
    if (pointer) snprintf(err->pointer, sizeof err->pointer, "%s", pointer);
}
