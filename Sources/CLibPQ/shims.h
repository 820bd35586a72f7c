#ifndef CLIBPQ_SHIMS_H
#define CLIBPQ_SHIMS_H
#include <libpq-fe.h>

/// `PG_DIAG_SQLSTATE` is a character constant macro ('C'); spelled out here so Swift sees it as an Int32.
static const int CLIBPQ_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int CLIBPQ_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;
static const int CLIBPQ_DIAG_CONSTRAINT_NAME = PG_DIAG_CONSTRAINT_NAME;

#endif
