/* Status messages and the version string: the text half of "one door for errors". */
#include "kscope/status.h"

#define KSCOPE_VERSION "0.1.0"

static const char *const status_messages[KS_STATUS_COUNT] = {
    [KS_OK] = "ok",
    [KS_ERR_INVALID_ARG] = "invalid argument",
    [KS_ERR_NOT_FOUND] = "not found",
    [KS_ERR_NO_MEMORY] = "out of memory",
    [KS_ERR_PARSE] = "malformed input",
    [KS_ERR_RANGE] = "out of range",
    [KS_ERR_IO] = "I/O error",
};

const char *ks_status_message(int32_t status)
{
    if (status < 0 || status >= KS_STATUS_COUNT)
        return "unknown status";
    return status_messages[status];
}

const char *ks_version(void)
{
    return KSCOPE_VERSION;
}
