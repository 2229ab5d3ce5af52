/*
 * The lexicon: every English word list of the engine and the index, in one place, each with a
 * line on where it is used. Each list is a macro that expands to its words (no terminator), so
 * a user writes `static const char *const words[] = {TEXT_LEX_X, NULL};` and keeps sizeof.
 * Lists hold general English only: no word of one API, one spec or one benchmark task
 * (docs/SEARCH.md). Several lists are Snowball-stemmed where they are used, so any form of a
 * verb may be written.
 */
#ifndef APIDEX_TEXT_LEXICON_H
#define APIDEX_TEXT_LEXICON_H

/* clang-format off */
/* text/actions.c: verbs that read their object (text_action_of_stem; opfacts.c tags operation
   summaries with it at index time, query.c the verbs of a task) */
#define TEXT_LEX_READ_VERBS \
    "get", "retrieve", "fetch", "list", "find", "show", "search", "check", "look", "view", \
    "see", "read", "download", "export", "display", "lookup", "query", "browse", "access", \
    "obtain", "pull", "count", "compare", "analyze", "analyse", "assess", "evaluate", "monitor", \
    "track", "review", "inspect", "examine", "identify", "determine", "calculate", "estimate", \
    "predict", "forecast", "verify", "summarize", "explore", "discover", "gather", "extract", \
    "measure", "detect", "locate", "know", "tell", "describe", "watch", "audit", "scan", "poll", \
    "load", "preview", "test", "validate", "inquire", "learn", "return", "give", "provide", \
    "recommend", "suggest"

/* text/actions.c: verbs that create their object (as above) */
#define TEXT_LEX_CREATE_VERBS \
    "create", "add", "make", "post", "send", "submit", "upload", "book", "subscribe", "invite", \
    "register", "schedule", "start", "launch", "generate", "build", "publish", "share", "reply", \
    "comment", "write", "import", "provision", "deploy", "install", "request", "order", "buy", \
    "purchase", "pay", "charge", "issue", "record", "insert", "attach", "enroll", "join", \
    "follow", "like", "star", "pin", "save", "store", "notify", "message", "text", "email", \
    "tweet", "initiate", "trigger", "run", "execute", "place", "open", "log", "copy", \
    "duplicate", "clone", "invoke", "dispatch", "broadcast", "announce", "ingest", "report", \
    "file", "capture", "draft", "compose", "allocate", "reserve", "put", "sign", "react", \
    "vote", "rate", "bookmark", "favorite", "favourite", "refund", "transfer", "snapshot", \
    "backup", "authenticate", "wire", "bill", "sms", "txt", "dm"

/* text/actions.c: verbs that change their object (as above) */
#define TEXT_LEX_UPDATE_VERBS \
    "update", "change", "rename", "set", "edit", "modify", "move", "adjust", "configure", \
    "replace", "assign", "enable", "disable", "mark", "reset", "restore", "resize", "upgrade", \
    "downgrade", "reschedule", "reorder", "rearrange", "refresh", "sync", "toggle", "turn", \
    "switch", "approve", "reject", "pause", "resume", "mute", "unmute", "archive", "unarchive", \
    "lock", "unlock", "close", "reopen", "apply", "patch", "tune", "optimize", "optimise", \
    "calibrate", "correct", "fix", "complete", "confirm", "accept", "decline", "activate", \
    "deactivate", "suspend", "reactivate", "promote", "demote", "grant", "rotate", "renew", \
    "extend", "scale", "restart", "reboot", "shutdown", "stop", "label", "tag", "sort", \
    "prioritize", "include", "exclude", "hide", "unhide", "power", "increase", "decrease", \
    "raise", "lower", "limit", "allow", "block", "unblock"

/* text/actions.c: verbs that delete their object (as above) */
#define TEXT_LEX_DELETE_VERBS \
    "delete", "remove", "cancel", "revoke", "ban", "kick", "destroy", "erase", "purge", \
    "unsubscribe", "unfollow", "unlike", "unstar", "unpin", "terminate", "drop", "detach", \
    "void", "clear", "discard", "dismiss", "leave", "expire", "withdraw", "wipe", "delist", \
    "uninstall", "deprovision", "deregister", "unregister", "retire", "abort", "unban", \
    "disconnect", "unlink", "forget", "trash"

