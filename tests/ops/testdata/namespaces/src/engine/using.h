// Fixture: right namespace, but `using namespace` in a header.

#ifndef VANON_TESTS_OPS_TESTDATA_NAMESPACES_SRC_ENGINE_USING_H_
#define VANON_TESTS_OPS_TESTDATA_NAMESPACES_SRC_ENGINE_USING_H_

namespace vanon::engine {
using namespace std;
}  // namespace vanon::engine

#endif  // VANON_TESTS_OPS_TESTDATA_NAMESPACES_SRC_ENGINE_USING_H_
