/* Private to the document tree (jtree.c, jt_parse_json.c, jt_yaml.c): the parse context and
   what the readers share with the rest. */
#ifndef APIDEX_CORE_JTREE_INT_H
#define APIDEX_CORE_JTREE_INT_H

#include "core/core.h"

typedef struct build_ctx {
    core_arena *arena;
    jt_limits lim;
    size_t nodes;
    apidex_error *err;
    const char *file;
} build_ctx;

/** A zeroed node of type t in a (NULL when out of memory). */
jt_node *jt_node_new(core_arena *a, jt_type t);
/** Parses doc->text as JSON into doc->root (jt_parse_json.c); 0, or APIDEX_EPARSE (the
    caller may try YAML), APIDEX_ELIMIT or APIDEX_ENOMEM with bc->err set at FILE:L:C. */
int jt_parse_json(jt_doc *doc, build_ctx *bc);
/** The 1-based line and column (in code points) of byte offset off of text. */
void jt_offset_linecol(const char *text, size_t len, size_t off, unsigned *line, unsigned *col);
/** The value of a hex digit, or -1. */
int jt_hex_digit(char c);
/** Code point cp (below 0x110000) as UTF-8 into s; returns its length (1-4). */
size_t jt_utf8_encode(unsigned cp, char s[4]);
/** Parses doc->text as YAML into doc->root (jt_yaml.c); 0 or an error in bc->err. */
int jt_parse_yaml(jt_doc *doc, build_ctx *bc);

#endif /* APIDEX_CORE_JTREE_INT_H */
