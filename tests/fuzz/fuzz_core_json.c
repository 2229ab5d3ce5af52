/* Differential fuzz target for the JSON parser: each input is read by jt_parse_json and by
   json-c 0.16 as apidex read JSON before (tests/unit/core_json_parity.h); the two must
   accept the same texts, refuse the rest with the same kind of error (syntax or depth) and
   build the same trees. The first byte picks the depth limit (1-8, or the default 512) so
   the limit is reached; a text not starting with '{' or '[' gets a '[' in front, as only
   such texts reach the JSON parser. */
#include "core_json_parity.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 20)) return 0;
    unsigned depth = data[0] % 9 ? data[0] % 9 : 512;
    data++;
    size--;
    size_t i = 0;
    while (i < size && strchr(" \t\r\n", data[i]) && data[i]) i++;
    bool bracket = !(i < size && (data[i] == '{' || data[i] == '['));
    char *text = malloc(size + 2);
    if (!text) return 0;
    size_t len = 0;
    if (bracket) text[len++] = '[';
    memcpy(text + len, data, size);
    len += size;
    text[len] = '\0';
    char why[512];
    const char *d = parity_check(text, len, depth, why, sizeof why);
    if (d) {
        fprintf(stderr, "jt_parse_json differs from json-c (depth limit %u): %s\n", depth, d);
        abort();
    }
    free(text);
    return 0;
}