/* text/actions.c: verbs whose object is not what they make, and what they send (text_verb_sense;
   query.c weighs it by query.verb_noun_weight) */
#define TEXT_LEX_VERB_SENSES \
    {"text", "send message"}, {"txt", "send message"}, {"sms", "send message"}, \
    {"dm", "send message"}, {"wire", "transfer"}, {"bill", "invoice"}

/* text/analyzer.c: ordinary English words that carry no intent; removed from queries only
   (text_term_is_stop) */
#define TEXT_LEX_STOP_WORDS \
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "was", "be", \
    "by", "with", "from", "at", "as", "it", "this", "that", "these", "those", "me", "my", "i", \
    "you", "your", "what", "which", "who", "whom", "how", "when", "where", "give", "get", \
    "tell", "show", "some", "any", "all", "do", "does", "did", "please", "can", "could", \
    "would", "will", "want", "need", "let"

/* text/analyzer.c: derivational suffixes of English as Snowball leaves them (text_term_family:
   word families, query.morph_weight) */
#define TEXT_LEX_SUFFIXES \
    "ment", "ion", "tion", "ation", "sion", "ance", "ence", "al", "er", "or", "ure", "iti", \
    "age", "eri", "ist", "ive", "ic", "abl", "ant", "ent", "ship", "ness", "ism"

/* text/analyzer.c: the suffixes that make a verb's action noun (text_term_family: pay ->
   payment; query.verb_noun_weight) */
#define TEXT_LEX_NOUN_SUFFIXES \
    "ment", "ion", "tion", "ation", "sion", "al", "ance", "ence", "ure"

/* search/intent.c: words that join clauses and may stand before a clause's verb (intent
   splitting) */
#define TEXT_LEX_CONNECTIVES \
    "and", "then", "also", "additionally", "finally", "next", "afterwards", "lastly", "plus", \
    "subsequently", "simultaneously", "while", "before", "after", "firstly", "secondly", \
    "thirdly", "first", "second", "third", "meanwhile", "furthermore", "moreover", "as", "well", \
    "by", "or"

/* search/intent.c question_at: words that open a question even without a '?' ('which invoices
   are overdue'; 'when', 'where' also open subordinate clauses: only with a '?'; action.question) */
#define TEXT_LEX_QUESTION_OPENERS \
    "what", "which", "who", "whom", "whose", "how"

/* search/intent.c question_at: modals that open a polite request, not a question ('can you
   send ...?'; action.question) */
#define TEXT_LEX_MODALS \
    "can", "could", "would", "will", "may", "might", "shall", "should", "must"

/* search/intent.c question_at: words after 'how' that make a how-to, a request ('how do I
   cancel ...', 'how to ...'; action.question) */
#define TEXT_LEX_HOW_TO \
    "to", "do", "can", "could", "should", "would", "may", "might"

/* search/intent.c: words between a clause's start and its verb ('I want to', 'please') */
#define TEXT_LEX_LEAD_INS \
    "i", "we", "please", "want", "need", "would", "like", "to", "can", "you", "could", "should", \
    "must", "let", "us", "me", "kindly", "help", "just"

/* search/intent.c mark_purpose: 'so' of 'so that', 'so as to' (purpose phrases,
   query.purpose_weight) */
#define TEXT_LEX_PURPOSE_SO \
    "so"

/* search/intent.c mark_purpose: 'that', 'as' after 'so' */
#define TEXT_LEX_PURPOSE_THAT_AS \
    "that", "as"

/* search/intent.c mark_purpose: 'to' of 'in order to', 'so as to' and of '... to ensure' */
#define TEXT_LEX_PURPOSE_TO \
    "to"

/* search/intent.c mark_purpose: 'for' of 'for <verb>ing' */
#define TEXT_LEX_PURPOSE_FOR \
    "for"

