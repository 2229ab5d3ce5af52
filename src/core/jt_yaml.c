/* YAML into the document tree (jtree.c): libfyaml's events build the nodes in the document's
   arena, anchors and aliases resolved with their expansion charged to the limits. */
#include "core/jtree_int.h"

#include <ctype.h>
#include <errno.h>
#include <libfyaml.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct yaml_frame {
    jt_node *node;   /* the collection being built */
    size_t base;     /* index of its first child on the value stack */
    uint64_t weight; /* nodes it expands to (aliases counted in full) */
    const char *anchor;
    size_t anchor_len;
} yaml_frame;

typedef struct yaml_anchor {
    char *name;
    size_t name_len;
    jt_node *node;
    uint64_t weight;
} yaml_anchor;

typedef struct yaml_builder {
    build_ctx *bc;
    yaml_frame *frames;
    size_t n_frames, cap_frames;
    jt_node **stack; /* children of open collections; maps push key, value, key, value */
    uint64_t *weights;
    size_t n_stack, cap_stack;
    yaml_anchor *anchors;
    size_t n_anchors, cap_anchors;
} yaml_builder;

static int yb_push(yaml_builder *yb, jt_node *n, uint64_t w)
{
    if (core_array_grow2(&yb->stack, sizeof *yb->stack, &yb->weights, sizeof *yb->weights,
                         &yb->cap_stack, yb->n_stack, 256))
        return APIDEX_ENOMEM;
    yb->stack[yb->n_stack] = n;
    yb->weights[yb->n_stack++] = w;
    return 0;
}

static int yb_anchor(yaml_builder *yb, const char *name, size_t len, jt_node *n, uint64_t w)
{
    if (!name) return 0;
    /* A redefined anchor replaces the old one for later aliases (YAML spec). */
    if (core_array_grow(&yb->anchors, &yb->cap_anchors, yb->n_anchors, sizeof *yb->anchors, 16))
        return APIDEX_ENOMEM;
    yaml_anchor *a = &yb->anchors[yb->n_anchors];
    a->name = core_arena_strndup(yb->bc->arena, name, len);
    if (!a->name) return APIDEX_ENOMEM;
    a->name_len = len;
    a->node = n;
    a->weight = w;
    yb->n_anchors++;
    return 0;
}

static const yaml_anchor *yb_find_anchor(const yaml_builder *yb, const char *name, size_t len)
{
    for (size_t i = yb->n_anchors; i-- > 0;) {
        const yaml_anchor *a = &yb->anchors[i];
        if (a->name_len == len && memcmp(a->name, name, len) == 0) return a;
    }
    return NULL;
}

static bool str_in(const char *s, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n && memcmp(*list, s, n) == 0) return true;
    return false;
}

