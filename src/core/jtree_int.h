/* Private to the document tree (jtree.c, jt_yaml.c): the parse context and what the
   YAML reader shares with the rest. */
#ifndef APIDEX_CORE_JTREE_INT_H
#define APIDEX_CORE_JTREE_INT_H

#include "core/core.h"

typedef struct build_ctx {
    core_arena *arena;
    jt_limits lim;
    size_t nodes;
    apidex_error *err;
    const char *file;
    size_t jc_charged; /* json-c's tree, charged to lim.budget until it is freed */
} build_ctx;

/** A zeroed node of type t in a (NULL when out of memory). */
jt_node *jt_node_new(core_arena *a, jt_type t);
/** Parses doc->text as YAML into doc->root (jt_yaml.c); 0 or an error in bc->err. */
int jt_parse_yaml(jt_doc *doc, build_ctx *bc);

#endif /* APIDEX_CORE_JTREE_INT_H */
