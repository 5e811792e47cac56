/* version.c: the two strings of version.h. build_info.h is written by the
 * Makefile (build/gen/) and rewritten only when its text changes, so only
 * this object is rebuilt when HEAD moves. */
#include "version.h"

#include "build_info.h"

const char croupier_version[] = CROUPIER_VERSION;
const char croupier_commit[] = CROUPIER_COMMIT;