/* YAML 1.2 core schema resolution of a plain scalar. */
static jt_node *yaml_plain_scalar(core_arena *a, const char *s, size_t n)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", NULL};
    if (str_in(s, n, nulls)) return jt_node_new(a, JT_NULL);
    if (str_in(s, n, trues)) return jt_new_bool(a, true);
    if (str_in(s, n, falses)) return jt_new_bool(a, false);
    if (n > 0 && n < 64) {
        char buf[64];
        memcpy(buf, s, n);
        buf[n] = '\0';
        char *end;
        /* integers: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+ */
        const char *d = buf + (buf[0] == '-' || buf[0] == '+');
        bool digits = *d != '\0';
        for (const char *q = d; *q; q++)
            if (*q < '0' || *q > '9') digits = false;
        if (digits) {
            errno = 0;
            long long v = strtoll(buf, &end, 10);
            if (!*end && errno == 0) {
                jt_node *x = jt_node_new(a, JT_INT);
                if (x) x->u.i = v;
                return x;
            }
        }
        if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'o')) {
            errno = 0;
            long long v = strtoll(buf + 2, &end, buf[1] == 'x' ? 16 : 8);
            if (!*end && errno == 0) {
                jt_node *x = jt_node_new(a, JT_INT);
                if (x) x->u.i = v;
                return x;
            }
        }
        /* floats: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, .inf, .nan */
        static const char *const infs[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL};
        static const char *const ninfs[] = {"-.inf", "-.Inf", "-.INF", NULL};
        static const char *const nans[] = {".nan", ".NaN", ".NAN", NULL};
        if (str_in(s, n, infs) || str_in(s, n, ninfs) || str_in(s, n, nans)) {
            jt_node *x = jt_node_new(a, JT_REAL);
            if (x) x->u.d = str_in(s, n, nans) ? NAN : str_in(s, n, infs) ? INFINITY : -INFINITY;
            return x;
        }
        bool numeric = true, seen_digit = false;
        for (const char *q = d; *q && numeric; q++) {
            if (*q >= '0' && *q <= '9')
                seen_digit = true;
            else if (*q != '.' && *q != 'e' && *q != 'E' && *q != '-' && *q != '+')
                numeric = false;
        }
        if (numeric && seen_digit && (isdigit((unsigned char)*d) || *d == '.')) {
            double v = strtod(buf, &end);
            if (!*end) {
                jt_node *x = jt_node_new(a, JT_REAL);
                if (x) x->u.d = v;
                return x;
            }
        }
    }
    return jt_new_string(a, s, n);
}

static const char *token_text(struct fy_token *t, size_t *len)
{
    *len = 0;
    if (!t) return NULL;
    const char *s = fy_token_get_text(t, len);
    return s;
}

/* Closes the innermost collection: moves its children from the stack into the node. */
static int yb_close(yaml_builder *yb, apidex_error *err, const char *file)
{
    yaml_frame *f = &yb->frames[--yb->n_frames];
    size_t count = yb->n_stack - f->base;
    jt_node *n = f->node;
    core_arena *a = yb->bc->arena;
    if (n->type == JT_ARRAY) {
        n->u.items = count ? core_arena_alloc(a, count * sizeof(jt_node *)) : NULL;
        if (count && !n->u.items) return APIDEX_ENOMEM;
        if (count) memcpy(n->u.items, yb->stack + f->base, count * sizeof(jt_node *));
        n->len = (uint32_t)count;
    } else {
        size_t pairs = count / 2;
        /* Merge keys ("<<": mapping or list of mappings) bring in members the map lacks. */
        size_t extra = 0;
        for (size_t i = 0; i < pairs; i++) {
            jt_node *k = yb->stack[f->base + 2 * i], *v = yb->stack[f->base + 2 * i + 1];
            if (k->len == 2 && memcmp(k->u.s, "<<", 2) == 0 && k->reserved) {
                if (v->type == JT_OBJECT)
                    extra += v->len;
                else if (v->type == JT_ARRAY)
                    for (uint32_t j = 0; j < v->len; j++)
                        if (v->u.items[j]->type == JT_OBJECT) extra += v->u.items[j]->len;
            }
        }
        jt_member *m = core_arena_calloc(a, pairs + extra ? pairs + extra : 1, sizeof *m);
        if (!m) return APIDEX_ENOMEM;
        size_t out = 0;
        for (size_t i = 0; i < pairs; i++) {
            jt_node *k = yb->stack[f->base + 2 * i], *v = yb->stack[f->base + 2 * i + 1];
            if (k->len == 2 && memcmp(k->u.s, "<<", 2) == 0 && k->reserved) continue;
            m[out].key = k->u.s;
            m[out].key_len = k->len;
            m[out].value = v;
            out++;
        }
        n->u.members = m;
        n->len = (uint32_t)out;
        for (size_t i = 0; i < pairs && extra; i++) {
            jt_node *k = yb->stack[f->base + 2 * i], *v = yb->stack[f->base + 2 * i + 1];
            if (!(k->len == 2 && memcmp(k->u.s, "<<", 2) == 0 && k->reserved)) continue;
            size_t nsrc = v->type == JT_OBJECT ? 1 : v->len;
            for (size_t s = 0; s < nsrc; s++) {
                const jt_node *src = v->type == JT_OBJECT ? v : v->u.items[s];
                if (!src || src->type != JT_OBJECT) continue;
                for (uint32_t j = 0; j < src->len; j++) {
                    bool have = false;
                    for (size_t q = 0; q < out && !have; q++)
                        have = m[q].key_len == src->u.members[j].key_len &&
                               memcmp(m[q].key, src->u.members[j].key, m[q].key_len) == 0;
                    if (!have) m[out++] = src->u.members[j];
                }
            }
        }
        n->len = (uint32_t)out;
        jt_object_finish(a, n);
    }
    yb->n_stack = f->base;
    if (yb_anchor(yb, f->anchor, f->anchor_len, n, f->weight)) return APIDEX_ENOMEM;
    (void)err;
    (void)file;
    return 0;
}

