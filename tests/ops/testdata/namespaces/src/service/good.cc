// Fixture: its own area, a helper namespace in it, and another area's
// namespace only for a forward declaration: accepted.
namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {
int Answer() { return 42; }
}  // namespace vanon::service

namespace vanon::service::internal {
int Helper() { return 1; }
}  // namespace vanon::service::internal