/* search/intent.c mark_purpose: 'order' of 'in order to' */
#define TEXT_LEX_PURPOSE_ORDER \
    "order"

/* search/intent.c mark_purpose: 'in' of 'in order to' */
#define TEXT_LEX_PURPOSE_IN \
    "in"

/* search/intent.c mark_adjuncts: prepositions that open the words after a request's object
   (query.adjunct_weight) */
#define TEXT_LEX_ADJUNCT_PREPOSITIONS \
    "to", "in", "into", "on", "onto", "at", "from", "via", "using", "with", "within", "for", \
    "by", "through", "across", "under", "over", "per", "inside", "toward", "towards"

/* search/intent.c refers_back: pronouns that take the previous request's object
   (query.anaphora_weight) */
#define TEXT_LEX_PRONOUNS \
    "it", "them", "this", "that", "these", "those", "its", "their", "him", "her"

/* search/intent.c in_a_list: subjects that open a clause, so the words after a comma are no list
   item (intent.lists) */
#define TEXT_LEX_SUBJECTS \
    "i", "i'm", "im", "we", "we're", "they", "it", "it's", "he", "she", "you", "that", "this", \
    "there", "which", "who"

/* search/intent.c in_a_list: the words before a list's last item */
#define TEXT_LEX_LIST_JOINS \
    "and", "or"

/* search/owner.c owner_read: words that tie a resource word to its owner's name ('invoices of
   Contoso'; query.owner_weight) */
#define TEXT_LEX_OWNER_TIES \
    "by", "of", "from", "with"

/* search/owner.c owner_read: words that may stand inside a name of several words */
#define TEXT_LEX_OWNER_JOINERS \
    "of", "and", "the", "a", "an", "&", "in", "on"

/* search/owner.c owner_read: possessive determiners: 'my invoices' names no owner */
#define TEXT_LEX_OWNER_DETERMINERS \
    "my", "our", "your", "his", "her", "their"

/* search/query.c mark_negated: a negated verb asks nothing (query.negation_reach) */
#define TEXT_LEX_NEGATIONS \
    "not", "don't", "dont", "don’t", "never", "without", "no", "doesn't", "won't", "shouldn't", \
    "mustn't", "nor"

/* search/query.c: 'my', 'our': the task is about the caller (producer.mine_bonus) */
#define TEXT_LEX_MINE \
    "my", "mine", "our", "ours"

/* search/query.c query_gives: words that say an id is given ('the order ID', query.id_reach,
   query.id_before) */
#define TEXT_LEX_ID_WORDS \
    "id", "ids", "identifier", "identifiers", "uuid", "key"

/* search/query.c query_gives: words between an entity's word and its literal ('order ID 77',
   'the device with ID 12') */
#define TEXT_LEX_ID_GLUE \
    "id", "ids", "no", "number", "with", "of", "identifier", "uuid", "key", "is", "=", "#"

/* search/query.c query_gives: 'a specific X' means the caller has X (producer.given_specific) */
#define TEXT_LEX_SPECIFIC \
    "specific", "particular", "given", "specified"

/* search/query.c query_creates: 'a new X': the task creates X (query.fresh_reach) */
#define TEXT_LEX_FRESH \
    "new", "another", "fresh"

/* search/opposite.c: verbs that oppose and share nothing (or whose prefix alone would be
   ambiguous; action.opposite) */