/* Adds a finished value to the innermost open collection (or makes it the root). */
static int yb_add(yaml_builder *yb, jt_node *n, uint64_t w, jt_node **root)
{
    if (yb->n_frames == 0) {
        *root = n;
        return 0;
    }
    yaml_frame *f = &yb->frames[yb->n_frames - 1];
    f->weight += w;
    if (f->weight > yb->bc->lim.max_nodes) return APIDEX_ELIMIT;
    return yb_push(yb, n, w);
}

/* The first error libfyaml reports, as "LINE:COL: error: MESSAGE". Collecting errors in
   the diag object instead leaks them in libfyaml 0.7.12, so the text is captured here. */
typedef struct yaml_diag_capture {
    char text[512];
    bool have;
} yaml_diag_capture;

static void yaml_diag_output(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
    (void)diag;
    yaml_diag_capture *cap = user;
    if (cap->have || !buf) return;
    if (len >= sizeof cap->text) len = sizeof cap->text - 1;
    memcpy(cap->text, buf, len);
    cap->text[len] = '\0';
    cap->have = true;
}

/* Splits a captured "SOURCE:L:C: error: msg" into its parts (line/col 0 when absent). */
static const char *yaml_diag_parse(char *text, unsigned *line, unsigned *col)
{
    *line = *col = 0;
    char *msg = strstr(text, "error:");
    if (!msg) return "syntax error";
    /* walk back over ": " and "L:C" */
    char *p = msg;
    while (p > text && (p[-1] == ' ' || p[-1] == ':')) p--;
    char *c_end = p;
    while (p > text && isdigit((unsigned char)p[-1])) p--;
    if (p < c_end && p > text && p[-1] == ':') {
        char *c_start = p;
        p--;
        char *l_end = p;
        while (p > text && isdigit((unsigned char)p[-1])) p--;
        if (p < l_end) {
            *line = (unsigned)strtoul(p, NULL, 10);
            *col = (unsigned)strtoul(c_start, NULL, 10);
        }
    }
    msg += 6;
    while (*msg == ' ') msg++;
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = '\0';
    return *msg ? msg : "syntax error";
}

