#include <string.h>

#include "check.h"
#include "kscope/status.h"

static void every_status_has_a_message(void)
{
    for (int32_t s = 0; s < KS_STATUS_COUNT; s++)
        CHECK(strcmp(ks_status_message(s), "unknown status") != 0);
    CHECK(strcmp(ks_status_message(KS_STATUS_COUNT), "unknown status") == 0);
    CHECK(strcmp(ks_status_message(-1), "unknown status") == 0);
}

static void version_is_semver(void)
{
    int dots = 0;
    for (const char *p = ks_version(); *p; p++)
        dots += *p == '.';
    CHECK_EQ_INT(dots, 2);
}

const test_case status_tests[] = {
    { "status: every status has a message", every_status_has_a_message },
    { "status: version is x.y.z", version_is_semver },
    { 0 },
};
