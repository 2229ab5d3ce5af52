/*
 * Descriptions as safe HTML for the web page. Specs write their descriptions in CommonMark
 * (GitHub's dialect) with HTML mixed in, and a spec may be hostile (docs/SECURITY.md), so
 * the page never shows raw markup and never receives markup a spec wrote:
 *
 *   - md4c (Debian's libmd4c) parses the markdown; this file writes the HTML itself, from a
 *     fixed set of elements (p, br, em, strong, del, code, pre, ul, ol, li, blockquote, hr,
 *     table parts, a) without any attribute but a link's href; headings become bold
 *     paragraphs (the page owns the outline);
 *   - text is escaped; an entity is kept only in its checked form (&name; &#10; &#xA;);
 *   - a link keeps its href only for http(s) URLs (javascript:, data:, relative: the text
 *     stays, the link goes); an image becomes its alt text (the page loads nothing);
 *   - raw HTML is never passed on: an inline tag is dropped (<br> becomes a line break; an
 *     inline <script> or <style> goes with its text), an
 *     HTML block becomes its plain text (text_plain: tags, <script> and <style> with their
 *     content, comments go; entities are decoded), escaped, in paragraphs.
 *
 * The page parses the result in an inert document and rebuilds it from the same element
 * list (web/markup.js), and its Content-Security-Policy allows no inline script: three
 * fences between a spec and the page's script.
 */
#include "serve/serve_int.h"

#include "text/text.h"

#include <md4c.h>
#include <string.h>
#include <strings.h>

typedef struct {
    core_buf *out;
    core_buf html; /* the text of the HTML block being read */
    int in_html_block;
    int in_image;      /* alt text: written as text, in any markup */
    int in_script;     /* between an inline <script> or <style> and its end tag: dropped */
    int link_open[64]; /* per nesting level of links: whether <a> was written */
    int link_depth;
} md_state;

static void put_escaped(core_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&':
            core_buf_puts(b, "&amp;");
            break;
        case '<':
            core_buf_puts(b, "&lt;");
            break;
        case '>':
            core_buf_puts(b, "&gt;");
            break;
        case '"':
            core_buf_puts(b, "&quot;");
            break;
        case '\'':
            core_buf_puts(b, "&#39;");
            break;
        case '\0':
            break;
        default:
            core_buf_putc(b, s[i]);
        }
    }
}

/* &name; &#123; &#x1F; only: anything else is written as text */
static bool entity_ok(const char *s, size_t n)
{
    if (n < 3 || n > 40 || s[0] != '&' || s[n - 1] != ';') return false;
    size_t i = 1;
    bool hex = false;
    if (s[1] == '#') {
        i = 2;
        if (i < n - 1 && (s[i] == 'x' || s[i] == 'X')) hex = true, i++;
    }
    if (i >= n - 1) return false;
    for (; i < n - 1; i++) {
        char c = s[i];
        bool digit = c >= '0' && c <= '9';
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (s[1] == '#' ? !(digit || (hex && alpha && ((c | 32) <= 'f'))) : !(digit || alpha))
            return false;
    }
    return true;
}

/* The text of an attribute (md4c splits it by kind; the raw bytes are what was written). */
static void attr_text(const MD_ATTRIBUTE *a, core_buf *b)
{
    if (a->text && a->size) core_buf_append(b, a->text, a->size);
}

static bool href_ok(const char *s, size_t n)
{
    return (n > 7 && !strncasecmp(s, "http://", 7)) || (n > 8 && !strncasecmp(s, "https://", 8));
}

static const char *block_tag(MD_BLOCKTYPE t, const void *detail)
{
    switch (t) {
    case MD_BLOCK_P:
        return "p";
    case MD_BLOCK_QUOTE:
        return "blockquote";
    case MD_BLOCK_UL:
        return "ul";
    case MD_BLOCK_OL:
        return "ol";
    case MD_BLOCK_LI:
        return "li";
    case MD_BLOCK_TABLE:
        return "table";
    case MD_BLOCK_THEAD:
        return "thead";
    case MD_BLOCK_TBODY:
        return "tbody";
    case MD_BLOCK_TR:
        return "tr";
    case MD_BLOCK_TH:
        return "th";
    case MD_BLOCK_TD:
        return "td";
    default:
        (void)detail;
        return NULL;
    }
}

