// Fixture for tests/ops/test_check_namespaces.sh: the old flat namespace.

#ifndef VANON_TESTS_OPS_TESTDATA_NAMESPACES_SRC_ENGINE_FLAT_H_
#define VANON_TESTS_OPS_TESTDATA_NAMESPACES_SRC_ENGINE_FLAT_H_

namespace vanon {
struct Tuple {};
}  // namespace vanon

#endif  // VANON_TESTS_OPS_TESTDATA_NAMESPACES_SRC_ENGINE_FLAT_H_
