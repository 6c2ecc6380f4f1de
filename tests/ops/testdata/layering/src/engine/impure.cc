// Fixture for ops.dependencies_rejects_impure_engine: the privacy engine
// reaching for an adapter and the service must be refused.
#include <rocksdb/db.h>

#include "vanon/service/service.h"