int jt_parse_yaml(jt_doc *doc, build_ctx *bc)
{
    apidex_error *err = bc->err;
    yaml_diag_capture cap = {.have = false};
    struct fy_diag_cfg dcfg;
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.output_fn = yaml_diag_output;
    dcfg.user = &cap;
    dcfg.level = FYET_ERROR;
    dcfg.colorize = false;
    dcfg.show_source = false;
    dcfg.show_position = true;
    dcfg.show_type = true;
    dcfg.show_module = false;
    dcfg.source_width = 0;
    dcfg.position_width = 0;
    dcfg.type_width = 0;
    struct fy_diag *diag = fy_diag_create(&dcfg);
    if (!diag) return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    struct fy_parse_cfg cfg = {0};
    cfg.flags =
        FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 | FYPCF_JSON_NONE | FYPCF_ALLOW_DUPLICATE_KEYS;
    cfg.diag = diag;
    struct fy_parser *fyp = fy_parser_create(&cfg);
    if (!fyp) {
        fy_diag_unref(diag);
        return core_error_set(err, APIDEX_ENOMEM, "out of memory");
    }
    int rc = fy_parser_set_string(fyp, doc->text, doc->text_len) == 0 ? 0 : APIDEX_EPARSE;
    yaml_builder yb = {.bc = bc};
    jt_node *root = NULL;
    unsigned docs = 0, err_line = 0, err_col = 0, yb_line = 0, yb_col = 0;
    const char *why = NULL;
    struct fy_event *ev;
    while (!rc && (ev = fy_parser_parse(fyp)) != NULL) {
        const struct fy_mark *mk = fy_event_start_mark(ev);
        unsigned line = mk ? (unsigned)mk->line + 1 : 0, col = mk ? (unsigned)mk->column + 1 : 0;
        yb_line = line;
        yb_col = col;
        switch (ev->type) {
        case FYET_DOCUMENT_START:
            if (++docs > 1) {
                rc = APIDEX_EPARSE;
                why = "more than one YAML document in the file";
                err_line = line;
                err_col = col;
            }
            break;
        case FYET_MAPPING_START:
        case FYET_SEQUENCE_START: {
            bool is_map = ev->type == FYET_MAPPING_START;
            if (yb.n_frames >= bc->lim.max_depth) {
                rc = APIDEX_ELIMIT;
                why = core_arena_printf(bc->arena, "nesting deeper than the limit of %u levels",
                                        bc->lim.max_depth);
                err_line = line;
                err_col = col;
                break;
            }
            if (yb.n_frames > 0 && yb.frames[yb.n_frames - 1].node->type == JT_OBJECT &&
                ((yb.n_stack - yb.frames[yb.n_frames - 1].base) % 2) == 0) {
                rc = APIDEX_EUNSUPPORTED;
                why = "a mapping key that is itself a collection is not supported";
                err_line = line;
                err_col = col;
                break;
            }
            if (++bc->nodes > bc->lim.max_nodes) {
                rc = APIDEX_ELIMIT;
                why = "too many nodes";
                break;
            }
            jt_node *n = jt_node_new(bc->arena, is_map ? JT_OBJECT : JT_ARRAY);
            if (!n) {
                rc = APIDEX_ENOMEM;
                break;
            }
            n->line = line;
            n->col = col;
            if (core_array_grow(&yb.frames, &yb.cap_frames, yb.n_frames, sizeof *yb.frames, 32)) {
                rc = APIDEX_ENOMEM;
                break;
            }
            yaml_frame *f = &yb.frames[yb.n_frames++];
            f->node = n;
            f->base = yb.n_stack;
            f->weight = 1;
            f->anchor = token_text(is_map ? ev->mapping_start.anchor : ev->sequence_start.anchor,
                                   &f->anchor_len);
            break;
        }
        case FYET_MAPPING_END:
        case FYET_SEQUENCE_END: {
            if (yb.n_frames == 0) break;
            jt_node *n = yb.frames[yb.n_frames - 1].node;
            uint64_t w = yb.frames[yb.n_frames - 1].weight;
            rc = yb_close(&yb, err, doc->file);
            if (!rc) rc = yb_add(&yb, n, w, &root);
            if (rc == APIDEX_ELIMIT) why = "aliases expand to more nodes than the limit";
            break;
        }
        case FYET_SCALAR: {
            if (++bc->nodes > bc->lim.max_nodes) {
                rc = APIDEX_ELIMIT;
                why = "too many nodes";
                break;
            }
            size_t len;
            const char *s = token_text(ev->scalar.value, &len);
            if (!s) s = "";
            bool is_key = yb.n_frames > 0 && yb.frames[yb.n_frames - 1].node->type == JT_OBJECT &&
                          ((yb.n_stack - yb.frames[yb.n_frames - 1].base) % 2) == 0;
            enum fy_scalar_style style = fy_token_scalar_style(ev->scalar.value);
            jt_node *n;
            if (is_key || style != FYSS_PLAIN || ev->scalar.tag) {
                n = jt_new_string(bc->arena, s, len);
                /* Only a plain "<<" key is a merge key. */
                if (n && is_key && style == FYSS_PLAIN && !ev->scalar.tag) n->reserved = 1;
            } else {
                n = yaml_plain_scalar(bc->arena, s, len);
            }
            if (!n) {
                rc = APIDEX_ENOMEM;
                break;
            }
            n->line = line;
            n->col = col;
            size_t alen;
            const char *an = token_text(ev->scalar.anchor, &alen);
            if (an) rc = yb_anchor(&yb, an, alen, n, 1);
            if (!rc) rc = yb_add(&yb, n, 1, &root);
            if (rc == APIDEX_ELIMIT) why = "aliases expand to more nodes than the limit";
            break;
        }
        case FYET_ALIAS: {
            size_t alen;
            const char *an = token_text(ev->alias.anchor, &alen);
            const yaml_anchor *a = an ? yb_find_anchor(&yb, an, alen) : NULL;
            if (!a) {
                rc = APIDEX_EPARSE;
                why = "alias to an unknown (or not yet complete) anchor";
                err_line = line;
                err_col = col;
                break;
            }
            bool is_key = yb.n_frames > 0 && yb.frames[yb.n_frames - 1].node->type == JT_OBJECT &&
                          ((yb.n_stack - yb.frames[yb.n_frames - 1].base) % 2) == 0;
            if (is_key && a->node->type != JT_STRING) {
                rc = APIDEX_EUNSUPPORTED;
                why = "an alias used as a mapping key must name a scalar";
                err_line = line;
                err_col = col;
                break;
            }
            jt_node *target = a->node;
            if (is_key && target->reserved) {
                /* keep the shared key node free of the merge-key mark */
                target = jt_new_string(bc->arena, target->u.s, target->len);
                if (!target) {
                    rc = APIDEX_ENOMEM;
                    break;
                }
            }
            rc = yb_add(&yb, target, a->weight, &root);
            if (rc == APIDEX_ELIMIT) {
                why = "aliases expand to more nodes than the limit (alias bomb?)";
                err_line = line;
                err_col = col;
            }
            break;
        }
        default:
            break;
        }
        fy_parser_event_free(fyp, ev);
    }
    if (!rc && fy_parser_get_stream_error(fyp)) {
        rc = APIDEX_EPARSE;
        why = NULL;
    }
    if (rc == APIDEX_EPARSE && !why) {
        if (cap.have) {
            unsigned line, col;
            const char *msg = yaml_diag_parse(cap.text, &line, &col);
            core_error_set(err, APIDEX_EPARSE, "invalid YAML: %s", msg);
            core_error_at(err, doc->file, line, col, NULL);
        } else {
            core_error_set(err, APIDEX_EPARSE, "invalid YAML");
            core_error_at(err, doc->file, 0, 0, NULL);
        }
    } else if (rc) {
        if (rc == APIDEX_ENOMEM && bc->lim.budget && bc->lim.budget->over) {
            /* where the parser was when the budget ran out */
            rc = core_budget_error(bc->lim.budget, err);
            core_error_at(err, doc->file, yb_line, yb_col, NULL);
        } else {
            if (rc == APIDEX_ENOMEM) why = "out of memory";
            core_error_set(err, rc, "%s%s", rc == APIDEX_EPARSE ? "invalid YAML: " : "",
                           why ? why : "YAML error");
            core_error_at(err, doc->file, err_line, err_col, NULL);
        }
    } else if (!root) {
        rc = core_error_set(err, APIDEX_EPARSE, "empty document");
        core_error_at(err, doc->file, 0, 0, NULL);
    }
    doc->root = root;
    free(yb.frames);
    free(yb.stack);
    free(yb.weights);
    free(yb.anchors);
    fy_parser_destroy(fyp);
    fy_diag_unref(diag);
    return rc;
}
