// Fixture: defines code in another area's namespace.
namespace vanon::service {
int Answer() { return 42; }
}  // namespace vanon::service

namespace vanon::state {
int Defined() { return 1; }
}  // namespace vanon::state
