/* Memory budgets: bytes charged against a limit, so one document's load stays within what
   it was allowed (docs/INDEX.md, "Load limits"). Arenas charge the blocks they allocate. */
#include "core/core.h"

bool core_budget_charge(core_budget *b, size_t n)
{
    if (!b) return true;
    if (b->limit && (n > b->limit || b->used > b->limit - n)) {
        b->over = true;
        if (!b->over_by || n > b->over_by) b->over_by = n;
        return false;
    }
    b->used += n;
    if (b->used > b->peak) b->peak = b->used;
    return true;
}

void core_budget_release(core_budget *b, size_t n)
{
    if (!b) return;
    b->used = n > b->used ? 0 : b->used - n;
}

int core_budget_error(const core_budget *b, apidex_error *err)
{
    size_t mib = b ? (b->limit + (1u << 20) - 1) >> 20 : 0;
    return core_error_set(
        err, APIDEX_ELIMIT, "loading needs more memory than its budget of %zu MiB%s%s%s", mib,
        b && b->note[0] ? " (" : "", b ? b->note : "", b && b->note[0] ? ")" : "");
}