#define TEXT_LEX_OPPOSITE_PAIRS \
    {"start", "stop"}, {"enable", "disable"}, {"activate", "deactivate"}, {"add", "remove"}, \
    {"open", "close"}, {"pause", "resume"}, {"suspend", "resume"}, {"attach", "detach"}, \
    {"connect", "disconnect"}, {"join", "leave"}, {"approve", "reject"}, {"approve", "deny"}, \
    {"accept", "decline"}, {"accept", "reject"}, {"grant", "revoke"}, {"show", "hide"}, \
    {"register", "deregister"}, {"freeze", "thaw"}, {"arm", "disarm"}, {"upload", "download"}, \
    {"upvote", "downvote"}, {"increase", "decrease"}, {"encrypt", "decrypt"}, \
    {"like", "dislike"}, {"hold", "release"}, {"include", "exclude"}, {"allow", "deny"}, \
    {"allow", "block"}, {"login", "logout"}, {"provision", "deprovision"}, {"create", "delete"}, \
    {"create", "destroy"}, {"subscribe", "cancel"}, {"install", "uninstall"}, \
    {"lock", "unlock"}, {"follow", "unfollow"}, {"subscribe", "unsubscribe"}, \
    {"archive", "unarchive"}, {"mute", "unmute"}, {"block", "unblock"}, {"enroll", "unenroll"}, \
    {"assign", "unassign"}, {"publish", "unpublish"}, {"grant", "deny"}, {"import", "export"}

/* search/opposite.c: words that destroy: a non-GET operation that has one is destructive
   (action.destroy_words) */
#define TEXT_LEX_DESTROY_WORDS \
    "delete", "destroy", "purge", "ban", "revoke", "erase", "wipe", "terminate"

/* search/values.c: the word an operation's inputs use for each kind of value, in value_kind
   order after VK_NONE (query.value_weight) */
#define TEXT_LEX_VALUE_KINDS \
    "email", "url", "ip", "phone"

/* flow/flow.c envelope_words: words that name containers in JSON and REST responses, no
   entities (index time) */
#define TEXT_LEX_ENVELOPE_WORDS \
    "item", "items", "data", "result", "results", "record", "records", "entry", "entries", \
    "list", "value", "values", "content", "response", "body", "page", "paging", "paginated", \
    "pagination", "object", "element", "node", "edge", "hit", "row", "collection", "payload", \
    "wrapper", "info", "detail", "details", "model", "dto", "schema", "array", "set", \
    "embedded", "_embedded", "output", "interface", "entity", "representation"

/* flow/flow.c flow_bare_id: a parameter name that is a key and nothing else (index time) */
#define TEXT_LEX_BARE_IDS \
    "id", "ids", "key", "uuid", "sid", "guid", "slug"

/* flow/inputs.c says_identifier: a description that says its input is an identifier
   (index time) */
#define TEXT_LEX_IDENTIFIER_WORDS \
    "id", "ids", "identifier", "identifiers", "uuid"

/* flow/inputs.c flow_accepts_name: ... and that it takes a name as well (index time) */
#define TEXT_LEX_NAME_WORDS \
    "name", "names"

/* flow/flow.c flow_path_is_mine: path segments that mean the caller ('/me',
   '/users/self'; producer.caller) */
#define TEXT_LEX_PATH_MINE \
    "me", "@me", "my", "self", "current", "mine"

/* flow/opfacts.c: parameter names of a free-text query (producer.text_query; index time) */
#define TEXT_LEX_TEXT_QUERY_PARAMS \
    "q", "query", "search", "term", "keyword", "keywords", "text"

/* view/describe.c: verbs a summary may start with, so it reads as the rest of 'How do I
   ...?' (index time) */
#define TEXT_LEX_LEAD_VERBS \
    "get", "list", "create", "update", "delete", "remove", "add", "find", "search", "retrieve", \
    "fetch", "return", "show", "set", "upload", "download", "send", "check", "start", "stop", \
    "cancel", "replace", "modify", "save", "follow", "unfollow", "post", "put", "patch", "read", \
    "write", "register", "login", "logout", "look", "query", "change", "edit", "enable", \
    "disable", "approve", "reject", "assign", "invite", "accept", "move", "copy", "rename", \
    "archive", "restore", "reset", "verify", "validate", "run", "execute", "trigger", "play", \
    "pause", "skip", "transfer", "subscribe", "unsubscribe", "attach", "detach", "import", \
    "export", "generate", "count", "describe", "browse", "view", "mark", "rate", "like", \
    "unlike", "block", "unblock", "close", "open", "submit"

/* clang-format on */

#endif