static int enter_block(MD_BLOCKTYPE t, void *detail, void *ud)
{
    md_state *st = ud;
    if (t == MD_BLOCK_HTML) {
        st->in_html_block = 1;
        core_buf_reset(&st->html);
        return 0;
    }
    if (t == MD_BLOCK_H) return core_buf_puts(st->out, "<p><strong>"), 0;
    if (t == MD_BLOCK_CODE) return core_buf_puts(st->out, "<pre><code>"), 0;
    if (t == MD_BLOCK_HR) return core_buf_puts(st->out, "<hr>"), 0;
    const char *tag = block_tag(t, detail);
    if (tag) core_buf_printf(st->out, "<%s>", tag);
    return 0;
}

static int leave_block(MD_BLOCKTYPE t, void *detail, void *ud)
{
    md_state *st = ud;
    if (t == MD_BLOCK_HTML) {
        /* raw HTML: its plain text, paragraph by paragraph */
        st->in_html_block = 0;
        core_buf plain;
        core_buf_init(&plain, 0);
        if (st->html.len && !text_plain(st->html.data, st->html.len, 0, &plain) && plain.len) {
            const char *p = plain.data, *end = plain.data + plain.len;
            while (p < end) {
                const char *q = strstr(p, "\n\n");
                if (!q) q = end;
                core_buf_puts(st->out, "<p>");
                for (const char *l = p; l < q;) {
                    const char *nl = memchr(l, '\n', (size_t)(q - l));
                    if (!nl) nl = q;
                    if (l > p) core_buf_puts(st->out, "<br>");
                    put_escaped(st->out, l, (size_t)(nl - l));
                    l = nl < q ? nl + 1 : q;
                }
                core_buf_puts(st->out, "</p>");
                p = q < end ? q + 2 : end;
            }
        }
        core_buf_free(&plain);
        return 0;
    }
    if (t == MD_BLOCK_H) return core_buf_puts(st->out, "</strong></p>"), 0;
    if (t == MD_BLOCK_CODE) return core_buf_puts(st->out, "</code></pre>"), 0;
    const char *tag = block_tag(t, detail);
    if (tag) core_buf_printf(st->out, "</%s>", tag);
    return 0;
}

static int enter_span(MD_SPANTYPE t, void *detail, void *ud)
{
    md_state *st = ud;
    if (st->in_image) return 0;
    switch (t) {
    case MD_SPAN_EM:
        core_buf_puts(st->out, "<em>");
        break;
    case MD_SPAN_STRONG:
        core_buf_puts(st->out, "<strong>");
        break;
    case MD_SPAN_DEL:
        core_buf_puts(st->out, "<del>");
        break;
    case MD_SPAN_CODE:
        core_buf_puts(st->out, "<code>");
        break;
    case MD_SPAN_IMG:
        st->in_image = 1;
        break;
    case MD_SPAN_A: {
        const MD_SPAN_A_DETAIL *a = detail;
        core_buf href;
        core_buf_init(&href, 0);
        attr_text(&a->href, &href);
        bool ok = href.len && href_ok(href.data, href.len);
        if (ok) {
            core_buf_puts(st->out, "<a href=\"");
            put_escaped(st->out, href.data, href.len);
            core_buf_puts(st->out, "\">");
        }
        core_buf_free(&href);
        if (st->link_depth < (int)(sizeof st->link_open / sizeof *st->link_open))
            st->link_open[st->link_depth] = ok;
        st->link_depth++;
        break;
    }
    default:
        break;
    }
    return 0;
}

static int leave_span(MD_SPANTYPE t, void *detail, void *ud)
{
    (void)detail;
    md_state *st = ud;
    if (t == MD_SPAN_IMG) {
        st->in_image = 0;
        return 0;
    }
    if (st->in_image) return 0;
    switch (t) {
    case MD_SPAN_EM:
        core_buf_puts(st->out, "</em>");
        break;
    case MD_SPAN_STRONG:
        core_buf_puts(st->out, "</strong>");
        break;
    case MD_SPAN_DEL:
        core_buf_puts(st->out, "</del>");
        break;
    case MD_SPAN_CODE:
        core_buf_puts(st->out, "</code>");
        break;
    case MD_SPAN_A:
        if (st->link_depth > 0) st->link_depth--;
        if (st->link_depth < (int)(sizeof st->link_open / sizeof *st->link_open) &&
            st->link_open[st->link_depth])
            core_buf_puts(st->out, "</a>");
        break;
    default:
        break;
    }
    return 0;
}

/* Is s[0..n) one <br> tag, in any of its spellings? */
static bool is_br(const char *s, size_t n)
{
    return n >= 4 && s[0] == '<' && (s[1] | 32) == 'b' && (s[2] | 32) == 'r' &&
           (s[3] == '>' || s[3] == ' ' || s[3] == '/');
}

static int text(MD_TEXTTYPE t, const MD_CHAR *s, MD_SIZE n, void *ud)
{
    md_state *st = ud;
    if (st->in_html_block) {
        core_buf_append(&st->html, s, n);
        return 0;
    }
    if (st->in_script && t != MD_TEXT_HTML) return 0;
    switch (t) {
    case MD_TEXT_HTML: /* an inline tag: dropped; a script's or style's text too */
        if (is_br(s, n)) core_buf_puts(st->out, "<br>");
        if ((n >= 7 && !strncasecmp(s, "<script", 7)) || (n >= 6 && !strncasecmp(s, "<style", 6)))
            st->in_script = 1;
        else if ((n >= 8 && !strncasecmp(s, "</script", 8)) ||
                 (n >= 7 && !strncasecmp(s, "</style", 7)))
            st->in_script = 0;
        break;
    case MD_TEXT_NULLCHAR:
        core_buf_puts(st->out, "\xEF\xBF\xBD");
        break;
    case MD_TEXT_BR:
        core_buf_puts(st->out, "<br>");
        break;
    case MD_TEXT_SOFTBR:
        core_buf_putc(st->out, '\n');
        break;
    case MD_TEXT_ENTITY:
        if (entity_ok(s, n))
            core_buf_append(st->out, s, n);
        else
            put_escaped(st->out, s, n);
        break;
    default:
        put_escaped(st->out, s, n);
        break;
    }
    return 0;
}

int serve_markup_html(const char *md, size_t n, core_buf *out)
{
    if (!md || !out) return APIDEX_EINVAL;
    md_state st = {.out = out};
    core_buf_init(&st.html, 0);
    MD_PARSER parser = {
        .abi_version = 0,
        .flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEURLAUTOLINKS,
        .enter_block = enter_block,
        .leave_block = leave_block,
        .enter_span = enter_span,
        .leave_span = leave_span,
        .text = text,
    };
    int rc = md_parse(md, (MD_SIZE)n, &parser, &st);
    core_buf_free(&st.html);
    if (out->failed) return APIDEX_ENOMEM;
    return rc ? APIDEX_EINVAL : 0;
}

/* Adds "description_html" beside every string "description" of o and its members. */
static void add_html(struct json_object *o, int depth)
{
    if (!o || depth > 64) return;
    if (json_object_is_type(o, json_type_array)) {
        size_t n = json_object_array_length(o);
        for (size_t i = 0; i < n; i++) add_html(json_object_array_get_idx(o, i), depth + 1);
        return;
    }
    if (!json_object_is_type(o, json_type_object)) return;
    struct json_object *d = NULL;
    json_object_object_foreach(o, key, val)
    {
        if (!strcmp(key, "description") && json_object_is_type(val, json_type_string))
            d = val;
        else
            add_html(val, depth + 1);
    }
    if (!d) return;
    const char *raw = json_object_get_string(d);
    size_t n = (size_t)json_object_get_string_len(d);
    core_buf b, plain;
    core_buf_init(&b, 0);
    core_buf_init(&plain, 0);
    if (!serve_markup_html(raw, n, &b) && !text_plain(raw, n, 0, &plain)) {
        serve_jadd(o, "description_html",
                   json_object_new_string_len(b.data ? b.data : "", (int)b.len));
        serve_jadd(o, "description",
                   json_object_new_string_len(plain.data ? plain.data : "", (int)plain.len));
    }
    core_buf_free(&b);
    core_buf_free(&plain);
}

void serve_markup_add(struct json_object *o)
{
    add_html(o, 0);
}
